package batch_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/hostedtest"
)

// benchAddresses is how many addresses each parse benchmark reads per op;
// one in ten is a duplicate that differs only in case.
const benchAddresses = 100_000

func lineInput() string {
	var b strings.Builder
	for i := range benchAddresses {
		if i%10 == 9 {
			fmt.Fprintf(&b, "First.Last%d@Example.com\r\n", i-1)
			continue
		}
		fmt.Fprintf(&b, "first.last%d@example.com\r\n", i)
	}
	return b.String()
}

func ticketInput() string {
	var b strings.Builder
	for i := range benchAddresses {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&b, "> On Monday Jane Doe <Jane.Doe%d@Example.com> wrote:\n", i)
		case 1:
			fmt.Fprintf(&b, "please remove mailto:user%d@example.org?subject=unsubscribe, ", i)
		case 2:
			fmt.Fprintf(&b, "\"Smith, Bob\" <bob%d@example.net>; ", i)
		default:
			fmt.Fprintf(&b, "and carol%d@example.com too.\n", i)
		}
	}
	return b.String()
}

// BenchmarkReadLines measures read + normalize + de-duplicate of a plain
// list (one address per line, CRLF) into a plan.
func BenchmarkReadLines(b *testing.B) {
	in := lineInput()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for b.Loop() {
		items, err := batch.Read(strings.NewReader(in), "list.txt", batch.Add)
		if err != nil {
			b.Fatal(err)
		}
		p := batch.NewInput(batch.Add, items)
		if p.Len() != benchAddresses-benchAddresses/10 {
			b.Fatalf("%d values", p.Len())
		}
	}
	b.ReportMetric(float64(benchAddresses)*float64(b.N)/b.Elapsed().Seconds(), "addresses/s")
}

// BenchmarkParseText measures ParseText + plan on text pasted from tickets
// (display names, mailto links, quoted replies, mixed separators).
func BenchmarkParseText(b *testing.B) {
	in := ticketInput()
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for b.Loop() {
		p := batch.NewInput(batch.Add, batch.ParseText(in, batch.Add))
		if p.Len() != benchAddresses {
			b.Fatalf("%d values", p.Len())
		}
	}
	b.ReportMetric(float64(benchAddresses)*float64(b.N)/b.Elapsed().Seconds(), "addresses/s")
}

// BenchmarkPacedImport adds 5,000 addresses (50 batches) to the real
// service limited to 10 requests/s and reports the elapsed seconds and the
// 429 answers. Run it with -benchtime 1x.
func BenchmarkPacedImport(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		svc := startService(b, 10)
		c := client.New(svc.URL, svc.Key)
		plan := planOf(batch.Add, addresses(fmt.Sprintf("paced%d-", b.N), 5000))
		// Let the bucket fill as it would for a run that starts cold.
		time.Sleep(time.Second)
		b.StartTimer()
		start := time.Now()
		rep, _, err := sendPlan(context.Background(), &batch.Runs{Client: c}, plan, nil)
		elapsed := time.Since(start)
		if err != nil || !rep.Complete() {
			b.Fatalf("Run: %v %v", err, rep.Failed)
		}
		b.ReportMetric(elapsed.Seconds(), "s/import")
		b.ReportMetric(float64(svc.gate.limited.Load()), "429s")
	}
}

// BenchmarkTruthAtRateLimit adds 2,000 new addresses (20 batches) to the
// hosted service's double limited to 2 requests a second, with the truth
// established (every address's ID and whether the run made it), and
// pairs it with the floor in the same iteration: the 20 batch adds alone,
// through the same client, against a fresh double with the same limit.
// It reports the medians over the iterations of both times, their ratio
// and the requests per batch. Run it with -benchtime 3x (about 50 s an
// iteration).
//
// It pairs the run with a second floor too, the pairing floor: the fewest
// requests that pair each of the 2,000 IDs with its address without
// guessing, against the hosted interface (a batch answer names no address;
// a list page pairs at most 100): the 20 batch adds, a list page of 100
// after each, and one mark before the first (an already listed address's
// ID could top the first page). x-pairing-floor is the run against it.
func BenchmarkTruthAtRateLimit(b *testing.B) {
	const n, rate = 2000, 2
	var floors, pairings, runs, ratios, pairRatios, perBatch []float64
	refused := int64(0)
	for i := 0; b.Loop(); i++ {
		values := addresses(fmt.Sprintf("rate%d-", i), n)
		plan := planOf(batch.Add, values)

		h := hostedtest.Start(b)
		h.SetRate(rate)
		c := client.New(h.URL, "re_test_key")
		start := time.Now()
		for _, part := range plan.Batches() {
			if _, err := c.BatchAdd(context.Background(), part); err != nil {
				b.Fatal(err)
			}
		}
		floor := time.Since(start)
		refused += h.Refused.Load()

		h = hostedtest.Start(b)
		h.SetRate(rate)
		c = client.New(h.URL, "re_test_key")
		start = time.Now()
		if _, err := c.List(context.Background(), client.ListParams{Limit: 1}); err != nil {
			b.Fatal(err)
		}
		for _, part := range plan.Batches() {
			if _, err := c.BatchAdd(context.Background(), part); err != nil {
				b.Fatal(err)
			}
			if _, err := c.List(context.Background(), client.ListParams{Limit: 100}); err != nil {
				b.Fatal(err)
			}
		}
		pairing := time.Since(start)
		refused += h.Refused.Load()

		h = hostedtest.Start(b)
		h.SetRate(rate)
		start = time.Now()
		rep, _, err := sendPlan(context.Background(), &batch.Runs{Client: client.New(h.URL, "re_test_key")}, plan, nil)
		run := time.Since(start)
		if err != nil || rep.Count()[batch.Added] != n {
			b.Fatalf("Run: %v %v", err, rep.Count())
		}
		truth := h.Truth()
		for _, res := range rep.Results {
			if res.ID != truth[res.Input] {
				b.Fatalf("%s got %s; the service holds %s", res.Input, res.ID, truth[res.Input])
			}
		}
		refused += h.Refused.Load()
		floors, pairings, runs = append(floors, floor.Seconds()), append(pairings, pairing.Seconds()), append(runs, run.Seconds())
		ratios = append(ratios, run.Seconds()/floor.Seconds())
		pairRatios = append(pairRatios, run.Seconds()/pairing.Seconds())
		perBatch = append(perBatch, float64(h.Total())/float64(len(plan.Batches())))
		b.Logf("round %d: floor %.2f s, pairing floor %.2f s, run %.2f s (%.2fx the floor, %.2fx the pairing floor), %d requests",
			i+1, floor.Seconds(), pairing.Seconds(), run.Seconds(), ratios[i], pairRatios[i], h.Total())
	}
	b.ReportMetric(median(floors), "s/floor")
	b.ReportMetric(median(pairings), "s/pairing-floor")
	b.ReportMetric(median(runs), "s/run")
	b.ReportMetric(median(ratios), "x-floor")
	b.ReportMetric(median(pairRatios), "x-pairing-floor")
	b.ReportMetric(median(perBatch), "requests/batch")
	b.ReportMetric(float64(refused), "429s")
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
