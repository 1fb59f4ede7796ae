package dbcopy_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/dbcopy"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlite"
)

// newSQLite makes a migrated, empty SQLite store.
func newSQLite(t *testing.T) (store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "shush.db")
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	return st, path
}

// newPostgres makes a migrated, empty PostgreSQL store (skipped without
// SHUSH_TEST_POSTGRES).
func newPostgres(t *testing.T) (store.Store, string) {
	t.Helper()
	dsn := pgtest.DSN(t)
	st, err := postgres.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	return st, dsn
}

// Every table and column of both dialects' schemas is one the copy
// carries (or one it leaves on purpose): a table or column added by a
// later schema step makes this fail until dbcopy.Tables names it.
func TestTablesCoverTheSchema(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		st, path := newSQLite(t)
		st.Close()
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		checkCovered(t, sqliteSchema(t, db))
	})
	t.Run("postgres", func(t *testing.T) {
		st, dsn := newPostgres(t)
		st.Close()
		checkCovered(t, postgresSchema(t, dsn))
	})
}

// checkCovered fails for each table and column of the schema that
// dbcopy.Tables does not carry, and for each it names that the schema
// does not have.
func checkCovered(t *testing.T, schema map[string][]string) {
	t.Helper()
	covered := map[string][]string{}
	for _, tb := range dbcopy.Tables {
		for _, c := range tb.Columns {
			covered[tb.Name] = append(covered[tb.Name], c.Name)
		}
	}
	for table, cols := range schema {
		if slices.Contains(dbcopy.NotCopied, table) {
			continue
		}
		have, ok := covered[table]
		if !ok {
			t.Errorf("the schema has the table %s, which dbcopy.Tables does not name: add it (or to NotCopied, saying why)", table)
			continue
		}
		for _, c := range missing(cols, have) {
			t.Errorf("the schema's %s has the column %s, which dbcopy.Tables does not name", table, c)
		}
		for _, c := range missing(have, cols) {
			t.Errorf("dbcopy.Tables names %s.%s, which the schema does not have", table, c)
		}
	}
	for table := range covered {
		if _, ok := schema[table]; !ok {
			t.Errorf("dbcopy.Tables names the table %s, which the schema does not have", table)
		}
	}
}

// missing is what of want have lacks.
func missing(want, have []string) []string {
	var out []string
	for _, c := range want {
		if !slices.Contains(have, c) {
			out = append(out, c)
		}
	}
	return out
}

func postgresSchema(t *testing.T, dsn string) map[string][]string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	rows, err := conn.Query(t.Context(), `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()`)
	if err != nil {
		t.Fatal(err)
	}
	schema := map[string][]string{}
	for rows.Next() {
		var table, col string
		if err := rows.Scan(&table, &col); err != nil {
			t.Fatal(err)
		}
		schema[table] = append(schema[table], col)
	}
	if len(schema) == 0 {
		t.Fatal("no tables read")
	}
	return schema
}

func sqliteSchema(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	schema := map[string][]string{}
	for _, table := range tables {
		cols, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		for cols.Next() {
			var c string
			if err := cols.Scan(&c); err != nil {
				t.Fatal(err)
			}
			schema[table] = append(schema[table], c)
		}
		cols.Close()
	}
	if len(schema) == 0 {
		t.Fatal("no tables read")
	}
	return schema
}

