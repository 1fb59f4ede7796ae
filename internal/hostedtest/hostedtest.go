// Package hostedtest is a test double of the hosted suppression service
// (not ours): it answers the batch endpoints with bare UUIDv4 IDs in an
// order it does not promise, stamps entries with its own clock, and can be
// made to misbehave the ways the hosted service may (fewer IDs than
// addresses, long Retry-After, dropped connections). Tests run shush's
// client against it over real HTTP to check that nothing is paired by
// position, read from an ID's bits or judged by the local clock.
package hostedtest

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// Order is how a batch add answer orders its items.
type Order int

// The orders the double answers in.
const (
	RequestOrder Order = iota // as sent (what the hosted service happens to do today)
	NewestFirst               // entries made by the request first
	Shuffled                  // no order at all
)

// Entry is one suppression the double holds.
type Entry struct {
	ID        string    `json:"id"`
	Email     string    `json:"email"`
	Origin    string    `json:"origin"`
	SourceID  *string   `json:"source_id"`
	CreatedAt time.Time `json:"-"`
	seq       int64
	gone      bool // taken off the list (it stays in order until compacted)
}

// Service is the double. Set its knobs before or between requests.
type Service struct {
	URL string

	mu      sync.Mutex
	byEmail map[string]*Entry
	byID    map[string]*Entry
	// entries holds the entries oldest first (by seq), those taken off
	// too until there are as many of them as listed ones.
	entries []*Entry
	gone    int
	seq     int64
	order   Order
	offset  time.Duration // the service's clock minus ours
	dropNew int           // the next batch add leaves this many new addresses out (and does not add them)
	retry   []time.Duration
	hangup  int // the next batch requests to drop without an answer
	rng     *rand.Rand
	// rate is how many requests a window of a second allows (0: no
	// limit), and window and used the current window's start and count.
	rate   int
	window time.Time
	used   int
	// afterAdd lists addresses as another client would, right after the
	// next batch add is answered (nil: none).
	afterAdd []string
	// onAdd runs once, after the next batch add is applied and before
	// its answer reaches the client, without the double's lock (nil:
	// nothing).
	onAdd func()

	// Requests counts requests by "METHOD /path-pattern".
	Requests sync.Map
	// Refused counts the requests answered 429 for the rate limit.
	Refused atomic.Int64
	total   atomic.Int64
}

// Start runs the double over real HTTP until the test ends.
func Start(t testing.TB) *Service {
	s := &Service{byEmail: map[string]*Entry{}, byID: map[string]*Entry{}, rng: rand.New(rand.NewPCG(1, 2))}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// SetOrder sets how batch add answers are ordered.
func (s *Service) SetOrder(o Order) { s.mu.Lock(); s.order = o; s.mu.Unlock() }

// SetClockOffset sets how far the service's clock is ahead of ours.
func (s *Service) SetClockOffset(d time.Duration) { s.mu.Lock(); s.offset = d; s.mu.Unlock() }

// DropNewFromNextAdd makes the next batch add silently skip n of its new
// addresses: fewer IDs than addresses, and the skipped ones not listed.
func (s *Service) DropNewFromNextAdd(n int) { s.mu.Lock(); s.dropNew = n; s.mu.Unlock() }

// RetryAfter makes the next batch requests answer 429 with these delays.
func (s *Service) RetryAfter(d ...time.Duration) {
	s.mu.Lock()
	s.retry = append(s.retry, d...)
	s.mu.Unlock()
}

// SetRate limits the double to n requests a second per team, as the hosted
// service does (its recordings show "ratelimit-policy: 2;w=1"): a fixed
// window of one second, every answer carries the ratelimit-* headers, and
// a request over the limit is answered 429 with Retry-After. 0 lifts the
// limit.
func (s *Service) SetRate(n int) { s.mu.Lock(); s.rate = n; s.mu.Unlock() }

// ListAfterNextAdd makes another client list these addresses just after
// the next batch add is answered, before the adding client can read the
// list again.
func (s *Service) ListAfterNextAdd(emails ...string) {
	s.mu.Lock()
	s.afterAdd = append(s.afterAdd, emails...)
	s.mu.Unlock()
}

// OnNextAdd runs fn once, after the next batch add is applied and
// before its answer reaches the client: what other clients do on either
// side while a run is under way. fn may call the double's methods.
func (s *Service) OnNextAdd(fn func()) { s.mu.Lock(); s.onAdd = fn; s.mu.Unlock() }

// Remove takes addresses off the list as another client would.
func (s *Service) Remove(emails ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range emails {
		if x, ok := s.byEmail[e]; ok {
			s.take(x)
		}
	}
}

// take takes an entry off the list. Called with s.mu held.
func (s *Service) take(x *Entry) {
	delete(s.byEmail, x.Email)
	delete(s.byID, x.ID)
	x.gone = true
	if s.gone++; s.gone > len(s.entries)/2 {
		s.entries = slices.DeleteFunc(s.entries, func(e *Entry) bool { return e.gone })
		s.gone = 0
	}
}

// HangUp makes the next n batch requests drop the connection unanswered.
func (s *Service) HangUp(n int) { s.mu.Lock(); s.hangup += n; s.mu.Unlock() }

// Add lists addresses as another client would, now by the service's clock.
func (s *Service) Add(emails ...string) map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for _, e := range emails {
		out[e] = s.add(e).ID
	}
	return out
}

