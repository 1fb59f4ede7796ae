package sqlstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/shushlist/shush/server/store"
)

// This file holds the erasure (store.Eraser) and the one place where
// the list's reads and adds match an erased address: by hashing it with
// each version of the team's secret (erasedMatch).

// ErasureReads are the reads of the teams' erasure secrets.
type ErasureReads interface {
	// ErasureSecrets reads the team's secrets, oldest version first.
	ErasureSecrets(ctx context.Context, team string) ([]store.ErasureSecret, error)
	// ErasedCount counts the team's entries whose Email begins with
	// prefix (an erased entry's marker up to its hash).
	ErasedCount(ctx context.Context, team, prefix string) (int64, error)
}

// ErasureWrites are the statements of an erasure.
type ErasureWrites interface {
	// TxErasureSecrets is ErasureSecrets inside the change.
	TxErasureSecrets(ctx context.Context, team string) ([]store.ErasureSecret, error)
	// InsertErasureSecret adds a version of the team's secret unless the
	// version is taken; it says how many rows it inserted.
	InsertErasureSecret(ctx context.Context, team string, s store.ErasureSecret) (int64, error)
	// ListedByEmail reads the team's entries of these addresses inside
	// the change, in any order.
	ListedByEmail(ctx context.Context, team string, emails []string) ([]store.Entry, error)
	// EraseEntry makes the team's entry of email the erased entry of
	// marker (its Email; no note, source ID nor evidence; domain, when not
	// "", kept as its ErasedDomain) and returns it; sql.ErrNoRows when the
	// address is not listed.
	EraseEntry(ctx context.Context, team, email, marker, domain string) (store.Entry, error)
	// KeepErasedDomain sets the ErasedDomain of the team's entry of
	// marker (an erased entry the erasure listed).
	KeepErasedDomain(ctx context.Context, team, marker, domain string) error
	// EraseRows makes every other row of the team that names email in a
	// column of its own (the trail's, the intake's events and review
	// queue) name marker, without the note, source ID and evidence that
	// went with it, and counts them.
	EraseRows(ctx context.Context, team, email, marker string) (int64, error)
	// Texts reads the team's stored bodies (webhook payloads, queued or
	// fanned out, and the answers of delivery attempts) whose text holds
	// needle (lowercase).
	Texts(ctx context.Context, team, needle string) ([]Text, error)
	// SetText writes a body Texts read back, changed.
	SetText(ctx context.Context, t Text) error
}

// Text is one stored body: the table and row it is read from.
type Text struct {
	Table string
	ID    string
	Body  []byte
}

// Settler is implemented by drivers that can make a change's old bytes
// leave their files at once (SQLite: a checkpoint that truncates the
// write-ahead log). Erase calls it after its change commits.
type Settler interface {
	Settle(ctx context.Context) error
}

var _ store.Eraser = (*Core)(nil)

// Erase replaces each address by its marker; see store.Eraser.
func (c *Core) Erase(ctx context.Context, team string, author store.Change, emails []string) ([]store.Erased, error) {
	if len(emails) == 0 {
		return []store.Erased{}, nil
	}
	for _, e := range emails {
		if store.IsErased(e) || e == "" {
			return nil, fmt.Errorf("erase: %q is not an address", e)
		}
	}
	var out []store.Erased
	err := c.d.TeamChange(ctx, team, func(ctx context.Context, tx Tx) error {
		var err error
		out, err = c.eraseIn(ctx, tx, team, author, emails)
		return err
	})
	if err != nil {
		return nil, c.fail("erase from the list", err)
	}
	if s, ok := c.d.(Settler); ok {
		if err := s.Settle(ctx); err != nil {
			return out, c.fail("erase from the list's files", err)
		}
	}
	return out, nil
}

