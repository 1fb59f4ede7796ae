package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Row is one row a dialect read: database/sql's rows and pgx's both scan
// this way. The Scan functions below read the store's records from rows
// whose columns a dialect selects in the order each names; the dialect
// decides how (text IDs, NULLs), and the types below read the two
// encodings that differ.
type Row interface{ Scan(dest ...any) error }

// ScanAlso is r whose Scan fills extra after the destinations it is
// given: a dialect's statement that returns an entry's columns and then
// columns of its own (a deleted row's change) is read by ScanEntry.
func ScanAlso(r Row, extra ...any) Row { return alsoRow{r, extra} }

type alsoRow struct {
	r     Row
	extra []any
}

func (a alsoRow) Scan(dest ...any) error { return a.r.Scan(append(dest, a.extra...)...) }

// Time is a time column: Unix milliseconds (SQLite) or a time (a
// dialect's driver may fill it directly); NULL is the zero time. It is
// always UTC.
type Time struct{ time.Time }

// Scan reads the column; see database/sql.Scanner.
func (t *Time) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		t.Time = time.Time{}
	case int64:
		t.Time = time.UnixMilli(v).UTC()
	case time.Time:
		t.Time = v.UTC()
	default:
		return fmt.Errorf("a time column holds %T", src)
	}
	return nil
}

// Strings is a column of a list of strings: JSON text (SQLite), or a
// list a dialect's driver fills directly.
type Strings []string

// Scan reads the column; see database/sql.Scanner.
func (s *Strings) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return json.Unmarshal([]byte(v), (*[]string)(s))
	case []byte:
		return json.Unmarshal(v, (*[]string)(s))
	}
	return fmt.Errorf("a list column holds %T", src)
}

// EntryColumns are the columns ScanEntry reads, in its order.
const EntryColumns = "id, email, origin, source_id, created_at, note, expires_at, evidence, erased_domain"

// ScanEntry reads id, email, origin, source_id, created_at, note,
// expires_at, evidence, erased_domain (EntryColumns).
func ScanEntry(r Row) (store.Entry, error) {
	var (
		e         store.Entry
		origin    string
		note      *string
		at, until Time
		ev        EvidenceColumn
		domain    *string
	)
	if err := r.Scan(&e.ID, &e.Email, &origin, &e.SourceID, &at, &note, &until, &ev, &domain); err != nil {
		return store.Entry{}, err
	}
	if domain != nil {
		e.ErasedDomain = *domain
	}
	e.Origin, e.CreatedAt, e.ExpiresAt, e.Evidence = api.Origin(origin), at.Time, until.Time, ev.Evidence
	if note != nil {
		e.Note = *note
	}
	return e, nil
}

// ScanTeamEntry reads team, then the columns of ScanEntry.
func ScanTeamEntry(r Row) (TeamEntry, error) {
	var (
		e         TeamEntry
		origin    string
		note      *string
		at, until Time
		ev        EvidenceColumn
		domain    *string
	)
	if err := r.Scan(&e.Team, &e.ID, &e.Email, &origin, &e.SourceID, &at, &note, &until, &ev, &domain); err != nil {
		return TeamEntry{}, err
	}
	if domain != nil {
		e.ErasedDomain = *domain
	}
	e.Origin, e.CreatedAt, e.ExpiresAt, e.Evidence = api.Origin(origin), at.Time, until.Time, ev.Evidence
	if note != nil {
		e.Note = *note
	}
	return e, nil
}

// EvidenceColumn is an entry's evidence as stored: JSON text, NULL for
// none.
type EvidenceColumn struct{ Evidence *api.Evidence }

// Scan reads the column; see database/sql.Scanner.
func (c *EvidenceColumn) Scan(src any) error {
	var b []byte
	switch v := src.(type) {
	case nil:
		c.Evidence = nil
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("an evidence column holds %T", src)
	}
	var ev api.Evidence
	if err := json.Unmarshal(b, &ev); err != nil {
		return fmt.Errorf("an entry's evidence does not read back: %w", err)
	}
	c.Evidence = &ev
	return nil
}