// seed puts something in every table: keys (one revoked), agents (one
// removed), team rules, entries with notes, expiries and evidence, a trail
// of additions and removals (and a pruned stretch, whose entries name a
// change that is gone), webhooks with a rotated secret, their events and
// attempts, intake endpoints, events taken in and the review queue.
func seed(t *testing.T, st store.Store, entries int) {
	t.Helper()
	ctx := t.Context()
	at := time.Now().UTC().Truncate(time.Millisecond)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// A stretch the trail then prunes: its entries name a change that is
	// gone.
	_, err := st.Add(ctx, "old", store.Change{KeyID: "k0", KeyName: "before", RequestID: "r0"}, store.Manual("old1@example.com", "old2@example.com"))
	must(err)
	time.Sleep(5 * time.Millisecond)
	_, err = st.PruneAudit(ctx, time.Now())
	must(err)

	for i, name := range []string{"ops", "cron"} {
		h := sha256.Sum256([]byte("secret-" + name))
		k := store.Key{ID: "key" + name, Team: "acme", Name: name, ReadOnly: i == 1, Override: i == 0, Hash: h[:], CreatedAt: at}
		must(st.CreateKey(ctx, k))
	}
	must(st.RevokeKey(ctx, "keycron"))
	must(st.CreateAgent(ctx, store.Agent{ID: "ag1", Team: "acme", Name: "jane", PublicKey: "ssh-ed25519 AAAAjane", Fingerprint: "SHA256:jane", Override: true, CreatedAt: at}))
	must(st.CreateAgent(ctx, store.Agent{ID: "ag2", Team: "acme", Name: "joe", PublicKey: "ssh-ed25519 AAAAjoe", Fingerprint: "SHA256:joe", ReadOnly: true, CreatedAt: at}))
	_, err = st.RemoveAgent(ctx, "ag2")
	must(err)
	must(st.SetTeamSettings(ctx, store.TeamSettings{Team: "acme", Protected: []string{"@acme.test", "help@partner.test"}, ComplaintRemoval: store.ComplaintOverride,
		Intake: store.IntakePolicy{Threshold: 3, Window: 72 * time.Hour, Expiry: 30 * 24 * time.Hour}}))
	// The team's one-click key, made on first use.
	_, err = st.OneClickKey(ctx, "acme", true)
	must(err)

	hook := store.Webhook{ID: uuid.NewString(), Team: "acme", Endpoint: "https://hooks.example.com/shush", Events: []string{"suppression.added", "suppression.removed"},
		Status: api.WebhookEnabled, Secret: "whsec_first", CreatedAt: at}
	must(st.CreateWebhook(ctx, hook, 10))
	must(st.RotateWebhookSecret(ctx, "acme", hook.ID, "whsec_second", at.Add(24*time.Hour)))
	must(st.CreateWebhook(ctx, store.Webhook{ID: uuid.NewString(), Team: "acme", Endpoint: "https://hooks.example.com/off", Events: []string{"email.bounced"},
		Status: api.WebhookDisabled, Secret: "whsec_off", CreatedAt: at}, 10))

	var add []store.NewEntry
	for i := range entries {
		e := store.NewEntry{Email: fmt.Sprintf("person%06d@example.com", i), Origin: api.OriginBounce}
		switch i % 4 {
		case 0:
			e.Note = fmt.Sprintf("asked on #%d, \"quoted\"", i)
		case 1:
			e.ExpiresAt = at.Add(30 * 24 * time.Hour)
			e.Origin = api.OriginManual
		case 2:
			src := fmt.Sprintf("evt_%d", i)
			e.SourceID, e.Origin = &src, api.OriginComplaint
			e.Evidence = &api.Evidence{Provider: "sendgrid", Kind: api.EvidenceImport, Status: "5.1.1", Diagnostic: "550 <x@y> no such user",
				ReportedAt: &api.Timestamp{Time: at.Add(-time.Hour)}}
		}
		add = append(add, e)
	}
	for lo := 0; lo < len(add); lo += 100 {
		_, err := st.Add(ctx, "acme", store.Change{KeyID: "keyops", KeyName: "ops", Reference: fmt.Sprintf("T-%d", lo), RequestID: fmt.Sprintf("req-%d", lo)},
			add[lo:min(lo+100, len(add))])
		must(err)
	}
	_, err = st.Add(ctx, "acme", store.Change{AgentID: "ag1", AgentName: "jane", RequestID: "req-agent"}, store.Manual("by.agent@example.com"))
	must(err)
	_, err = st.RemoveEmails(ctx, "acme", store.Change{KeyID: "keyops", KeyName: "ops", Reference: "T-rm", RequestID: "req-rm"},
		[]string{"person000001@example.com", "person000002@example.com", "person000010@example.com"})
	must(err)
	_, err = st.Add(ctx, "beta", store.Change{KeyID: "keyb", KeyName: "b", RequestID: "req-b"}, store.Manual("beta@example.com"))
	must(err)
	// An erased entry, under its team's secret (which the copy carries:
	// the copy still matches the address).
	_, err = st.(store.Eraser).Erase(ctx, "acme", store.Change{KeyID: "keyops", KeyName: "ops", Reference: "GDPR-1", RequestID: "req-erase"},
		[]string{"person000003@example.com"})
	must(err)

	ds, err := st.ClaimDeliveries(ctx, store.ClaimRequest{Now: time.Now().Add(time.Second), Lease: time.Minute, Limit: 3})
	must(err)
	if len(ds) == 0 {
		t.Fatal("no deliveries to claim")
	}
	for i, d := range ds {
		o := store.Outcome{Status: "success"}
		if i == 0 {
			o = store.Outcome{Status: "attempting", NextAttemptAt: at.Add(time.Minute)}
		}
		must(st.RecordAttempt(ctx, store.Attempt{ID: uuid.NewString(), EventID: d.Event.ID, StatusCode: 200 + i, Response: "ok\n", SentAt: at}, o))
	}

	in := store.Intake{ID: uuid.NewString(), Team: "acme", Provider: api.ProviderSendGrid, Name: "sg", Credential: "MFkwEwYHKoZIzj0CAQ", CreatedAt: at}
	must(st.CreateIntake(ctx, in, 10))
	_, err = st.TakeIn(ctx, "acme", store.Change{KeyID: "keyops", KeyName: "ops", RequestID: "req-in"}, []store.IntakeEvent{
		{IntakeID: in.ID, Provider: in.Provider, EventID: "ev-soft-1", Email: "soft@example.com", Action: store.ActCount, MessageKey: "m1",
			Evidence: api.Evidence{Provider: "sendgrid", Kind: api.EvidenceBounce, Status: "4.2.2"}},
		{IntakeID: in.ID, Provider: in.Provider, EventID: "ev-odd-1", Email: "odd@example.com", Action: store.ActReview, Reason: "undetermined bounce",
			Evidence: api.Evidence{Provider: "sendgrid", Kind: api.EvidenceBounce, Diagnostic: "who knows"}},
		{IntakeID: in.ID, Provider: in.Provider, EventID: "ev-hard-1", Email: "hard@example.com", Action: store.ActList, Origin: api.OriginBounce,
			Evidence: api.Evidence{Provider: "sendgrid", Kind: api.EvidenceBounce, Status: "5.1.1"}},
	})
	must(err)
}