// eraseIn is Erase inside its change (which may run it more than once).
func (c *Core) eraseIn(ctx context.Context, tx Tx, team string, author store.Change, emails []string) ([]store.Erased, error) {
	// The head is held before an entry is read or rewritten, as an add
	// holds it before it reads the erased entries (addIn): an add of one
	// of these addresses in another process waits for this change, and
	// then finds the address erased.
	if _, err := holdTrail(ctx, tx, team, true); err != nil {
		return nil, err
	}
	secrets, err := teamSecrets(ctx, tx, team)
	if err != nil {
		return nil, err
	}
	cur := secrets[len(secrets)-1]
	rules, err := tx.TeamRules(ctx, team)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	domainOf := func(email string) string {
		if !rules.ErasureKeepsDomain {
			return ""
		}
		return email[strings.LastIndexByte(email, '@')+1:]
	}
	before, err := erasedMatch(ctx, secrets, emails, func(markers []string) ([]store.Entry, error) {
		return tx.ListedByEmail(ctx, team, markers)
	})
	if err != nil {
		return nil, err
	}
	out := make([]store.Erased, len(emails))
	var unlisted []store.NewEntry
	var unlistedAt []int
	for i, email := range emails {
		r := store.Erased{Email: email}
		if e, ok := before[email]; ok {
			r.Entry, r.Marker, r.Listed, r.Already = e, e.Email, true, true
		} else {
			r.Marker = store.ErasedMarker(cur, email)
			e, err := tx.EraseEntry(ctx, team, email, r.Marker, domainOf(email))
			switch {
			case errors.Is(err, sql.ErrNoRows):
				unlisted = append(unlisted, store.NewEntry{Email: r.Marker})
				unlistedAt = append(unlistedAt, i)
			case err != nil:
				return nil, err
			default:
				r.Entry, r.Listed = e, true
			}
		}
		if r.Rewritten, err = eraseTraces(ctx, tx, team, email, r.Marker); err != nil {
			return nil, err
		}
		out[i] = r
	}
	if len(unlisted) > 0 {
		a := newAdding(team, author, unlisted)
		if err := c.addIn(ctx, tx, a); err != nil {
			return nil, err
		}
		for j, e := range a.result() {
			if d := domainOf(out[unlistedAt[j]].Email); d != "" {
				if err := tx.KeepErasedDomain(ctx, team, e.Email, d); err != nil {
					return nil, err
				}
				e.ErasedDomain = d
			}
			out[unlistedAt[j]].Entry = e
		}
	}
	if c.noTrail {
		return out, nil
	}
	var fresh []store.Entry
	for _, r := range out {
		if !r.Already {
			fresh = append(fresh, r.Entry)
		}
	}
	if len(fresh) == 0 {
		return out, nil
	}
	m, err := holdTrail(ctx, tx, team, true)
	if err != nil {
		return nil, err
	}
	if err := writeAudit(ctx, tx, m, team, store.AuditErased, now(), author, fresh, nil); err != nil {
		return nil, err
	}
	return out, m.save(ctx, tx)
}

// teamSecrets reads the team's secrets inside a change, making its first
// when it has none.
func teamSecrets(ctx context.Context, tx Tx, team string) ([]store.ErasureSecret, error) {
	secrets, err := tx.TxErasureSecrets(ctx, team)
	if err != nil || len(secrets) > 0 {
		return secrets, err
	}
	if _, err := newSecret(ctx, tx, team, 1); err != nil {
		return nil, err
	}
	secrets, err = tx.TxErasureSecrets(ctx, team)
	if err == nil && len(secrets) == 0 {
		err = fmt.Errorf("the erasure secret of team %q was not kept", team)
	}
	return secrets, err
}

// newSecret writes a new random secret as the team's version v.
func newSecret(ctx context.Context, tx Tx, team string, v int) (int64, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return 0, err
	}
	return tx.InsertErasureSecret(ctx, team, store.ErasureSecret{Version: v, Secret: b, CreatedAt: now()})
}

// RotateErasureSecret adds a version of the team's secret; see
// store.Eraser. The old versions stay: the entries hashed with them can
// be matched only by them.
func (c *Core) RotateErasureSecret(ctx context.Context, team string) (int, error) {
	v := 0
	err := c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		secrets, err := tx.TxErasureSecrets(ctx, team)
		if err != nil {
			return err
		}
		v = 1
		if len(secrets) > 0 {
			v = secrets[len(secrets)-1].Version + 1
		}
		n, err := newSecret(ctx, tx, team, v)
		if err == nil && n == 0 {
			err = errors.New("another rotation took the same version; try again")
		}
		return err
	})
	if err != nil {
		return 0, c.fail("rotate the erasure secret", err)
	}
	return v, nil
}

// ErasureVersions returns the versions of the team's secret, oldest
// first, with the entries of each; see store.Eraser.
func (c *Core) ErasureVersions(ctx context.Context, team string) ([]store.ErasureVersion, error) {
	secrets, err := c.d.ErasureSecrets(ctx, team)
	if err != nil {
		return nil, c.readErr("read the erasure secrets", err)
	}
	out := make([]store.ErasureVersion, len(secrets))
	for i, s := range secrets {
		n, err := c.d.ErasedCount(ctx, team, fmt.Sprintf("%sv%d:", store.ErasedPrefix, s.Version))
		if err != nil {
			return nil, c.readErr("count the erased entries", err)
		}
		out[i] = store.ErasureVersion{Version: s.Version, CreatedAt: s.CreatedAt, Entries: n}
	}
	return out, nil
}

