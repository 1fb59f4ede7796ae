package server_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// TestProbesNeedNoKey: an orchestrator's probes and the API document
// answer without a key; the list does not.
func TestProbesNeedNoKey(t *testing.T) {
	s := startService(t, openSQLite(t), server.Options{})
	for _, p := range []string{"/livez", "/readyz", "/healthz"} {
		r := s.get(p, "")
		if r.status != http.StatusOK || !strings.Contains(string(r.body), `"ok"`) {
			t.Errorf("GET %s: %d %s", p, r.status, r.body)
		}
	}
	s.get("/suppressions", "").wantError(t, http.StatusUnauthorized, api.ErrMissingAPIKey)
	s.get("/livez/x", "").wantError(t, http.StatusUnauthorized, api.ErrMissingAPIKey)
}

// TestReadOnlySQLiteRecovers: a database file made read-only while the
// service runs refuses changes with 503 and turns /readyz 503 with the
// reason; once writable again, changes go through and /readyz is 200,
// without a restart.
func TestReadOnlySQLiteRecovers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shush.db")
	st, err := server.OpenStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := startService(t, st, server.Options{})
	key := s.key("ops", false)
	s.add(key, "before@example.com")

	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	e := s.post("/suppressions/batch/add", key, `{"emails":["during@example.com"]}`).wantError(t, http.StatusServiceUnavailable, api.ErrServiceUnavailable)
	if !strings.Contains(e.Message, "read-only") {
		t.Errorf("a write to a read-only database: %q, want it to say read-only", e.Message)
	}
	e = s.get("/readyz", "").wantError(t, http.StatusServiceUnavailable, api.ErrServiceUnavailable)
	if !strings.Contains(e.Message, "read-only") {
		t.Errorf("/readyz on a read-only database: %q", e.Message)
	}
	s.get("/healthz", "").wantError(t, http.StatusServiceUnavailable, api.ErrServiceUnavailable)
	if r := s.get("/livez", ""); r.status != http.StatusOK {
		t.Errorf("/livez while read-only: %d", r.status)
	}
	if id := s.lookup(key, "before@example.com"); id == "" {
		t.Error("reads stopped while the database is read-only")
	}

	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if r := s.get("/readyz", ""); r.status != http.StatusOK {
		t.Errorf("/readyz after the database became writable: %d %s", r.status, r.body)
	}
	s.add(key, "after@example.com")
	if s.lookup(key, "during@example.com") != "" || s.lookup(key, "after@example.com") == "" {
		t.Error("the refused write landed, or the write after recovery did not")
	}
}

// TestFullDiskSQLiteRecovers: the file system refuses the writes
// themselves (a full disk), not just the mode bits: changes answer 503
// and change nothing, and writes and /readyz recover without a restart
// once there is room again.
func TestFullDiskSQLiteRecovers(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to mount a small file system")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs here: %v %s", err, out)
	}
	// Registered first, so it runs after the store and service are closed.
	t.Cleanup(func() { _ = exec.Command("umount", mnt).Run() })
	path := filepath.Join(mnt, "shush.db")
	st, err := server.OpenStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := startService(t, st, server.Options{})
	key := s.key("ops", false)
	s.add(key, "before@example.com")

	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			break
		}
	}
	f.Close()
	// Batches of long addresses until the disk refuses one: each answer
	// is 201 (it still fit) or 503, never anything else.
	var refused []string
	for b := 0; b < 50 && refused == nil; b++ {
		batch := make([]string, 100)
		for i := range batch {
			batch[i] = fmt.Sprintf("%s-%03d-%03d@%s.example.com", strings.Repeat("l", 50), b, i, strings.Repeat("d", 60))
		}
		r := s.post("/suppressions/batch/add", key, jsonBody(t, map[string][]string{"emails": batch}))
		switch r.status {
		case http.StatusCreated:
		case http.StatusServiceUnavailable:
			refused = batch
		default:
			t.Fatalf("batch %d on a full disk: %d %s", b, r.status, r.body)
		}
	}
	if refused == nil {
		t.Fatal("50 batches fit on a full 3 MB file system")
	}
	// Audit L-1: /readyz said 200 the whole time the disk was full (its
	// one-page write fit in the log's pages the failed batch left).
	for i := range 3 {
		r := s.get("/readyz", "")
		if e := r.wantError(t, http.StatusServiceUnavailable, api.ErrServiceUnavailable); !strings.Contains(e.Message, "is full") {
			t.Errorf("/readyz on a full disk (probe %d): %q; want it to say the disk is full", i+1, e.Message)
		}
		time.Sleep(600 * time.Millisecond) // past the kept success, were there one
	}
	if s.lookup(key, "before@example.com") == "" || s.lookup(key, refused[0]) != "" {
		t.Error("reads stopped while the disk is full, or the refused batch landed in part")
	}

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if r := s.get("/readyz", ""); r.status != http.StatusOK {
		t.Errorf("/readyz once there is room again: %d %s", r.status, r.body)
	}
	if r := s.post("/suppressions/batch/add", key, jsonBody(t, map[string][]string{"emails": refused})); r.status != http.StatusCreated {
		t.Errorf("the refused batch once there is room again: %d %s", r.status, r.body)
	}
	if s.lookup(key, refused[99]) == "" {
		t.Error("the write after recovery did not land")
	}
}

