package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Origin says how an address came onto the list.
type Origin string

// The origins the contract names.
const (
	OriginBounce    Origin = "bounce"
	OriginComplaint Origin = "complaint"
	OriginManual    Origin = "manual"
)

// ParseOrigin accepts one of the contract's origins.
func ParseOrigin(s string) (Origin, error) {
	switch o := Origin(s); o {
	case OriginBounce, OriginComplaint, OriginManual:
		return o, nil
	}
	return "", fmt.Errorf("origin %s is not one of bounce, complaint, manual", Quote(s))
}

// ObjectSuppression and ObjectList are the values of the "object" field.
const (
	ObjectSuppression = "suppression"
	ObjectList        = "list"
)

// BatchAddRequest is the body of POST /suppressions/batch/add: Emails (the
// API spec's form, new entries get origin manual) or, on our service,
// Entries (each with its origin, to restore removed entries as they were).
// Exactly one is set.
type BatchAddRequest struct {
	Emails  []string   `json:"emails,omitempty"`
	Entries []NewEntry `json:"entries,omitempty"`
}

// NewEntry is one item of BatchAddRequest.Entries: an address with the
// origin (and source ID) it should be listed with, and on our service a
// note and an expiry (contract: notes and expiry on an entry). An empty
// Origin means manual.
type NewEntry struct {
	Email     string     `json:"email"`
	Origin    Origin     `json:"origin,omitempty"`
	SourceID  *string    `json:"source_id,omitempty"`
	Note      *string    `json:"note,omitempty"`
	ExpiresAt *Timestamp `json:"expires_at,omitempty"`
	// Evidence is why the entry is listed, as another provider's export
	// or an event said it (contract: evidence on an entry).
	Evidence *Evidence `json:"evidence,omitempty"`
	// ID and CreatedAt keep an entry's own ID and creation time where the
	// key may import them (the import right): a list moved whole keeps
	// what refers to its entries.
	ID        string     `json:"id,omitempty"`
	CreatedAt *Timestamp `json:"created_at,omitempty"`
}

// BatchRemoveRequest is the body of POST /suppressions/batch/remove. Exactly
// one of Emails and IDs is set; the other is left out of the JSON, because
// the service refuses an explicit null.
type BatchRemoveRequest struct {
	Emails []string `json:"emails,omitempty"`
	IDs    []string `json:"ids,omitempty"`
}

// ReferenceHeader carries the reference of a change (a ticket number or
// URL) on every request that changes the list; our service keeps it with
// the change. See ValidReference.
const ReferenceHeader = "Shush-Reference"

// MaxReference is the longest reference, in characters.
const MaxReference = 200

// ValidReference reports why ref cannot be sent as ReferenceHeader: it
// must be 1-200 printable characters (no control or format characters).
func ValidReference(ref string) error {
	n, ok := printable(ref)
	if !ok {
		return fmt.Errorf("the reference %s holds a character that is not printable", Quote(ref))
	}
	switch {
	case n == 0:
		return errors.New("the reference is empty")
	case n > MaxReference:
		return fmt.Errorf("the reference is %d characters long; at most %d are allowed", n, MaxReference)
	}
	return nil
}

// printable counts the characters of s and reports whether each is
// printable (a space too; no control or format character, no invalid
// byte).
func printable(s string) (n int, ok bool) {
	for _, r := range s {
		n++
		if r == utf8.RuneError || !unicode.IsPrint(r) && r != ' ' {
			return n, false
		}
	}
	return n, true
}

// AddRequest is the body of POST /suppressions; Note and ExpiresAt are
// our service's extensions.
type AddRequest struct {
	Email     string     `json:"email"`
	Note      *string    `json:"note,omitempty"`
	ExpiresAt *Timestamp `json:"expires_at,omitempty"`
}

// MaxNote is the longest note of an entry, in characters.
const MaxNote = 500