// erasedMatch finds the erased entries of these addresses: it hashes
// each with every version of the team's secret and reads the entries of
// those markers with read. The entries it returns, by address, carry
// their marker as Email. Addresses that are markers already are left
// out.
func erasedMatch(ctx context.Context, secrets []store.ErasureSecret, emails []string, read func([]string) ([]store.Entry, error)) (map[string]store.Entry, error) {
	if len(secrets) == 0 || len(emails) == 0 {
		return nil, nil
	}
	of := make(map[string]string, len(emails)*len(secrets))
	markers := make([]string, 0, len(emails)*len(secrets))
	for _, e := range emails {
		if store.IsErased(e) {
			continue
		}
		for _, s := range secrets {
			m := store.ErasedMarker(s, e)
			of[m] = e
			markers = append(markers, m)
		}
	}
	if len(markers) == 0 {
		return nil, nil
	}
	got, err := read(markers)
	if err != nil {
		return nil, err
	}
	out := make(map[string]store.Entry, len(got))
	for _, e := range got {
		if email, ok := of[e.Email]; ok {
			out[email] = e
		}
	}
	return out, nil
}

// asErased is an erased entry as a look-up by its address answers it:
// with the address asked for (the caller has it) and Erased set.
func asErased(e store.Entry, email string) store.Entry {
	e.Erased, e.Email = e.Email, email
	return e
}

// checkErased adds to found the erased entries of the addresses not in
// it: Check's part of the matching.
func (c *Core) checkErased(ctx context.Context, team string, emails []string, found []store.Entry) ([]store.Entry, error) {
	secrets, err := c.d.ErasureSecrets(ctx, team)
	if err != nil {
		return found, err
	}
	return c.matchErased(ctx, team, emails, found, secrets)
}

// matchErased is checkErased with the team's secrets read.
func (c *Core) matchErased(ctx context.Context, team string, emails []string, found []store.Entry, secrets []store.ErasureSecret) ([]store.Entry, error) {
	if len(secrets) == 0 {
		return found, nil
	}
	have := make(map[string]bool, len(found))
	for _, e := range found {
		have[e.Email] = true
	}
	var rest []string
	for _, e := range emails {
		if !have[e] {
			rest = append(rest, e)
		}
	}
	by, err := erasedMatch(ctx, secrets, rest, func(m []string) ([]store.Entry, error) {
		return c.d.EntriesByEmail(ctx, team, m)
	})
	for _, email := range rest {
		if e, ok := by[email]; ok {
			found = append(found, asErased(e, email))
		}
	}
	return found, err
}

// addErased fills a's listed entries of the addresses that are erased
// entries: an add of an erased address is answered "already listed" with
// its erased entry, and changes nothing of it (no note, evidence nor
// expiry is given back to it).
func addErased(ctx context.Context, tx Tx, a *adding) error {
	secrets, err := tx.TxErasureSecrets(ctx, a.team)
	if err != nil || len(secrets) == 0 {
		return err
	}
	emails := make([]string, len(a.rows))
	for i, r := range a.rows {
		emails[i] = r.Email
	}
	by, err := erasedMatch(ctx, secrets, emails, func(m []string) ([]store.Entry, error) {
		return tx.ListedByEmail(ctx, a.team, m)
	})
	if err != nil {
		return err
	}
	for email, e := range by {
		a.listed[a.index[email]] = asErased(e, email)
	}
	return nil
}

// eraseTraces makes the rows of the team that name email name marker:
// those with a column of their own (EraseRows), and the stored bodies
// that hold it anywhere in their text (rewritten by scrub).
func eraseTraces(ctx context.Context, tx Tx, team, email, marker string) (int64, error) {
	n, err := tx.EraseRows(ctx, team, email, marker)
	if err != nil {
		return 0, err
	}
	needles := []string{asciiLower(email)}
	if esc := jsonEscaped(email); esc != email {
		needles = append(needles, asciiLower(esc))
	}
	// A body may hold both forms: it is read for each, rewritten once.
	seen := map[[2]string]bool{}
	var texts []Text
	for _, needle := range needles {
		got, err := tx.Texts(ctx, team, needle)
		if err != nil {
			return 0, err
		}
		for _, t := range got {
			if k := [2]string{t.Table, t.ID}; !seen[k] {
				seen[k] = true
				texts = append(texts, t)
			}
		}
	}
	for _, t := range texts {
		t.Body = Scrub(t.Body, email, marker)
		if err := tx.SetText(ctx, t); err != nil {
			return 0, err
		}
		n++
	}
	return n, nil
}