// Truth returns address → ID of every entry the double holds.
func (s *Service) Truth() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]string, len(s.byEmail))
	for e, x := range s.byEmail {
		out[e] = x.ID
	}
	return out
}

// Total is the number of requests answered or dropped so far.
func (s *Service) Total() int64 { return s.total.Load() }

func (s *Service) now() time.Time { return time.Now().Add(s.offset).UTC().Truncate(time.Millisecond) }

func (s *Service) add(email string) *Entry {
	if e, ok := s.byEmail[email]; ok {
		return e
	}
	s.seq++
	e := &Entry{ID: uuid.NewString(), Email: email, Origin: "manual", CreatedAt: s.now(), seq: s.seq}
	s.byEmail[email], s.byID[e.ID] = e, e
	s.entries = append(s.entries, e)
	return e
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request) {
	s.count(r)
	s.mu.Lock()
	w.Header().Set("Date", s.now().Format(http.TimeFormat))
	if s.refused(w, r) {
		return // s.mu is unlocked
	}
	var after func()
	defer func() {
		s.mu.Unlock()
		if after != nil {
			after()
		}
	}()
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/suppressions/batch/add":
		s.batchAdd(w, r)
		for _, e := range s.afterAdd {
			s.add(e)
		}
		s.afterAdd = nil
		after, s.onAdd = s.onAdd, nil
	case r.Method == http.MethodPost && r.URL.Path == "/suppressions/batch/remove":
		s.batchRemove(w, r)
	case r.Method == http.MethodGet && r.URL.Path == "/suppressions":
		s.list(w, r)
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/suppressions/"):
		s.get(w, r)
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"statusCode": 404, "name": "not_found", "message": "Route not found."})
	}
}

// count counts the request, by method and route (Requests).
func (s *Service) count(r *http.Request) {
	s.total.Add(1)
	key := r.Method + " " + r.URL.Path
	if strings.HasPrefix(r.URL.Path, "/suppressions/") && !strings.HasPrefix(r.URL.Path, "/suppressions/batch/") {
		key = r.Method + " /suppressions/{ref}"
	}
	n, _ := s.Requests.LoadOrStore(key, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
}

// refused answers a request the service does not serve: over the rate
// limit, or a batch it was told to hang up on or to ask to retry. Called
// with s.mu held; when it answers (true), it unlocks s.mu.
func (s *Service) refused(w http.ResponseWriter, r *http.Request) bool {
	if !s.allow(w.Header()) {
		s.mu.Unlock()
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"statusCode": 429, "name": "rate_limit_exceeded", "message": "Too many requests."})
		return true
	}
	batch := strings.HasPrefix(r.URL.Path, "/suppressions/batch/")
	if batch && s.hangup > 0 {
		s.hangup--
		s.mu.Unlock()
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
		return true
	}
	if batch && len(s.retry) > 0 {
		d := s.retry[0]
		s.retry = s.retry[1:]
		s.mu.Unlock()
		w.Header().Set("Retry-After", strconv.Itoa(int(d.Seconds())))
		writeJSON(w, http.StatusTooManyRequests, map[string]any{"statusCode": 429, "name": "rate_limit_exceeded", "message": "Too many requests."})
		return true
	}
	return false
}

// get answers GET /suppressions/{ref}: an entry by ID or address.
func (s *Service) get(w http.ResponseWriter, r *http.Request) {
	ref, _ := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/suppressions/"))
	e, ok := s.byID[ref]
	if !ok {
		e, ok = s.byEmail[strings.ToLower(ref)]
	}
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]any{"statusCode": 404, "name": "not_found", "message": "Suppression not found."})
		return
	}
	writeJSON(w, http.StatusOK, entryJSON(e, "suppression"))
}