// sums reads a database's checksums, every table.
func sums(t testing.TB, e dbcopy.Endpoint) []dbcopy.TableReport {
	t.Helper()
	got, err := dbcopy.Sums(t.Context(), e)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// A copy from SQLite to PostgreSQL and back carries every table: each
// reads back with the same rows (counted and summed as canonical rows),
// every table has rows, and the copies work as the source did: the same
// list, trail and keys, and new changes after the copied ones.
func TestCopyBothWays(t *testing.T) {
	ctx := t.Context()
	src, srcPath := newSQLite(t)
	seed(t, src, 5000)
	srcList := listOf(t, src, "acme")
	srcTrail := trailOf(t, src, "acme")
	src.Close()

	pg, dsn := newPostgres(t)
	pg.Close()
	from, mid := dbcopy.Endpoint{DSN: srcPath}, dbcopy.Endpoint{DSN: dsn, Postgres: true}
	rep, err := dbcopy.Copy(ctx, from, mid, dbcopy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := sums(t, from)
	if !slices.Equal(rep.Tables, want) || !slices.Equal(sums(t, mid), want) {
		t.Fatalf("SQLite to PostgreSQL:\n copy %v\n read %v\n want %v", rep.Tables, sums(t, mid), want)
	}
	for _, tr := range want {
		if tr.Rows == 0 {
			t.Errorf("the seed left %s empty: the test compares nothing there", tr.Name)
		}
	}

	back, backPath := newSQLite(t)
	back.Close()
	to := dbcopy.Endpoint{DSN: backPath}
	if _, err := dbcopy.Copy(ctx, mid, to, dbcopy.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := sums(t, to); !slices.Equal(got, want) {
		t.Fatalf("PostgreSQL to SQLite:\n got %v\nwant %v", got, want)
	}

	// The copies are the list: what the API reads is what the source
	// read, and changes go on after the copied ones.
	for name, open := range map[string]func() (store.Store, error){
		"postgres": func() (store.Store, error) { return postgres.Open(ctx, dsn) },
		"sqlite":   func() (store.Store, error) { return sqlite.Open(ctx, backPath) },
	} {
		t.Run(name, func(t *testing.T) { checkCopyWorks(t, open, srcList, srcTrail) })
	}
}

// checkCopyWorks opens a copy and reads it as the source read: the list,
// the trail and the keys; a change after the copy is the trail's newest.
func checkCopyWorks(t *testing.T, open func() (store.Store, error), srcList, srcTrail []string) {
	ctx := t.Context()
	st, err := open()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := listOf(t, st, "acme"); !slices.Equal(got, srcList) {
		t.Errorf("the list differs: %d entries, want %d", len(got), len(srcList))
	}
	if got := trailOf(t, st, "acme"); !slices.Equal(got, srcTrail) {
		t.Errorf("the trail differs:\n got %v\nwant %v", head(got), head(srcTrail))
	}
	k, err := st.KeyByID(ctx, "keyops")
	if h := sha256.Sum256([]byte("secret-ops")); err != nil || string(k.Hash) != string(h[:]) || !k.Override {
		t.Errorf("the key: %+v %v", k, err)
	}
	added, err := st.Add(ctx, "acme", store.Change{KeyID: "keyops", KeyName: "ops", RequestID: "after"}, store.Manual("after.copy@example.com"))
	if err != nil || !added[0].Created {
		t.Fatalf("adding after the copy: %v %v", added, err)
	}
	page, _, err := st.Audit(ctx, "acme", store.AuditQuery{Limit: 1})
	if err != nil || len(page) != 1 || page[0].Suppression.Email != "after.copy@example.com" || page[0].KeyName != "ops" {
		t.Errorf("the trail's newest entry after the copy: %+v %v", page, err)
	}
}

func listOf(t *testing.T, st store.Store, team string) []string {
	t.Helper()
	var out []string
	err := st.Export(t.Context(), team, store.ListQuery{}, func(e store.Entry) error {
		out = append(out, fmt.Sprintf("%s %s %s %v %s %s %v %v", e.ID, e.Email, e.Origin, e.SourceID != nil, e.CreatedAt.Format(time.RFC3339Nano), e.Note, e.ExpiresAt, e.Evidence != nil))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func trailOf(t *testing.T, st store.Store, team string) []string {
	t.Helper()
	var out []string
	q := store.AuditQuery{Limit: 100}
	for {
		page, more, err := st.Audit(t.Context(), team, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range page {
			out = append(out, fmt.Sprintf("%s %s %s %s %s %s %s %s", a.ID, a.Type, a.CreatedAt.Format(time.RFC3339Nano), a.Suppression.Email, a.KeyName, a.AgentName, a.Reference, a.RequestID))
		}
		if !more || len(page) == 0 {
			return out
		}
		q.After = page[len(page)-1].ID
	}
}

func head(s []string) []string { return s[:min(5, len(s))] }

// A target that holds rows is refused without --force, and left as it
// was; with --force its rows are replaced by the source's.
func TestCopyRefusesAFullTarget(t *testing.T) {
	ctx := t.Context()
	src, srcPath := newSQLite(t)
	seed(t, src, 300)
	src.Close()
	dst, dstPath := newSQLite(t)
	if _, err := dst.Add(ctx, "acme", store.Change{RequestID: "x"}, store.Manual("theirs@example.com")); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	from, to := dbcopy.Endpoint{DSN: srcPath}, dbcopy.Endpoint{DSN: dstPath}
	before := sums(t, to)
	_, err := dbcopy.Copy(ctx, from, to, dbcopy.Options{})
	if !errors.Is(err, dbcopy.ErrNotEmpty) || !strings.Contains(err.Error(), "suppressions (1)") {
		t.Fatalf("err = %v", err)
	}
	if got := sums(t, to); !slices.Equal(got, before) {
		t.Fatalf("the refused target changed")
	}
	rep, err := dbcopy.Copy(ctx, from, to, dbcopy.Options{Force: true})
	if err != nil || rep.Replaced == 0 {
		t.Fatalf("force: %v %+v", err, rep)
	}
	if got := sums(t, to); !slices.Equal(got, sums(t, from)) {
		t.Fatal("the forced copy differs from the source")
	}
}

// A copy cut off in the middle (its context cancelled after the first
// chunk of the list) leaves the target as it was, on both dialects; the
// copy then runs again from the start.
func TestCopyCutOffLeavesTheTargetUnchanged(t *testing.T) {
	src, srcPath := newSQLite(t)
	seed(t, src, 4500)
	src.Close()
	from := dbcopy.Endpoint{DSN: srcPath}
	for name, target := range map[string]func(t *testing.T) dbcopy.Endpoint{
		"sqlite": func(t *testing.T) dbcopy.Endpoint {
			st, p := newSQLite(t)
			st.Close()
			return dbcopy.Endpoint{DSN: p}
		},
		"postgres": func(t *testing.T) dbcopy.Endpoint {
			st, dsn := newPostgres(t)
			st.Close()
			return dbcopy.Endpoint{DSN: dsn, Postgres: true}
		},
	} {
		t.Run(name, func(t *testing.T) {
			to := target(t)
			empty := sums(t, to)
			ctx, cancel := context.WithCancel(t.Context())
			_, err := dbcopy.Copy(ctx, from, to, dbcopy.Options{Progress: func(table string, rows int64) {
				if table == "suppressions" {
					cancel()
				}
			}})
			if err == nil {
				t.Fatal("the cut-off copy says it finished")
			}
			if got := sums(t, to); !slices.Equal(got, empty) {
				t.Fatalf("the cut-off copy left rows: %v", got)
			}
			if _, err := dbcopy.Copy(t.Context(), from, to, dbcopy.Options{}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sums(t, to), sums(t, from)) {
				t.Fatal("the copy after the cut-off one differs")
			}
		})
	}
}

// The checksums see one value changed by a millisecond, and only in its
// table: they are no test that cannot fail.
func TestSumsSeeOneChangedValue(t *testing.T) {
	src, srcPath := newSQLite(t)
	seed(t, src, 200)
	src.Close()
	dst, dstPath := newSQLite(t)
	dst.Close()
	from, to := dbcopy.Endpoint{DSN: srcPath}, dbcopy.Endpoint{DSN: dstPath}
	if _, err := dbcopy.Copy(t.Context(), from, to, dbcopy.Options{}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", dstPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE suppressions SET expires_at = expires_at + 1 WHERE email = 'person000005@example.com'`); err != nil {
		t.Fatal(err)
	}
	want, got := sums(t, from), sums(t, to)
	for i := range want {
		if (want[i] != got[i]) != (want[i].Name == "suppressions") {
			t.Errorf("%s: source %v, changed copy %v", want[i].Name, want[i], got[i])
		}
	}
}

// SQLite's webhook fan-out (events a change queued, not yet written into
// webhook_events) is copied as the events it stands for: pending, due at
// their time, none for a webhook deleted meanwhile; the fan-out table of
// a SQLite target is emptied with the rest by --force.
func TestCopyCarriesSQLitesFanOut(t *testing.T) {
	ctx := t.Context()
	src, srcPath := newSQLite(t)
	at := time.Now().UTC().Truncate(time.Millisecond)
	hook := store.Webhook{ID: uuid.NewString(), Team: "acme", Endpoint: "https://hooks.example.com/x", Events: []string{"suppression.added"},
		Status: api.WebhookEnabled, Secret: "whsec_x", CreatedAt: at}
	if err := src.CreateWebhook(ctx, hook, 10); err != nil {
		t.Fatal(err)
	}
	src.Close()
	db, err := sql.Open("sqlite", srcPath)
	if err != nil {
		t.Fatal(err)
	}
	live, gone := uuid.NewString(), uuid.NewString()
	events := fmt.Sprintf(`[["%s","%s"],["%s","%s"]]`, live, hook.ID, gone, uuid.NewString())
	if _, err := db.Exec(`INSERT INTO webhook_fanout (team, type, created_at, payload, events) VALUES ('acme', 'suppression.added', ?, ?, ?)`,
		at.UnixMilli(), []byte(`{"type":"suppression.added"}`), events); err != nil {
		t.Fatal(err)
	}
	db.Close()
	pg, dsn := newPostgres(t)
	pg.Close()
	from, to := dbcopy.Endpoint{DSN: srcPath}, dbcopy.Endpoint{DSN: dsn, Postgres: true}
	if _, err := dbcopy.Copy(ctx, from, to, dbcopy.Options{}); err != nil {
		t.Fatal(err)
	}
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := st.WebhookEvent(ctx, "acme", hook.ID, live)
	if err != nil || e.Status != "pending" || !e.CreatedAt.Equal(at) {
		t.Fatalf("the fanned-out event in the copy: %+v %v", e, err)
	}
	if got := sums(t, to); !slices.Equal(got, sums(t, from)) {
		t.Fatalf("the copy's checksums differ")
	}
	// Back into the source's own file, replaced: its fan-out goes too.
	if _, err := dbcopy.Copy(ctx, to, from, dbcopy.Options{Force: true}); err != nil {
		t.Fatal(err)
	}
	db, err = sql.Open("sqlite", srcPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var fan, evs int
	if err := db.QueryRow(`SELECT (SELECT count(*) FROM webhook_fanout), (SELECT count(*) FROM webhook_events)`).Scan(&fan, &evs); err != nil || fan != 0 || evs != 1 {
		t.Fatalf("after the copy back: %d fan-out rows, %d events, %v", fan, evs, err)
	}
}
