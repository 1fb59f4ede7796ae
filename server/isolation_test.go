package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/internal/latency"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/outbox"
	"github.com/shushlist/shush/server/store"
)

// The isolation of teams, measured as the audit measured it: another
// team's everyday requests, one after another, in paired rounds of a
// baseline and an attack, their latency as a ratio to their own baseline
// in the same run. The attacker keeps inside the default rate limit (10
// requests a second, from 4 connections); the service runs as `shush
// serve` does (server.Listen, with its deliverer), at a rate that never
// limits the victim.

// isolationGoal is what the victim's ratios must stay within in a test:
// the service's goal is ×2 at the 99th percentile (docs/benchmarks.md
// measures it, three rounds on each store); a test on two cores shared
// with other work (a load of 5-10 is common here) allows more before it
// calls it a regression, and measures again before it does: the attacks
// it guards against cost ×12 to ×300 at the 99th percentile before their
// fixes.
var isolationGoal = latency.Goal{P50: 3, P99: 4}

// isolationPlan is a test's measure: three rounds of 60 requests a side,
// one every 20 ms (a phase lasts over a second of the attack).
var isolationPlan = latency.Plan{Rounds: 3, Samples: 60, Pace: 20 * time.Millisecond, Warmup: 500 * time.Millisecond,
	Floor: latencyFloor, Deadline: 45 * time.Second}

// isolationTries is how many measures a test takes at most before it
// fails: each takes some 15 s, and one that meets the goal ends it.
const isolationTries = 5

// attackerRate is the attacker's pace: the default rate limit.
const attackerRate = server.DefaultRate

// isolationClient is the victim's and the attacker's client: a request
// that takes longer than this is a failed one.
var isolationClient = &http.Client{Timeout: 5 * time.Second}

// try makes one request and says its status, or why there was none.
func try(s *service, method, path, key, body string) (int, string, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := isolationClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// everyday is the victim team's requests in turn: a look-up by address, a
// one-address add, a check of ten addresses, the first page.
func everyday(s *service, key string) latency.Victim {
	return func(i int) error {
		addr := fmt.Sprintf("victim-%d@beta.example", i)
		var status int
		var body string
		var err error
		switch i % 4 {
		case 0:
			status, body, err = try(s, "GET", "/suppressions/"+url.PathEscape(fmt.Sprintf("victim-%d@beta.example", i-3)), key, "")
			if status == 404 {
				return nil
			}
		case 1:
			status, body, err = try(s, "POST", "/suppressions/batch/add", key, `{"emails":["`+addr+`"]}`)
		case 2:
			emails := make([]string, 10)
			for j := range emails {
				emails[j] = fmt.Sprintf(`"check-%d-%d@beta.example"`, i, j)
			}
			status, body, err = try(s, "POST", "/suppressions/batch/check", key, `{"emails":[`+strings.Join(emails, ",")+`]}`)
		default:
			status, body, err = try(s, "GET", "/suppressions?limit=20", key, "")
		}
		if err != nil {
			return err
		}
		if status/100 != 2 {
			return fmt.Errorf("%d %s", status, strings.TrimSpace(body))
		}
		return nil
	}
}

// paced runs do from conns connections, rate times a second in all,
// until stopped; it counts the statuses it got.
func paced(rate float64, conns int, do func(i int) int) (stop func() map[int]int) {
	quit := make(chan struct{})
	var mu sync.Mutex
	got := map[int]int{}
	var wg sync.WaitGroup
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	jobs := make(chan int)
	wg.Go(func() {
		defer close(jobs)
		for i := 0; ; i++ {
			select {
			case <-quit:
				return
			case <-tick.C:
			}
			select {
			case jobs <- i:
			case <-quit:
				return
			default: // every connection busy: the tick is lost, as a client's would be
			}
		}
	})
	for range conns {
		wg.Go(func() {
			for i := range jobs {
				st := do(i)
				mu.Lock()
				got[st]++
				mu.Unlock()
			}
		})
	}
	return func() map[int]int {
		close(quit)
		tick.Stop()
		wg.Wait()
		return got
	}
}

// isolatedUnder measures the victim under attack and fails the test when
// the goal is missed in every try. The victim's baseline is first taken
// alone, before any attack: harm an attack leaves behind shows against it.
// `go test ./...` runs other packages beside this one, and on PostgreSQL
// their tests share the database server with the measure, in bursts the
// paired rounds do not always catch on both sides: a measure is tried up
// to isolationTries times, and a regression misses the goal in every one.
func isolatedUnder(t *testing.T, name string, s *service, victimKey string, attack func() func() map[int]int) {
	t.Helper()
	victim := everyday(s, victimKey)
	ref := latency.Baseline(isolationPlan, victim)
	var codes map[int]int
	r, ok := latency.Try(isolationTries, isolationGoal, t.Logf, func() latency.Result {
		return latency.Measure(isolationPlan, ref, victim, func() func() {
			stop := attack()
			return func() { codes = stop() }
		})
	})
	t.Logf("%s: the attacker's last round got %v", name, codes)
	if !ok {
		t.Errorf("%s: another team's requests %s; want p50 within ×%.0f and p99 within ×%.0f, every one answered",
			name, r, isolationGoal.P50, isolationGoal.P99)
	}
}

// skipUnderRace skips a measure of latency under the race detector, which
// makes every step of the service five to ten times slower, and unevenly:
// an attacker within the rate limit then fills the single SQLite writer
// on its own, which is not the service's isolation. `go test ./...` (CI's
// first pass) runs these measures.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("latency under attack is measured without the race detector (go test ./... runs it)")
	}
}

