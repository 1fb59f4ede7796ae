package server_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// TestReadBudget: a team's costly reads (here domain searches over its
// list) draw on its budget of work; once spent they get 429 with
// Retry-After and a sentence saying why, while the team's plain pages and
// another team's searches are served.
func TestReadBudget(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		fillNamed(t, st, "alpha", "a", "alpha.example", 3000)
		m := server.NewMetrics()
		s := startService(t, st, server.Options{ReadBudget: time.Millisecond, Metrics: m})
		alpha, beta := s.key("alpha", true), s.key("beta", true)
		var refused reply
		for range 200 {
			if r := s.get("/suppressions?q=@alpha.example&limit=100&created_after=2000-01-01T00:00:00Z", alpha); r.status == http.StatusTooManyRequests {
				refused = r
				break
			} else if r.status != http.StatusOK {
				t.Fatalf("a search: %d %s", r.status, r.body)
			}
		}
		if refused.status == 0 {
			t.Fatal("200 searches within a budget of 1 ms of work a second")
		}
		e := refused.wantError(t, http.StatusTooManyRequests, "rate_limit_exceeded")
		if !strings.Contains(e.Message, "searches, checks and exports have used their share") {
			t.Errorf("the refusal: %q", e.Message)
		}
		wait, err := strconv.Atoi(refused.header.Get("Retry-After"))
		if err != nil || wait < 1 {
			t.Errorf("Retry-After %q; want whole seconds", refused.header.Get("Retry-After"))
		}
		if r := s.get("/suppressions?limit=100", alpha); r.status != http.StatusOK {
			t.Errorf("a plain page of the team whose budget is spent: %d", r.status)
		}
		if r := s.get("/suppressions?q=@alpha.example", beta); r.status != http.StatusOK {
			t.Errorf("another team's search: %d", r.status)
		}
		if got := scrape(t, m)[`shush_team_share_refused_total{limit="read_budget"}`]; got < 1 {
			t.Errorf("refusals for the read budget counted: %v", got)
		}
	})
}
