package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// handler does the work of one route for the caller's team and returns the
// success status and body, or an error (a *problem or a store error).
type handler func(r *http.Request, w http.ResponseWriter, team string) (int, any, error)

func (s *Server) routes() {
	s.handle("POST /suppressions/batch/add", true, s.batchAdd)
	s.handle("POST /suppressions/batch/remove", true, s.batchRemove)
	s.handle("POST /suppressions/batch/check", false, s.check)
	s.handle("POST /suppressions", true, s.addOne)
	s.handle("GET /suppressions", false, s.list)
	s.handle("GET /suppressions/{ref}", false, s.getOne)
	s.handle("DELETE /suppressions/{ref}", true, s.removeOne)
	s.handle("GET /suppressions/export", false, s.export)
	s.handle("GET /suppressions/domains", false, s.domainEntries)
	s.handle("GET /suppressions/{ref}/audit", false, s.suppressionAudit)
	s.handle("GET /audit", false, s.audit)
	s.handle("POST /suppressions/erase", true, s.erase)
	s.webhookRoutes()
	s.teamRoutes()
	s.agentRoutes()
	s.intakeRoutes()
	s.oneClickRoutes()
	s.mux.HandleFunc("GET /healthz", s.ready)
	s.mux.HandleFunc("GET /readyz", s.ready)
	s.mux.HandleFunc("GET /livez", s.live)
	s.mux.HandleFunc("GET /openapi.json", s.openapi)
}

// handle registers a route that needs a key; changes says whether it
// changes the list, which a read-only key may not.
func (s *Server) handle(pattern string, changes bool, h handler) {
	// A change of the webhooks can make events due (one enabled again,
	// one replayed) without queueing any: it always wakes the deliverer.
	hooks := strings.Contains(pattern, " /webhooks")
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		c, ok := callerOf(r)
		if !ok {
			writeProblem(w, r, s.log, fromStore(errNoKey))
			return
		}
		if changes && c.readOnly() {
			writeProblem(w, r, s.log, newProblem(http.StatusForbidden, api.ErrRestrictedAPIKey,
				"This %s is read-only; it cannot change the suppression list.", c.kind()))
			return
		}
		if changes {
			ch, err := changeOf(r, w, c)
			if err != nil {
				writeProblem(w, r, s.log, err)
				return
			}
			r = r.WithContext(context.WithValue(r.Context(), authorCtx{}, ch))
		}
		run := func(r *http.Request) {
			queued, counted := s.eventsQueued()
			status, body, err := h(r, w, c.team())
			if errors.Is(err, store.ErrUnavailable) {
				s.readiness.forget()
			}
			if err != nil {
				writeProblem(w, r, s.log, fromStore(err))
				return
			}
			if now, _ := s.eventsQueued(); changes && (hooks || !counted || now != queued) {
				s.wakeDeliveries()
			}
			if st, ok := body.(streamer); ok {
				st.stream(w, r)
				return
			}
			writeJSON(w, status, body)
		}
		if costly(pattern, r) {
			s.budgeted(w, r, c.team(), run)
			return
		}
		run(r)
	})
}

type authorCtx struct{}

// authorOf is the author of the request's change, set by handle for the
// routes that change the list; the store writes it into the trail.
func authorOf(r *http.Request) store.Change {
	ch, _ := r.Context().Value(authorCtx{}).(store.Change)
	return ch
}

// changeOf says who makes a change and why, for the trail: the key or
// the agent, the request's ID, and the Shush-Reference header when given
// (1 to 200 printable characters; anything else is a validation error
// naming it).
func changeOf(r *http.Request, w http.ResponseWriter, c caller) (store.Change, *problem) {
	ch := c.author()
	ch.RequestID = w.Header().Get(requestIDHeader)
	refs := r.Header.Values(api.ReferenceHeader)
	switch {
	case len(refs) > 1:
		return ch, invalid("The %s header is given %d times; send it once.", api.ReferenceHeader, len(refs))
	case len(refs) == 1:
		if err := api.ValidReference(refs[0]); err != nil {
			return ch, invalid("The %s header is not valid: %s; send 1 to %d printable characters, e.g. a ticket number.", api.ReferenceHeader, err, api.MaxReference)
		}
		ch.Reference = refs[0]
	}
	return ch, nil
}