// status is the attacker's view of a request: its status, or 0 when it
// got none.
func status(code int, _ string, err error) int {
	if err != nil {
		return 0
	}
	return code
}

// fillNamed lists n addresses prefix-0000000@domain … for the team,
// through the store, 1,000 at a time.
func fillNamed(t *testing.T, st store.Store, team, prefix, domain string, n int) {
	t.Helper()
	for i := 0; i < n; i += 1000 {
		emails := make([]string, min(1000, n-i))
		for j := range emails {
			emails[j] = fmt.Sprintf("%s-%07d@%s", prefix, i+j, domain)
		}
		if _, err := st.Add(context.Background(), team, store.Change{}, store.Manual(emails...)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPrefixSearchCannotStarveOtherTeams (audit H-1): a read-only key
// searches q=big* over its own 100,000 entries at the rate limit. Before,
// each page read and sorted every match (198 ms a request on SQLite), and
// another team's p50 rose ×29–60 and p99 ×2–6. Now a prefix page does
// bounded work, and the team's costly reads draw on its own budget.
func TestPrefixSearchCannotStarveOtherTeams(t *testing.T) {
	skipUnderRace(t)
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		fillNamed(t, st, "alpha", "big", "alpha.example", 100_000)
		s, _ := runService(t, st, server.Config{})
		alpha, beta := s.key("alpha", true), s.key("beta", false)
		quiet(t)
		isolatedUnder(t, "prefix pages of q=big* over 100,000 entries", s, beta, func() func() map[int]int {
			return paced(attackerRate, 4, func(int) int { return status(try(s, "GET", "/suppressions?q=big*&limit=100", alpha, "")) })
		})
	})
}

// TestBulkCheckCannotStarveOtherTeams (audit L-7): a read-only key checks
// 1,000 addresses a request at the rate limit; another team's latency
// holds.
func TestBulkCheckCannotStarveOtherTeams(t *testing.T) {
	skipUnderRace(t)
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		fillNamed(t, st, "alpha", "listed", "alpha.example", 20_000)
		s, _ := runService(t, st, server.Config{})
		alpha, beta := s.key("alpha", true), s.key("beta", false)
		emails := make([]string, 1000)
		for i := range emails {
			emails[i] = fmt.Sprintf(`"listed-%07d@alpha.example"`, i*20)
		}
		body := `{"emails":[` + strings.Join(emails, ",") + `]}`
		quiet(t)
		isolatedUnder(t, "checks of 1,000 addresses", s, beta, func() func() map[int]int {
			return paced(attackerRate, 4, func(int) int { return status(try(s, "POST", "/suppressions/batch/check", alpha, body)) })
		})
	})
}

// TestWebhookFanOutCannotStarveOtherTeams (audit M-2): a team's 20
// webhooks point at an endpoint that hangs, and it adds batches of 100
// new addresses at the rate limit (2,000 events a batch). Before, on
// SQLite, another team's p99 rose ×12–17 (PostgreSQL held, ×1.5).
func TestWebhookFanOutCannotStarveOtherTeams(t *testing.T) {
	skipUnderRace(t)
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		hang := newHangingEndpoint(t, time.Hour)
		s, _ := runService(t, open(t), server.Config{Deliveries: outbox.DelivererConfig{Addresses: loopbackOK, Timeout: 3 * time.Second}})
		alpha, beta := s.key("alpha", false), s.key("beta", false)
		for range server.DefaultMaxWebhooksPerTeam {
			s.createWebhook(alpha, hang.url, "suppression.added")
		}
		var batch int
		var mu sync.Mutex
		quiet(t)
		isolatedUnder(t, "batches of 100 to 20 webhooks that hang", s, beta, func() func() map[int]int {
			return paced(attackerRate, 4, func(int) int {
				mu.Lock()
				batch++
				b := batch
				mu.Unlock()
				emails := make([]string, 100)
				for i := range emails {
					emails[i] = fmt.Sprintf(`"fan-%d-%d@alpha.example"`, b, i)
				}
				return status(try(s, "POST", "/suppressions/batch/add", alpha, `{"emails":[`+strings.Join(emails, ",")+`]}`))
			})
		})
	})
}