// ValidNote reports why note cannot be an entry's note: it must be at
// most MaxNote printable characters (no control or format characters).
func ValidNote(note string) error {
	n, ok := printable(note)
	if !ok {
		return fmt.Errorf("the note %s holds a character that is not printable", Quote(note))
	}
	if n > MaxNote {
		return fmt.Errorf("the note is %d characters long; at most %d are allowed", n, MaxNote)
	}
	return nil
}

// Suppression is an item of a batch response, and the answer of a single
// add or delete. Deleted is only present (and true) on removals.
//
// Email and Created are extensions of our service: the normalized address
// the item is for, and (on batch add) whether this request made the entry.
// A service that does not send them leaves Email empty and Created nil;
// then neither the order of the items nor the ID says which address is
// which, or whether it is new.
//
// Note and ExpiresAt, on our service's batch add, are the entry's note and
// expiry as the list holds them after the request (a listed entry keeps
// its note and a later expiry); absent elsewhere.
type Suppression struct {
	Object    string     `json:"object"`
	ID        string     `json:"id"`
	Email     string     `json:"email,omitempty"`
	Created   *bool      `json:"created,omitempty"`
	Deleted   bool       `json:"deleted,omitempty"`
	Note      *string    `json:"note,omitempty"`
	ExpiresAt *Timestamp `json:"expires_at,omitempty"`
	// ListedBy, on shush's own batch add, is the domain entry that lists
	// the address too (the address gets its own entry all the same, which
	// outlives the domain entry's expiry).
	ListedBy string `json:"listed_by,omitempty"`
	// Erased says an add's item is an erased entry (docs/erasure.md):
	// the address was already listed, as its keyed hash.
	Erased bool `json:"erased,omitempty"`
}

// BatchResponse is the envelope of both batch endpoints.
type BatchResponse struct {
	Data []Suppression `json:"data"`
}

// Entry is a suppression record as GET /suppressions and
// GET /suppressions/{id-or-email} show it. Object is empty on list items.
//
// Note and ExpiresAt are our service's extensions (contract: notes and
// expiry on an entry): null when the entry has none, and absent from
// another service's answers.
type Entry struct {
	Object    string     `json:"object,omitempty"`
	ID        string     `json:"id"`
	Email     string     `json:"email"`
	Origin    Origin     `json:"origin"`
	SourceID  *string    `json:"source_id"`
	CreatedAt Timestamp  `json:"created_at"`
	Note      *string    `json:"note"`
	ExpiresAt *Timestamp `json:"expires_at"`
	// Evidence is why an entry that came from an event is listed
	// (contract: evidence on an entry); null for one made by hand.
	Evidence *Evidence `json:"evidence"`
	// Erased says the entry is an erased entry (docs/erasure.md): it
	// keeps a keyed hash of the address, not the address. A look-up by
	// address (check, add) answers it with the address asked for; the
	// list and the export show its marker, erased:v<N>:<hash>.
	Erased bool `json:"erased,omitempty"`
	// ErasedDomain is the domain an erased entry keeps in clear when its
	// team's policy keeps it (team rule erasure_keeps_domain); absent
	// otherwise.
	ErasedDomain string `json:"erased_domain,omitempty"`
}

// CheckRequest is the body of POST /suppressions/batch/check.
type CheckRequest struct {
	Emails []string `json:"emails"`
}

// MaxCheck is the most addresses one check request may carry.
const MaxCheck = 1000

// CheckItem is one address of a check's answer: whether it is listed,
// and its entry when it is.
type CheckItem struct {
	Email  string
	Listed bool
	// Entry is the listed entry (its Email is the item's, unless a
	// domain entry lists the address: then it is the domain entry's).
	Entry Entry
	// ListedBy, on shush's own service, is the domain entry ("@d" or
	// "*.d") that lists the address when it has no entry of its own; ""
	// otherwise.
	ListedBy string
}