func (s *Server) batchAdd(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	f, err := readObject(w, r, "emails", "entries")
	if err != nil {
		return 0, nil, err
	}
	rawEmails, hasEmails := f["emails"]
	rawEntries, hasEntries := f["entries"]
	var add []store.NewEntry
	field := "entries"
	switch {
	case hasEmails && hasEntries:
		return 0, nil, invalid("Send either `emails` or `entries`, not both.")
	case hasEntries:
		if add, err = entryList(rawEntries, s.opts.Now()); err != nil {
			return 0, nil, err
		}
		if err := s.mayKeepIDs(r, add); err != nil {
			return 0, nil, err
		}
	case hasEmails:
		emails, err := stringList(rawEmails, "emails", "a valid email address", api.NormalizeEntry)
		if err != nil {
			return 0, nil, err
		}
		add, field = store.Manual(emails...), "emails"
	default:
		return 0, nil, missing("Missing `emails` field; send {\"emails\": [...]} (or `entries` with origins) with 1 to %d addresses.", api.MaxBatch)
	}
	s.metrics.batchItems.WithLabelValues("add").Observe(float64(len(add)))
	entries, err := timed(s.metrics, "add", func() ([]store.Entry, error) {
		return s.store.Add(r.Context(), team, authorOf(r), add)
	})
	if err != nil {
		return 0, nil, protectedRefusal(err, field)
	}
	out := batchResponse(entries, false)
	if err := s.domainListed(r.Context(), team, entries, out); err != nil {
		// The add is made: its answer goes without the domains.
		s.log.Warn("read the domain entries for an add's answer", "team", team, "err", err)
	}
	return http.StatusCreated, out, nil
}

func (s *Server) batchRemove(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	f, err := readObject(w, r, "emails", "ids")
	if err != nil {
		return 0, nil, err
	}
	rawEmails, hasEmails := f["emails"]
	rawIDs, hasIDs := f["ids"]
	author, err := s.removal(r, team)
	if err != nil {
		return 0, nil, err
	}
	var entries []store.Entry
	switch {
	case hasEmails && hasIDs:
		return 0, nil, invalid("Send either `emails` or `ids`, not both.")
	case hasEmails:
		emails, err := stringList(rawEmails, "emails", "a valid email address", api.NormalizeEntry)
		if err != nil {
			return 0, nil, err
		}
		s.metrics.batchItems.WithLabelValues("remove").Observe(float64(len(emails)))
		entries, err = timed(s.metrics, "remove", func() ([]store.Entry, error) {
			return s.store.RemoveEmails(r.Context(), team, author, emails)
		})
		if err != nil {
			return 0, nil, complaintRefusal(r, err, func(e store.Entry) string {
				return fmt.Sprintf("emails[%d] (%s)", slices.Index(emails, e.Email), api.Quote(e.Email))
			})
		}
	case hasIDs:
		ids, err := stringList(rawIDs, "ids", "a suppression ID", api.NormalizeID)
		if err != nil {
			return 0, nil, err
		}
		s.metrics.batchItems.WithLabelValues("remove").Observe(float64(len(ids)))
		entries, err = timed(s.metrics, "remove", func() ([]store.Entry, error) {
			return s.store.RemoveIDs(r.Context(), team, author, ids)
		})
		if err != nil {
			return 0, nil, complaintRefusal(r, err, func(e store.Entry) string {
				return fmt.Sprintf("ids[%d] (%s, %s)", slices.Index(ids, e.ID), api.Quote(e.ID), api.Quote(e.Email))
			})
		}
	default:
		return 0, nil, missing("Missing `emails` or `ids` field; send one of them with 1 to %d items.", api.MaxBatch)
	}
	return http.StatusOK, batchResponse(entries, true), nil
}

// batchResponse is the answer of both batch endpoints: each item names its
// address (contract: answers that say which address is which), and an
// add's item says whether this request created it.
func batchResponse(entries []store.Entry, deleted bool) api.BatchResponse {
	out := api.BatchResponse{Data: make([]api.Suppression, len(entries))}
	for i, e := range entries {
		out.Data[i] = suppression(e, deleted)
	}
	return out
}

// suppression is a batch answer's item; an add's says whether it made
// the entry, and the note and expiry the entry has now.
func suppression(e store.Entry, deleted bool) api.Suppression {
	s := api.Suppression{Object: api.ObjectSuppression, ID: e.ID, Email: e.Email, Deleted: deleted}
	if !deleted {
		created := e.Created
		w := e.Wire("")
		s.Created, s.Note, s.ExpiresAt, s.Erased = &created, w.Note, w.ExpiresAt, w.Erased
	}
	return s
}