// Scrub rewrites a stored body that names email: in a JSON body, every
// object whose "email" is the address gets the marker instead and loses
// its note, source ID and evidence; then every mention of the address
// left, in any case, plain or as JSON escapes it, becomes the marker.
func Scrub(body []byte, email, marker string) []byte {
	var v any
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	if d.Decode(&v) == nil && !d.More() {
		v = scrubValue(v, email, marker)
		if b, err := json.Marshal(v); err == nil {
			body = b
		}
	}
	body = replaceFold(body, email, marker)
	if esc := jsonEscaped(email); esc != email {
		body = replaceFold(body, esc, marker)
	}
	return body
}

func scrubValue(v any, email, marker string) any {
	switch v := v.(type) {
	case map[string]any:
		if s, ok := v["email"].(string); ok && strings.EqualFold(s, email) {
			v["email"] = marker
			for _, k := range []string{"note", "source_id", "evidence"} {
				if _, ok := v[k]; ok {
					v[k] = nil
				}
			}
		}
		for k, x := range v {
			v[k] = scrubValue(x, email, marker)
		}
	case []any:
		for i, x := range v {
			v[i] = scrubValue(x, email, marker)
		}
	case string:
		return string(replaceFold([]byte(v), email, marker))
	}
	return v
}

// replaceFold replaces every occurrence of old in b, in any ASCII case,
// by repl.
func replaceFold(b []byte, old, repl string) []byte {
	if old == "" {
		return b
	}
	lower, needle := []byte(asciiLower(string(b))), []byte(asciiLower(old))
	if !bytes.Contains(lower, needle) {
		return b
	}
	var out []byte
	for {
		i := bytes.Index(lower, needle)
		if i < 0 {
			return append(out, b...)
		}
		out = append(append(out, b[:i]...), repl...)
		b, lower = b[i+len(needle):], lower[i+len(needle):]
	}
}

// asciiLower lowercases ASCII letters only, so that byte offsets keep.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// jsonEscaped is the address as encoding/json writes it inside a string
// (with <, > and & escaped).
func jsonEscaped(s string) string {
	b, err := json.Marshal(s)
	if err != nil || len(b) < 2 {
		return s
	}
	return string(b[1 : len(b)-1])
}

// PruneIntakeEvents deletes the events the intake took in before before,
// of every team, in changes of pruneChunk rows, and counts them: a replay
// of an event older than the cut is taken in again, and temporary failures
// older than it no longer count (a cut older than the teams' windows
// changes no count). See store.IntakePruner.
func (c *Core) PruneIntakeEvents(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := c.d.Change(ctx, func(ctx context.Context, tx Tx) (err error) {
			n, err = tx.PruneIntakeEvents(ctx, before.UTC(), pruneChunk)
			return err
		})
		if err != nil {
			return total, c.fail("prune the intake's events", err)
		}
		total += n
		if n < pruneChunk {
			return total, nil
		}
	}
}

// eraseIncoming makes the intake's events of erased addresses name their
// markers before anything of them is kept (the claimed event, a count, a
// review item, the entry's evidence): an event for an erased address
// stays blocked by its entry and leaves no trace of the address. The
// events given are not changed; the list returned is.
func eraseIncoming(ctx context.Context, tx Tx, team string, events []store.IntakeEvent) ([]store.IntakeEvent, error) {
	secrets, err := tx.TxErasureSecrets(ctx, team)
	if err != nil || len(secrets) == 0 {
		return events, err
	}
	emails := make([]string, len(events))
	for i, e := range events {
		emails[i] = e.Email
	}
	by, err := erasedMatch(ctx, secrets, emails, func(m []string) ([]store.Entry, error) {
		return tx.ListedByEmail(ctx, team, m)
	})
	if err != nil || len(by) == 0 {
		return events, err
	}
	out := slices.Clone(events)
	for i, e := range out {
		entry, ok := by[e.Email]
		if !ok {
			continue
		}
		marker := entry.Email
		ev := e.Evidence
		for _, f := range []*string{&ev.EventID, &ev.MessageID, &ev.Status, &ev.Diagnostic, &ev.ReportingMTA} {
			*f = string(replaceFold([]byte(*f), e.Email, marker))
		}
		out[i].Evidence, out[i].Note = ev, ""
		out[i].Reason = string(replaceFold([]byte(e.Reason), e.Email, marker))
		out[i].Email = marker
	}
	return out, nil
}