// TestReadOnlyPostgresRecovers: the service's database role turns
// read-only (as on a standby, or default_transaction_read_only) and back;
// writes answer 503 meanwhile and resume without a restart.
func TestReadOnlyPostgresRecovers(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var schema string
	if err := admin.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	role := "shush_ro_" + hex.EncodeToString(b)
	for _, q := range []string{
		"CREATE ROLE " + role + " LOGIN",
		"GRANT USAGE, CREATE ON SCHEMA " + schema + " TO " + role,
	} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		_, _ = c.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", role)
		_, _ = c.Exec(ctx, "DROP OWNED BY "+role)
		_, _ = c.Exec(ctx, "DROP ROLE "+role)
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.User(role)
	st, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatalf("open as %s: %v", role, err)
	}
	t.Cleanup(func() { st.Close() })
	s := startService(t, st, server.Options{})
	key := s.key("ops", false)
	s.add(key, "before@example.com")

	if _, err := admin.Exec(ctx, "ALTER ROLE "+role+" SET default_transaction_read_only = on"); err != nil {
		t.Fatal(err)
	}
	// Sessions keep the setting they started with: end them, as a
	// failover does.
	if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1", role); err != nil {
		t.Fatal(err)
	}
	// The first requests after the cut may meet dead connections (503 as
	// well); every answer while read-only must be 503, and one soon says
	// why.
	saidReadOnly := false
	for i := 0; i < 10 && !saidReadOnly; i++ {
		e := s.post("/suppressions/batch/add", key, `{"emails":["during@example.com"]}`).wantError(t, http.StatusServiceUnavailable, api.ErrServiceUnavailable)
		saidReadOnly = strings.Contains(e.Message, "read-only")
	}
	if !saidReadOnly {
		t.Error("no write while read-only said the database is read-only")
	}
	e := s.get("/readyz", "").wantError(t, http.StatusServiceUnavailable, api.ErrServiceUnavailable)
	if !strings.Contains(e.Message, "read-only") {
		t.Errorf("/readyz while read-only: %q", e.Message)
	}

	if _, err := admin.Exec(ctx, "ALTER ROLE "+role+" RESET default_transaction_read_only"); err != nil {
		t.Fatal(err)
	}
	// No restart and no help: the service's own connections find out.
	if r := s.get("/readyz", ""); r.status != http.StatusOK {
		t.Errorf("/readyz after the database became writable: %d %s", r.status, r.body)
	}
	s.add(key, "after@example.com")
	if s.lookup(key, "during@example.com") != "" || s.lookup(key, "after@example.com") == "" {
		t.Error("the refused write landed, or the write after recovery did not")
	}
}

// heldBody starts a request whose body is announced but not yet sent, so
// that the service holds its reservation, and returns its connection.
func heldBody(t *testing.T, base, key string, size int) net.Conn {
	t.Helper()
	u, _ := url.Parse(base)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /suppressions/batch/add HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{\"emails\":[",
		u.Host, key, size)
	return c
}