// Evidence is an entry's evidence as stored: JSON text, NULL (nil) for
// none.
func Evidence(ev *api.Evidence) *string {
	if ev == nil {
		return nil
	}
	b, err := json.Marshal(ev)
	if err != nil {
		// An Evidence is strings and a time: it always encodes.
		return nil
	}
	s := string(b)
	return &s
}

// Note is a note as stored: NULL (nil) for none.
func Note(note string) *string {
	if note == "" {
		return nil
	}
	return &note
}

// KeyColumns are the columns ScanKey reads, in its order.
const KeyColumns = "id, team, name, read_only, hash, created_at, revoked_at, override, can_import"

// ScanKey reads id, team, name, read_only, hash, created_at, revoked_at,
// override, can_import (KeyColumns).
func ScanKey(r Row) (store.Key, error) {
	var (
		k           store.Key
		at, revoked Time
	)
	if err := r.Scan(&k.ID, &k.Team, &k.Name, &k.ReadOnly, &k.Hash, &at, &revoked, &k.Override, &k.Import); err != nil {
		return store.Key{}, err
	}
	k.CreatedAt = at.Time
	if !revoked.IsZero() {
		k.RevokedAt = &revoked.Time
	}
	return k, nil
}

// AgentColumns are the columns ScanAgent reads, in its order.
const AgentColumns = "id, team, name, public_key, fingerprint, read_only, override, created_at, removed_at"

// ScanAgent reads the AgentColumns.
func ScanAgent(r Row) (store.Agent, error) {
	var (
		a           store.Agent
		at, removed Time
	)
	if err := r.Scan(&a.ID, &a.Team, &a.Name, &a.PublicKey, &a.Fingerprint, &a.ReadOnly, &a.Override, &at, &removed); err != nil {
		return store.Agent{}, err
	}
	a.CreatedAt = at.Time
	if !removed.IsZero() {
		a.RemovedAt = &removed.Time
	}
	return a, nil
}

// ScanTeam reads TeamColumns.
func ScanTeam(r Row) (store.TeamSettings, error) {
	var (
		t                        store.TeamSettings
		protected                Strings
		threshold, window, until *int64
	)
	if err := r.Scan(&t.Team, &protected, &t.ComplaintRemoval, &threshold, &window, &until, &t.ErasureKeepsDomain); err != nil {
		return store.TeamSettings{}, err
	}
	t.Protected = protected
	if threshold != nil {
		t.Intake.Threshold = int(*threshold)
	}
	if window != nil {
		t.Intake.Window = time.Duration(*window) * time.Second
	}
	if until != nil {
		t.Intake.Expiry = time.Duration(*until) * time.Second
	}
	return t, nil
}

// TeamColumns are the columns of the teams table ScanTeam reads.
const TeamColumns = "name, protected, complaint_removal, soft_threshold, soft_window, soft_expiry, erasure_keeps_domain"

// Policy is a team's intake policy as stored: NULL (nil) for each field
// left at its default; spans in seconds.
func Policy(p store.IntakePolicy) (threshold, window, expiry *int64) {
	n := func(v int64) *int64 {
		if v <= 0 {
			return nil
		}
		return &v
	}
	return n(int64(p.Threshold)), n(int64(p.Window / time.Second)), n(int64(p.Expiry / time.Second))
}

// Author is the agent of a change as stored: NULL (nil) for a key's
// change or the service's own.
func Author(a store.Change) (agentID, agentName *string) {
	if a.AgentID == "" {
		return nil, nil
	}
	return &a.AgentID, &a.AgentName
}

// ScanWebhook reads id, team, endpoint, events, status, secret,
// prev_secret (” for none), prev_until, created_at.
func ScanWebhook(r Row) (store.Webhook, error) {
	var (
		w        store.Webhook
		events   Strings
		prev, at Time
	)
	if err := r.Scan(&w.ID, &w.Team, &w.Endpoint, &events, &w.Status, &w.Secret, &w.PrevSecret, &prev, &at); err != nil {
		return store.Webhook{}, err
	}
	w.Events, w.PrevUntil, w.CreatedAt = events, prev.Time, at.Time
	return w, nil
}

