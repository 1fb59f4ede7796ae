// Package dbcopy copies everything the service keeps from one database to
// another, SQLite or PostgreSQL either way: every team's list with its
// IDs, creation times, expiries, notes and evidence, the trail, the keys
// (their hashes), the agents, the webhooks with their secrets and their
// deliveries, the teams' rules and intake. The copy is one transaction on
// the target, checked before it commits: each table's rows are counted and
// summed, as canonical rows (the same whatever the dialect), on both
// sides. A copy that fails or is cut off leaves the target as it was.
//
// What is copied is driven by one list of tables (Tables); a test fails
// when the schema of either dialect has a table or column it does not
// name.
package dbcopy

// Kind is how a column's values are kept in each dialect and compared.
type Kind int

// The kinds of columns.
const (
	// Text is text in both dialects.
	Text Kind = iota
	// Int is an integer in both.
	Int
	// Bool is INTEGER 0/1 in SQLite, boolean in PostgreSQL.
	Bool
	// Time is INTEGER Unix milliseconds in SQLite, timestamptz in
	// PostgreSQL; compared in milliseconds.
	Time
	// UUID is TEXT in SQLite, uuid in PostgreSQL; compared in canonical
	// text. (Some ID columns are text in both: they are Text.)
	UUID
	// List is a JSON array of strings in SQLite, text[] in PostgreSQL.
	List
	// Bytes is a BLOB in SQLite, bytea in PostgreSQL.
	Bytes
	// ChangeID is the key of the trail's changes: SQLite numbers them
	// (INTEGER), PostgreSQL keys them by UUID. A change is known in either
	// by its team and its first entry's ID (first_id), which is what is
	// compared; a copy keys it as the target's dialect does.
	ChangeID
	// ChangeRef names a change by ChangeID: compared as the change's
	// first_id, and NULL when the change is gone (the trail pruned it,
	// which it reads the same as none).
	ChangeRef
)

// Column is one column of a table.
type Column struct {
	Name string
	Kind Kind
}

// Table is one table of the schema, with every column the copy carries.
type Table struct {
	Name    string
	Columns []Column
}

// Tables are every table of the schema the copy carries, in the order it
// writes them (a table before those that refer to it): adding a table or
// a column to the schema means adding it here, or the coverage test fails.
var Tables = []Table{
	{Name: "api_keys", Columns: []Column{{"id", Text}, {"team", Text}, {"read_only", Bool}, {"hash", Bytes}, {"created_at", Time},
		{"revoked_at", Time}, {"name", Text}, {"override", Bool}, {"can_import", Bool}}},
	{Name: "agents", Columns: []Column{{"id", Text}, {"team", Text}, {"name", Text}, {"public_key", Text}, {"fingerprint", Text},
		{"read_only", Bool}, {"override", Bool}, {"created_at", Time}, {"removed_at", Time}}},
	{Name: "teams", Columns: []Column{{"name", Text}, {"protected", List}, {"complaint_removal", Text}, {"soft_threshold", Int},
		{"soft_window", Int}, {"soft_expiry", Int}, {"erasure_keeps_domain", Bool}}},
	{Name: "erasure_secrets", Columns: []Column{{"team", Text}, {"version", Int}, {"secret", Bytes}, {"created_at", Time}}},
	{Name: "trail_heads", Columns: []Column{{"team", Text}, {"last_id", UUID}}},
	{Name: "changes", Columns: []Column{{"id", ChangeID}, {"team", Text}, {"created_at", Time}, {"key_id", Text}, {"key_name", Text},
		{"reference", Text}, {"request_id", Text}, {"first_id", UUID}, {"last_id", UUID}, {"agent_id", Text}, {"agent_name", Text}}},
	{Name: "suppressions", Columns: []Column{{"team", Text}, {"id", UUID}, {"email", Text}, {"origin", Text}, {"source_id", Text},
		{"created_at", Time}, {"change_id", ChangeRef}, {"note", Text}, {"expires_at", Time}, {"evidence", Text}, {"erased_domain", Text}}},
	{Name: "audit", Columns: []Column{{"team", Text}, {"id", UUID}, {"type", Text}, {"created_at", Time}, {"sup_id", UUID},
		{"email", Text}, {"origin", Text}, {"source_id", Text}, {"sup_created_at", Time}, {"key_id", Text}, {"key_name", Text},
		{"reference", Text}, {"request_id", Text}, {"note", Text}, {"expires_at", Time}, {"agent_id", Text}, {"agent_name", Text},
		{"change_id", ChangeRef}, {"evidence", Text}}},
	{Name: "webhooks", Columns: []Column{{"id", UUID}, {"team", Text}, {"endpoint", Text}, {"events", List}, {"status", Text},
		{"secret", Text}, {"prev_secret", Text}, {"prev_until", Time}, {"created_at", Time}}},
	{Name: "webhook_events", Columns: []Column{{"id", UUID}, {"webhook_id", UUID}, {"team", Text}, {"type", Text}, {"created_at", Time},
		{"payload", Bytes}, {"status", Text}, {"next_attempt_at", Time}, {"attempts", Int}, {"retry", Bool}, {"leased_until", Time}}},
	{Name: "webhook_attempts", Columns: []Column{{"id", UUID}, {"event_id", UUID}, {"status_code", Int}, {"response", Text}, {"sent_at", Time}}},
	{Name: "intakes", Columns: []Column{{"id", UUID}, {"team", Text}, {"provider", Text}, {"name", Text}, {"credential", Text},
		{"topic_arn", Text}, {"created_at", Time}}},
	{Name: "intake_events", Columns: []Column{{"team", Text}, {"provider", Text}, {"event_id", Text}, {"email", Text}, {"temporary", Bool},
		{"message_key", Text}, {"received_at", Time}}},
	{Name: "intake_review", Columns: []Column{{"team", Text}, {"id", UUID}, {"intake_id", Text}, {"provider", Text}, {"email", Text},
		{"evidence", Text}, {"reason", Text}, {"received_at", Time}, {"decision", Text}, {"decided_at", Time}, {"decided_by", Text},
		{"note", Text}, {"entry_id", Text}}},
	{Name: "oneclick_keys", Columns: []Column{{"team", Text}, {"secret", Bytes}, {"created_at", Time}}},
}

// NotCopied are the tables of the schema the copy leaves: each database
// keeps its own history of schema steps, and SQLite its sequences (set
// from what is copied) and its webhook fan-out, the events a change
// queued to be written into webhook_events a step at a time: the copy
// reads them as the webhook_events they stand for (sqliteEvents).
var NotCopied = []string{"schema_migrations", "sqlite_sequence", "webhook_fanout"}

// sqliteEvents are the events SQLite's webhook fan-out holds, as the rows
// of webhook_events its expander would write (each pending, due at its
// time; none for a webhook deleted meanwhile), in Tables' column order.
const sqliteEvents = `SELECT json_extract(e.value, '$[0]'), json_extract(e.value, '$[1]'), f.team, f.type, f.created_at, f.payload,
	'pending', f.created_at, 0, 1, NULL
	FROM webhook_fanout f, json_each(f.events) e
	WHERE json_extract(e.value, '$[1]') IN (SELECT id FROM webhooks)`