// allow counts a request against the rate limit and writes the
// ratelimit-* headers; false when the window's allowance is spent (the
// header then carries Retry-After). Called with s.mu held.
func (s *Service) allow(h http.Header) bool {
	if s.rate <= 0 {
		return true
	}
	now := time.Now()
	if now.Sub(s.window) >= time.Second {
		s.window, s.used = now, 0
	}
	reset := max(int(math.Ceil((time.Second - now.Sub(s.window)).Seconds())), 1)
	h.Set("ratelimit-limit", strconv.Itoa(s.rate))
	h.Set("ratelimit-policy", strconv.Itoa(s.rate)+";w=1")
	h.Set("ratelimit-reset", strconv.Itoa(reset))
	if s.used >= s.rate {
		h.Set("ratelimit-remaining", "0")
		h.Set("Retry-After", strconv.Itoa(reset))
		s.Refused.Add(1)
		return false
	}
	s.used++
	h.Set("ratelimit-remaining", strconv.Itoa(s.rate-s.used))
	return true
}

type item struct {
	Object  string `json:"object"`
	ID      string `json:"id"`
	Deleted bool   `json:"deleted,omitempty"`
}

func (s *Service) batchAdd(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Emails []string `json:"emails"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Emails) == 0 || len(body.Emails) > 100 {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"statusCode": 422, "name": "validation_error", "message": "Send 1 to 100 emails."})
		return
	}
	var out, made []item
	seen := map[string]bool{}
	for _, raw := range body.Emails {
		e := strings.ToLower(strings.TrimSpace(raw))
		if seen[e] {
			continue
		}
		seen[e] = true
		if _, listed := s.byEmail[e]; !listed && s.dropNew > 0 {
			s.dropNew--
			continue
		}
		_, listed := s.byEmail[e]
		x := s.add(e)
		it := item{Object: "suppression", ID: x.ID}
		if listed {
			out = append(out, it)
		} else {
			made = append(made, it)
		}
	}
	switch s.order {
	case NewestFirst:
		slices.Reverse(made)
		out = append(made, out...)
	case Shuffled:
		out = append(out, made...)
		s.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	default:
		// Request order: rebuild it from the addresses.
		order := map[string]int{}
		for i, raw := range body.Emails {
			if _, ok := order[strings.ToLower(strings.TrimSpace(raw))]; !ok {
				order[strings.ToLower(strings.TrimSpace(raw))] = i
			}
		}
		out = append(out, made...)
		slices.SortStableFunc(out, func(a, b item) int { return order[s.byID[a.ID].Email] - order[s.byID[b.ID].Email] })
	}
	writeJSON(w, http.StatusCreated, map[string]any{"data": out})
}

func (s *Service) batchRemove(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Emails []string `json:"emails"`
		IDs    []string `json:"ids"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"statusCode": 400, "name": "validation_error", "message": "Bad body."})
		return
	}
	out := []item{}
	take := func(e *Entry) {
		s.take(e)
		out = append(out, item{Object: "suppression", ID: e.ID, Deleted: true})
	}
	for _, raw := range body.Emails {
		if e, ok := s.byEmail[strings.ToLower(strings.TrimSpace(raw))]; ok {
			take(e)
		}
	}
	for _, id := range body.IDs {
		if e, ok := s.byID[id]; ok {
			take(e)
		}
	}
	s.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	writeJSON(w, http.StatusOK, map[string]any{"data": out})
}

// list answers newest first, paged with after=ID.
func (s *Service) list(w http.ResponseWriter, r *http.Request) {
	limit := 20
	if v, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && v >= 1 && v <= 100 {
		limit = v
	}
	// i is the index in entries of the newest entry the page may show.
	i := len(s.entries) - 1
	if after := r.URL.Query().Get("after"); after != "" {
		i = -1 // an unknown cursor: nothing after it
		if e, ok := s.byID[after]; ok {
			i, _ = slices.BinarySearchFunc(s.entries, e.seq, func(x *Entry, seq int64) int { return int(x.seq - seq) })
			i--
		}
	}
	data := make([]map[string]any, 0, limit)
	for ; i >= 0 && len(data) < limit; i-- {
		if e := s.entries[i]; !e.gone {
			data = append(data, entryJSON(e, ""))
		}
	}
	more := false
	for ; i >= 0 && !more; i-- {
		more = !s.entries[i].gone
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "has_more": more, "data": data})
}

// PostgresText is how the hosted service writes created_at (its docs'
// examples: "2026-10-06 23:47:56.678+00"), not RFC 3339.
const PostgresText = "2006-01-02 15:04:05.000-07"

func entryJSON(e *Entry, object string) map[string]any {
	m := map[string]any{"id": e.ID, "email": e.Email, "origin": e.Origin, "source_id": e.SourceID,
		"created_at": e.CreatedAt.Format(PostgresText)}
	if object != "" {
		m["object"] = object
	}
	return m
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