// ScanEvent reads id, webhook_id, team, type, created_at, payload,
// status, next_attempt_at, attempts, retry.
func ScanEvent(r Row) (store.WebhookEvent, error) {
	var (
		e        store.WebhookEvent
		at, next Time
	)
	if err := r.Scan(&e.ID, &e.WebhookID, &e.Team, &e.Type, &at, &e.Payload, &e.Status, &next, &e.Attempts, &e.Retry); err != nil {
		return store.WebhookEvent{}, err
	}
	e.CreatedAt, e.NextAttemptAt = at.Time, next.Time
	return e, nil
}

// ScanAttempt reads id, event_id, status_code, response, sent_at.
func ScanAttempt(r Row) (store.Attempt, error) {
	var (
		a  store.Attempt
		at Time
	)
	if err := r.Scan(&a.ID, &a.EventID, &a.StatusCode, &a.Response, &at); err != nil {
		return store.Attempt{}, err
	}
	a.SentAt = at.Time
	return a, nil
}

// ScanAudit reads id, type, created_at, sup_id, email, origin, source_id,
// sup_created_at, key_id, key_name, reference (” for none), request_id,
// note, expires_at, agent_id, agent_name (NULL for no agent), evidence.
func ScanAudit(r Row) (store.AuditEntry, error) {
	var (
		a                store.AuditEntry
		origin           string
		note             *string
		at, supAt, until Time
		ev               EvidenceColumn
	)
	var agentID, agentName *string
	if err := r.Scan(&a.ID, &a.Type, &at, &a.Suppression.ID, &a.Suppression.Email, &origin, &a.Suppression.SourceID, &supAt,
		&a.KeyID, &a.KeyName, &a.Reference, &a.RequestID, &note, &until, &agentID, &agentName, &ev); err != nil {
		return store.AuditEntry{}, err
	}
	a.Suppression.Evidence = ev.Evidence
	if agentID != nil {
		a.AgentID = *agentID
	}
	if agentName != nil {
		a.AgentName = *agentName
	}
	a.CreatedAt, a.Suppression.Origin, a.Suppression.CreatedAt = at.Time, api.Origin(origin), supAt.Time
	a.Suppression.ExpiresAt = until.Time
	if note != nil {
		a.Suppression.Note = *note
	}
	return a, nil
}

// IntakeColumns are the columns ScanIntake reads, in its order; a
// dialect selects them with the topic's NULL as ”.
const IntakeColumns = "id, team, provider, name, credential, topic_arn, created_at"

// ScanIntake reads IntakeColumns.
func ScanIntake(r Row) (store.Intake, error) {
	var (
		in    store.Intake
		topic *string
		at    Time
	)
	if err := r.Scan(&in.ID, &in.Team, &in.Provider, &in.Name, &in.Credential, &topic, &at); err != nil {
		return store.Intake{}, err
	}
	in.CreatedAt = at.Time
	if topic != nil {
		in.TopicArn = *topic
	}
	return in, nil
}

// ReviewColumns are the columns ScanReview reads, in its order.
const ReviewColumns = "team, id, intake_id, provider, email, evidence, reason, received_at, decision, decided_at, decided_by, note, entry_id"

// ScanReview reads ReviewColumns.
func ScanReview(r Row) (store.ReviewItem, error) {
	var (
		it                        store.ReviewItem
		ev                        EvidenceColumn
		at, decided               Time
		decision, by, note, entry *string
	)
	if err := r.Scan(&it.Team, &it.ID, &it.IntakeID, &it.Provider, &it.Email, &ev, &it.Reason, &at,
		&decision, &decided, &by, &note, &entry); err != nil {
		return store.ReviewItem{}, err
	}
	if ev.Evidence != nil {
		it.Evidence = *ev.Evidence
	}
	it.ReceivedAt, it.DecidedAt = at.Time, decided.Time
	for _, f := range []struct {
		src *string
		dst *string
	}{{decision, &it.Decision}, {by, &it.DecidedBy}, {note, &it.Note}, {entry, &it.EntryID}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	return it, nil
}
