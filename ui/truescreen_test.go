package ui

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
)

// A read-only key is in the header, and the review says before anything
// is typed that the service would refuse the run; nothing is sent.
func TestReadOnlyKeyIsSaidBeforeTyping(t *testing.T) {
	var sends atomic.Int32
	svc := servicetest.Start(t, server.Options{Rate: 1e6}, countSends(&sends))
	_, ro, err := server.CreateKey(context.Background(), svc.Store, svc.Team, true)
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, client.New(svc.URL, ro, client.WithRetry(1, time.Millisecond, time.Millisecond)), 120, 30)
	h.mustSee("· answers · key read-only · profile default · key shush_ab…wxyz")
	h.paste("bob@example.com")
	h.keys("ctrl+s")
	h.mustSee("Review · add", "This key is read-only: the service will refuse to change the list.")
	h.typeText("add")
	h.keys("enter")
	h.mustSee("Nothing was sent: the service would refuse this key (see above).")
	h.keys("ctrl+s")
	if n := sends.Load(); n != 0 {
		t.Errorf("%d batches were sent with a read-only key", n)
	}
}

// A key the service does not know (revoked) is said in the header and in
// the review; the service is not said to be down.
func TestRevokedKeyIsSaidBeforeTyping(t *testing.T) {
	svc := servicetest.Start(t, server.Options{Rate: 1e6})
	h := newHarness(t, client.New(svc.URL, "re_revoked_key", client.WithRetry(1, time.Millisecond, time.Millisecond)), 140, 30)
	h.mustSee("✗ refuses the key: 403 invalid_api_key · profile default · key shush_ab…wxyz")
	h.mustNotSee("not answering")
	h.paste("bob@example.com")
	h.keys("ctrl+s")
	h.mustSee("The service refuses this key (403 invalid_api_key")
}

// The header says the service does not answer while it does not, asks
// again on its own while it fails, and clears the moment a request
// succeeds.
func TestHeaderStaysTrue(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down.Load() {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `{"statusCode":503,"name":"service_unavailable","message":"the store is unavailable"}`)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	h := newHarness(t, svc, 120, 30)
	h.mustSee("✗ not answering: 503 service_unavailable")
	// The next probe is due within probeFailingEvery; it is sent here by
	// hand (the harness has no clock), and it still fails.
	h.send(probeMsg{h.m.health.seq})
	h.mustSee("✗ not answering")
	down.Store(false)
	h.send(probeMsg{h.m.health.seq})
	h.mustSee("· answers ·")
	h.mustNotSee("not answering", "does not answer")

	// Down again: a request of a screen that succeeds clears it at once,
	// with no probe in between.
	down.Store(true)
	h.send(probeMsg{h.m.health.seq})
	h.mustSee("✗ not answering")
	down.Store(false)
	h.paste("back@example.com")
	h.keys("ctrl+s")
	h.mustSee("Preview: 1 new")
	h.mustSee("· answers ·")
}

// A run the service paused reads "paused" on its results, in History and
// when it is offered again; it is never called cancelled.
func TestPausedStaysPaused(t *testing.T) {
	var adds atomic.Int32
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if batchSend(r) && adds.Add(1) > 1 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadGateway)
				io.WriteString(w, `{"statusCode":502,"name":"bad_gateway","message":"upstream is down"}`)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	h := newHarness(t, svc, 120, 30)
	var b strings.Builder
	for i := range 600 {
		fmt.Fprintf(&b, "p%04d@example.com\n", i)
	}
	h.paste(b.String())
	h.keys("ctrl+s", "ctrl+s")
	run := h.results()
	if run.State != batch.Paused {
		t.Fatalf("state %s, counts %v", run.State, run.Counts)
	}
	h.mustSee("paused · 600 entries:", "Paused after 3 batches in a row failed")
	h.keys("down")
	h.mustSee("200 entries were not sent (paused: the service stopped taking them); R sends them.")
	h.mustNotSee("cancelled")
	h.keys("f3")
	h.mustSee("paused · 100 added")
}

// The results, an export and History keep what the run did not send,
// with why: the invalid entries and the ticket's requester.
func TestResultsKeepWhatWasNotSent(t *testing.T) {
	svc := service(t, nil)
	home := t.TempDir()
	t.Setenv(config.EnvExportDir, home)
	h := newHarness(t, svc, 120, 30)
	h.paste("From: Jane Doe <jane@customer.test>\n\nPlease stop mailing bob@example.com and bob@@example.com.\n")
	h.keys("ctrl+s", "ctrl+s")
	run := h.results()
	if len(run.Invalid) != 1 || len(run.LeftOut) != 1 {
		t.Fatalf("invalid %v, left out %v", run.Invalid, run.LeftOut)
	}
	h.mustSee("1 entry: 1 added · 1 invalid · 1 left out", "bob@@example.com", "invalid, not sent:",
		"jane@customer.test", "left out, not sent:")
	h.keys("w", "enter")
	files, _ := filepath.Glob(filepath.Join(home, "*.csv"))
	if len(files) != 1 {
		t.Fatalf("export: %v", files)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("export rows %v, %v", rows, err)
	}
	got := map[string][]string{}
	for _, r := range rows[1:] {
		got[r[0]] = r
	}
	if r := got["bob@@example.com"]; r == nil || r[2] != "invalid" || !strings.Contains(r[4], "line 3") {
		t.Errorf("the invalid row: %q", r)
	}
	if r := got["jane@customer.test"]; r == nil || r[2] != "left_out" || r[4] == "" {
		t.Errorf("the left-out row: %q", r)
	}
	// History, and the run opened from it, say the same.
	h.keys("f3")
	h.mustSee("1 added · 1 invalid · 1 l")
	h.keys("enter")
	h.mustSee("jane@customer.test", "left out, not sent:")
}