func (s *Server) addOne(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	f, err := readObject(w, r, "email", "note", "expires_at")
	if err != nil {
		return 0, nil, err
	}
	raw, ok := f["email"]
	if !ok {
		return 0, nil, missing("Missing `email` field; send {\"email\": \"...\"}.")
	}
	email, err := stringField(raw, "email", "a valid email address", api.NormalizeEntry)
	if err != nil {
		return 0, nil, err
	}
	add := store.NewEntry{Email: email}
	if raw, ok := f["note"]; ok {
		if add.Note, err = noteField(raw, "note"); err != nil {
			return 0, nil, err
		}
	}
	if raw, ok := f["expires_at"]; ok {
		if add.ExpiresAt, err = expiresField(raw, "expires_at", s.opts.Now()); err != nil {
			return 0, nil, err
		}
	}
	entries, err := timed(s.metrics, "add", func() ([]store.Entry, error) {
		return s.store.Add(r.Context(), team, authorOf(r), []store.NewEntry{add})
	})
	if err != nil {
		return 0, nil, protectedRefusal(err, "email")
	}
	return http.StatusCreated, suppression(entries[0], false), nil
}

func (s *Server) list(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return 0, nil, badRequest("The query string is malformed; escape its values.")
	}
	lq, err := selection(q)
	if err != nil {
		return 0, nil, err
	}
	lq.Limit = 20
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > api.MaxBatch || len(v) > 1 {
			return 0, nil, invalid("`limit` must be one whole number from 1 to %d, not %s.", api.MaxBatch, api.Quote(v[0]))
		}
		lq.Limit = n
	}
	for _, p := range []struct {
		name string
		dst  *string
	}{{"after", &lq.After}, {"before", &lq.Before}} {
		v, ok := q[p.name]
		if !ok {
			continue
		}
		id, err := api.NormalizeID(v[0])
		if err != nil || len(v) > 1 {
			return 0, nil, invalid("`%s` (%s) is not a suppression ID: it must be one UUID.", p.name, api.Quote(v[0]))
		}
		*p.dst = id
	}
	if lq.After != "" && lq.Before != "" {
		return 0, nil, invalid("Send either `after` or `before`, not both.")
	}
	pg, err := s.store.Page(r.Context(), team, lq)
	if err != nil {
		return 0, nil, err
	}
	out := api.ListResponse{Object: api.ObjectList, HasMore: pg.HasMore, NextCursor: pg.Next, Data: make([]api.Entry, len(pg.Entries))}
	for i, e := range pg.Entries {
		out.Data[i] = e.Wire("")
	}
	return http.StatusOK, out, nil
}

// selection reads what the list and the export narrow the list by: the
// origin, the search `q` (contract: finding entries) and the created
// range; each given once.
func selection(q url.Values) (store.ListQuery, error) {
	var lq store.ListQuery
	if v, ok := q["origin"]; ok {
		o, err := api.ParseOrigin(v[0])
		if err != nil || len(v) > 1 {
			return lq, invalid("`origin` (%s) must be one of bounce, complaint, manual.", api.Quote(v[0]))
		}
		lq.Origin = o
	}
	if v, ok := q["q"]; ok {
		if len(v) > 1 {
			return lq, invalid("`q` is given %d times; give it once.", len(v))
		}
		search, err := api.ParseSearch(v[0])
		if err != nil {
			return lq, invalid("`q` (%s) is not a search: %s; send @domain, a prefix of at least %d characters with * (jane*), or an address.",
				api.Quote(v[0]), err, api.MinPrefix)
		}
		lq.Search = search
	}
	for _, p := range []struct {
		name string
		dst  *time.Time
	}{{"created_after", &lq.CreatedAfter}, {"created_before", &lq.CreatedBefore}} {
		v, ok := q[p.name]
		if !ok {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, v[0])
		if err != nil || len(v) > 1 {
			return lq, invalid("`%s` (%s) must be one RFC 3339 time, such as 2026-01-31T00:00:00Z.", p.name, api.Quote(v[0]))
		}
		*p.dst = t
	}
	return lq, nil
}