// TestBodyBytesHeldAreCapped: parallel requests with large bodies reserve
// their length; those that do not fit in the cap are answered 503 with
// Retry-After at once, and the bytes held never exceed the cap.
func TestBodyBytesHeldAreCapped(t *testing.T) {
	const budget = 3 * server.MaxBody
	m := server.NewMetrics()
	s := startService(t, openSQLite(t), server.Options{MaxBodyBytesHeld: budget, MaxBodyBytesPerTeam: budget, Metrics: m})
	key := s.key("ops", false)
	var open []net.Conn
	for i := 0; i < 3; i++ {
		open = append(open, heldBody(t, s.url, key, server.MaxBody-100))
	}
	// The three above hold almost the whole budget once the service has
	// read their heads; wait until it says so.
	deadline := time.Now().Add(10 * time.Second)
	for scrape(t, m)["shush_request_body_bytes_held"] < 3*(server.MaxBody-100) {
		if time.Now().After(deadline) {
			t.Fatalf("the held requests never reserved their bodies: %v", scrape(t, m))
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i := 0; i < 5; i++ {
		c := heldBody(t, s.url, key, 200<<10)
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("request %d beyond the cap: %v", i, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(body), "service_unavailable") {
			t.Errorf("request %d beyond the cap: %d retry-after %q %s", i, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	// A request without a body still goes through.
	if r := s.get("/suppressions", key); r.status != http.StatusOK {
		t.Errorf("a GET while the body budget is used up: %d", r.status)
	}
	// Finishing the held bodies frees the budget.
	for _, c := range open {
		rest := strings.Repeat(" ", server.MaxBody-100-len(`{"emails":[`)-len(`"a@example.com"]}`)) + `"a@example.com"]}`
		if _, err := io.WriteString(c, rest); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Errorf("a held request once its body came: %d", resp.StatusCode)
		}
	}
	if r := s.post("/suppressions/batch/add", key, `{"emails":["b@example.com"]}`); r.status != http.StatusCreated {
		t.Errorf("a request after the budget was freed: %d %s", r.status, r.body)
	}
	got := scrape(t, m)
	if got["shush_request_body_bytes_held_peak"] > budget || got["shush_request_body_bytes_held_peak"] < 3*(server.MaxBody-100) {
		t.Errorf("peak bytes held %v, want at most the cap %d", got["shush_request_body_bytes_held_peak"], budget)
	}
	if got["shush_request_body_refused_total"] != 5 || got["shush_request_body_bytes_held"] != 0 {
		t.Errorf("refused %v (want 5), held now %v (want 0)", got["shush_request_body_refused_total"], got["shush_request_body_bytes_held"])
	}
}

// scrape reads the metrics as a user's Prometheus would, keyed by the
// sample's name with labels.
func scrape(t *testing.T, m *server.Metrics) map[string]float64 {
	t.Helper()
	_, text := scrapeText(t, m)
	out := map[string]float64{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

func scrapeText(t *testing.T, m *server.Metrics) (int, string) {
	t.Helper()
	ts := httptest.NewServer(m.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestMetricsCountByRoutePattern: requests are counted by route pattern
// and status, never by path: an address in a path must not become a
// label.
func TestMetricsCountByRoutePattern(t *testing.T) {
	m := server.NewMetrics()
	if err := m.GaugeFunc("shush_test_outbox_depth", "A gauge another part registers.", func() float64 { return 7 }); err != nil {
		t.Fatal(err)
	}
	s := startService(t, openSQLite(t), server.Options{Rate: 1, Burst: 3, Metrics: m})
	key := s.key("ops", false)
	s.add(key, "x1@example.com", "x2@example.com")
	s.get("/suppressions/secret-person%40example.com", key)
	s.get("/suppressions/x1@example.com", key)
	s.get("/suppressions", key) // the fourth request of the team: 429
	s.get("/nope/deeper", key)  // and the fifth
	got := scrape(t, m)
	want := map[string]float64{
		`shush_http_requests_total{route="POST /suppressions/batch/add",status="201"}`: 1,
		`shush_http_requests_total{route="GET /suppressions/{ref}",status="404"}`:      1,
		`shush_http_requests_total{route="GET /suppressions/{ref}",status="200"}`:      1,
		`shush_rate_limited_total`:                                                   2,
		`shush_batch_items_count{op="add"}`:                                          1,
		`shush_batch_items_sum{op="add"}`:                                            2,
		`shush_store_write_duration_seconds_count{op="add"}`:                         1,
		`shush_test_outbox_depth`:                                                    7,
		`shush_store_pool_connections_max`:                                           8,
		`shush_http_request_duration_seconds_count{route="GET /suppressions/{ref}"}`: 2,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	_, text := scrapeText(t, m)
	if !strings.Contains(text, "# TYPE shush_store_pool_waits_total counter\nshush_store_pool_waits_total 0\n") {
		t.Error("the pool's waits are not the counter shush_store_pool_waits_total")
	}
	if strings.Contains(text, "secret-person") || strings.Contains(text, "x1@example.com") || strings.Contains(text, "/nope") {
		t.Error("a request path became a metric label")
	}
	routes := regexp.MustCompile(`route="([^"]*)"`).FindAllStringSubmatch(text, -1)
	for _, r := range routes {
		if !strings.Contains(r[1], " /") && r[1] != "unmatched" {
			t.Errorf("route label %q is not a pattern", r[1])
		}
	}
}

// TestReadinessFloodIsBounded: the probes need no key, so a flood of them
// must not become a flood of store checks: a healthy store is asked at
// most once a second, however many probes come.
func TestReadinessFloodIsBounded(t *testing.T) {
	m := server.NewMetrics()
	s := startService(t, openSQLite(t), server.Options{Metrics: m})
	start := time.Now()
	errs := make(chan error, 200)
	for i := 0; i < 200; i++ {
		go func() {
			resp, err := http.Get(s.url + "/readyz")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("status %d", resp.StatusCode)
				}
			}
			errs <- err
		}()
	}
	for i := 0; i < 200; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("a probe: %v", err)
		}
	}
	bound := float64(int(time.Since(start)/time.Second) + 1)
	if got := scrape(t, m)["shush_readiness_checks_total"]; got < 1 || got > bound {
		t.Errorf("200 probes made %v store checks, want 1 to %v", got, bound)
	}
}
