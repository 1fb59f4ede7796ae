package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/intake"
	"github.com/shushlist/shush/server/intake/intaketest"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlite"
	"github.com/shushlist/shush/server/store/storetest"
)

// intakeBurst is how many requests one half of an iteration sends, from
// benchClients clients at once.
const intakeBurst = 64

// BenchmarkIntakeCost pairs the cost of taking in a provider's event (a
// signed request of one permanent bounce, the five providers in turn:
// the signature checked, the event classified, recorded against replays
// and its address listed with its evidence) with the cost of adding the
// same kind of new address by batch add, one address a request as the
// providers send their events, 8 clients at once, over loopback HTTP, in
// alternating order within each iteration: µs an address, and the ratio
// (intake / batch add). batch100 pairs it with a batch add of 100
// addresses a request instead, per address. On SQLite, and on PostgreSQL
// when SHUSH_TEST_POSTGRES names a server.
func BenchmarkIntakeCost(b *testing.B) {
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			env := newIntakeBench(b, openBench(b, name))
			b.Run("batch1", func(b *testing.B) {
				storetest.Alternate(b, "batch-add", "intake", "ratio",
					func(int) time.Duration { return env.batchAdd(b, 1) }, func(int) time.Duration { return env.intake(b) })
			})
			b.Run("batch100", func(b *testing.B) {
				storetest.Alternate(b, "batch-add", "intake", "ratio",
					func(int) time.Duration { return env.batchAdd(b, api.MaxBatch) }, func(int) time.Duration { return env.intake(b) })
			})
		})
	}
}

// openBench opens a fresh store of the dialect for a benchmark: a SQLite
// file, or a schema of its own on the PostgreSQL server
// SHUSH_TEST_POSTGRES names (skipping without it).
func openBench(b *testing.B, dialect string) store.Store {
	b.Helper()
	var st store.Store
	var err error
	if dialect == "sqlite" {
		st, err = sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	} else {
		st, err = postgres.Open(context.Background(), pgtest.DSN(b))
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// intakeBench is a service with a key and an endpoint per provider.
type intakeBench struct {
	url, key string
	p        *mixedProviders
	client   *http.Client
	n        int
}

func newIntakeBench(b *testing.B, st store.Store) *intakeBench {
	sns := intaketest.NewSNS(b)
	ts := httptest.NewServer(server.New(st, server.Options{Rate: 1e9, Intake: intake.ReceiverOptions{SNSClient: sns.Client}}))
	b.Cleanup(ts.Close)
	_, key, err := server.CreateKey(context.Background(), st, "bench", false)
	if err != nil {
		b.Fatal(err)
	}
	s := &service{t: b, st: st, url: ts.URL}
	env := &intakeBench{url: ts.URL, key: key, p: newMixedProviders(b, s, key, sns),
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients, MaxConnsPerHost: benchClients}}}
	b.Cleanup(env.client.CloseIdleConnections)
	return env
}

// burst sends the requests from benchClients clients at once and returns
// the time it took; a request that is not answered 2xx fails b.
func (e *intakeBench) burst(b *testing.B, reqs []*http.Request) time.Duration {
	work := make(chan *http.Request, len(reqs))
	for _, r := range reqs {
		work <- r
	}
	close(work)
	var failed error
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for range benchClients {
		wg.Go(func() {
			for r := range work {
				resp, err := e.client.Do(r)
				if err == nil {
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode/100 != 2 {
						err = fmt.Errorf("%s %s: %d %s", r.Method, r.URL.Path, resp.StatusCode, body)
					}
				}
				if err != nil {
					mu.Lock()
					failed = err
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	if failed != nil {
		b.Fatal(failed)
	}
	return took
}

// batchAdd adds intakeBurst new addresses, size a request, and returns
// the time an address took.
func (e *intakeBench) batchAdd(b *testing.B, size int) time.Duration {
	reqs := make([]*http.Request, 0, intakeBurst)
	for range max(intakeBurst/size, 1) {
		emails := make([]string, size)
		for i := range emails {
			e.n++
			emails[i] = fmt.Sprintf("add%08d@example.com", e.n)
		}
		body, _ := json.Marshal(api.BatchAddRequest{Emails: emails})
		req, _ := http.NewRequest(http.MethodPost, e.url+"/suppressions/batch/add", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+e.key)
		req.Header.Set("Content-Type", "application/json")
		reqs = append(reqs, req)
	}
	return e.burst(b, reqs) / time.Duration(max(intakeBurst/size, 1)*size)
}

// intake sends intakeBurst signed permanent bounces of new addresses, the
// providers in turn (SendGrid's one event a request), and returns the
// time an event took.
func (e *intakeBench) intake(b *testing.B) time.Duration {
	e.p.signedAt = time.Now()
	providers := api.Providers()
	reqs := make([]*http.Request, intakeBurst)
	for i := range reqs {
		e.n++
		m := e.p.request(providers[e.n%len(providers)], false, []mixedEvent{{email: fmt.Sprintf("in%08d@example.com", e.n), kind: kindPermanent}}, fmt.Sprint("b", e.n))
		req, _ := http.NewRequest(m.method, m.url, bytes.NewReader(m.body))
		req.Header = m.header
		reqs[i] = req
	}
	return e.burst(b, reqs) / intakeBurst
}