// check answers POST /suppressions/batch/check (contract: finding
// entries): for each distinct address, in request order, whether it is
// listed and its entry. It changes nothing.
func (s *Server) check(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	body, err := readBody(w, r)
	if err != nil {
		return 0, nil, err
	}
	emails, ok := plainListBody(body, "emails", api.MaxCheck, api.NormalizeEntry)
	if !ok {
		f, err := objectOf(body, "emails")
		if err != nil {
			return 0, nil, err
		}
		raw, ok := f["emails"]
		if !ok {
			return 0, nil, missing("Missing `emails` field; send {\"emails\": [...]} with 1 to %d addresses.", api.MaxCheck)
		}
		if emails, err = stringListOf(raw, "emails", "a valid email address", api.MaxCheck, api.NormalizeEntry); err != nil {
			return 0, nil, err
		}
	}
	s.metrics.batchItems.WithLabelValues("check").Observe(float64(len(emails)))
	listed, err := s.listings(r.Context(), team, emails)
	if err != nil {
		return 0, nil, err
	}
	out := api.CheckResponse{Object: api.ObjectList, Data: make([]api.CheckItem, len(emails))}
	for i, email := range emails {
		out.Data[i] = api.CheckItem{Email: email}
		if l, ok := listed[email]; ok {
			out.Data[i].Listed, out.Data[i].Entry, out.Data[i].ListedBy = true, l.Entry.Wire(""), l.By
		}
	}
	return http.StatusOK, out, nil
}

// lookup finds the team's entry a path segment names: by ID when it parses
// as a UUID, else by address.
func (s *Server) lookup(ctx context.Context, team, ref string) (store.Entry, error) {
	if id, err := api.NormalizeID(ref); err == nil {
		return s.store.Get(ctx, team, id)
	}
	email, err := api.NormalizeEntry(ref)
	if err != nil {
		return store.Entry{}, invalid("%s is neither a suppression ID nor a valid email address: %s.", api.Quote(ref), err)
	}
	return s.store.GetByEmail(ctx, team, email)
}

func (s *Server) getOne(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	e, err := s.lookup(r.Context(), team, r.PathValue("ref"))
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, e.Wire(api.ObjectSuppression), nil
}

func (s *Server) removeOne(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	ref := r.PathValue("ref")
	author, err := s.removal(r, team)
	if err != nil {
		return 0, nil, err
	}
	var removed []store.Entry
	if id, idErr := api.NormalizeID(ref); idErr == nil {
		removed, err = timed(s.metrics, "remove", func() ([]store.Entry, error) {
			return s.store.RemoveIDs(r.Context(), team, author, []string{id})
		})
	} else {
		email, emailErr := api.NormalizeEntry(ref)
		if emailErr != nil {
			return 0, nil, invalid("%s is neither a suppression ID nor a valid email address: %s.", api.Quote(ref), emailErr)
		}
		removed, err = timed(s.metrics, "remove", func() ([]store.Entry, error) {
			return s.store.RemoveEmails(r.Context(), team, author, []string{email})
		})
	}
	if err != nil {
		return 0, nil, complaintRefusal(r, err, func(e store.Entry) string { return api.Quote(e.Email) })
	}
	if len(removed) == 0 {
		return 0, nil, notFound()
	}
	return http.StatusOK, suppression(removed[0], true), nil
}

// timed runs a change of the list and notes how long it took to commit,
// when it did.
func timed(m *Metrics, op string, change func() ([]store.Entry, error)) ([]store.Entry, error) {
	start := time.Now()
	out, err := change()
	if err == nil {
		m.storeWrite.WithLabelValues(op).Observe(time.Since(start).Seconds())
	}
	return out, err
}

// mayKeepIDs refuses entries given their own IDs to a caller without the
// import right (the embedded local list, the person's own database,
// allows it to every key).
func (s *Server) mayKeepIDs(r *http.Request, add []store.NewEntry) error {
	if s.opts.LocalImports || !slices.ContainsFunc(add, func(e store.NewEntry) bool { return e.ID != "" }) {
		return nil
	}
	if c, ok := callerOf(r); ok && c.mayImport() {
		return nil
	}
	return newProblem(http.StatusForbidden, api.ErrRestrictedAPIKey,
		"This key may not keep entries' own IDs and creation times: that takes a key with the import right (shush keys create --import); leave `id` and `created_at` out for new ones.")
}