// MarshalJSON writes {"email","listed":false}, or the entry's fields
// after "email" and "listed":true (AppendJSON).
func (c CheckItem) MarshalJSON() ([]byte, error) {
	return c.AppendJSON(nil)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (c *CheckItem) UnmarshalJSON(b []byte) error {
	var v struct {
		Entry
		Listed   bool   `json:"listed"`
		ListedBy string `json:"listed_by"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = CheckItem{Email: v.Email, Listed: v.Listed}
	if v.Listed {
		c.Entry = v.Entry
		c.Entry.Object = ""
		if v.ListedBy != "" {
			c.ListedBy = v.ListedBy
			c.Entry.Email = v.ListedBy
		}
	}
	return nil
}

// CheckResponse is the answer of POST /suppressions/batch/check: one
// item per distinct address, in request order.
type CheckResponse struct {
	Object string      `json:"object"`
	Data   []CheckItem `json:"data"`
}

// ListResponse is the answer of GET /suppressions.
type ListResponse struct {
	Object  string  `json:"object"`
	HasMore bool    `json:"has_more"`
	Data    []Entry `json:"data"`
	// NextCursor (our extension) is set on a page that stopped at its
	// bound before it was full (a prefix search over many entries): the
	// position its read reached, which the next page in the same
	// direction gives as its `after` (or `before`). The page holds every
	// match up to there: fewer than `limit`, perhaps none.
	NextCursor string `json:"next_cursor,omitempty"`
}

// Next is the cursor of the page after p in its direction: NextCursor
// when the page stopped at its bound, else the ID of its last entry
// (after) or first (before); "" when there is none.
func (p ListResponse) Next(before bool) string {
	switch {
	case p.NextCursor != "":
		return p.NextCursor
	case len(p.Data) == 0:
		return ""
	case before:
		return p.Data[0].ID
	}
	return p.Data[len(p.Data)-1].ID
}

// Health is the answer of GET /healthz.
type Health struct {
	Status string `json:"status"`
}

// Timestamp is a point in time on the wire: RFC 3339 in UTC with
// milliseconds when written. When read it also accepts the PostgreSQL text
// form ("2026-10-06 23:47:56.678+00") that some services send, and keeps
// the text as it came: a Timestamp that was read is written back exactly
// so (the service's data, not our rendering of it).
type Timestamp struct {
	time.Time
	raw string
}

// TimestampLayout is how the service writes times.
const TimestampLayout = "2006-01-02T15:04:05.000Z07:00"

// MarshalJSON writes the time as RFC 3339 UTC with milliseconds.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	if t.raw != "" {
		return json.Marshal(t.raw)
	}
	return []byte(`"` + t.UTC().Format(TimestampLayout) + `"`), nil
}

// UnmarshalJSON reads RFC 3339 or PostgreSQL's text form.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a time: %w", err)
	}
	return t.parse(s)
}

// parse reads a time's text as UnmarshalJSON does.
func (t *Timestamp) parse(s string) error {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07", "2006-01-02 15:04:05.999999999Z07:00"} {
		if v, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			t.Time, t.raw = v.UTC(), s
			return nil
		}
	}
	return fmt.Errorf("%s is not a time", Quote(s))
}

// EraseRequest is the body of POST /suppressions/erase: 1 to MaxBatch
// addresses whose person asked to be forgotten (docs/erasure.md).
type EraseRequest struct {
	Emails []string `json:"emails"`
}

// EraseResponse is its answer: one item per distinct normalized address,
// in request order.
type EraseResponse struct {
	Object string       `json:"object"`
	Data   []ErasedItem `json:"data"`
}

// ErasedItem is what an erasure did to one address. Email is the address
// as the request gave it (normalized), which the service keeps no more;
// Erased is what stands for it now on the list, in the trail and in the
// stored webhook payloads ("erased:v<N>:<hash>"), so that a client can
// rewrite its own records of the address the same way. Listed says the
// address was on the list before (false: the erasure listed it, so that it
// stays blocked); Already that it was erased before.
type ErasedItem struct {
	Object  string `json:"object"`
	ID      string `json:"id"`
	Email   string `json:"email"`
	Erased  string `json:"erased"`
	Listed  bool   `json:"listed"`
	Already bool   `json:"already"`
}
