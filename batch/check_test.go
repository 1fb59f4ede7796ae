package batch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/hostedtest"
)

// TestCheckerBulk: 2,500 addresses in three bulk requests, each chunk's
// answer handed on in order as it comes, every address paired with its
// own entry.
func TestCheckerBulk(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	ctx := context.Background()
	values := addresses("chk", 2500)
	listed := map[string]string{}
	for _, v := range []int{0, 999, 1000, 2499} {
		got, err := c.BatchAdd(ctx, []string{values[v]})
		if err != nil {
			t.Fatal(err)
		}
		listed[values[v]] = got[0].ID
	}
	before := svc.gate.batches.Load()
	k := &batch.Checker{Client: c}
	var starts []int
	var found []batch.Found
	err := k.CheckAll(ctx, values, func(start int, got []batch.Found) error {
		starts = append(starts, start)
		found = append(found, got...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := svc.gate.batches.Load() - before; n != 3 || !slices.Equal(starts, []int{0, 1000, 2000}) || !k.Bulk() {
		t.Errorf("%d requests, chunks at %v; want 3 bulk requests of 1,000", n, starts)
	}
	if len(found) != len(values) {
		t.Fatalf("%d answers for %d addresses", len(found), len(values))
	}
	for i, f := range found {
		id, want := listed[values[i]]
		if f.Input != values[i] || f.Err != nil || f.Listed != want || f.Listed && (f.Entry.ID != id || f.Entry.Email != values[i]) {
			t.Fatalf("answer %d: %+v; want %s listed=%v %s", i, f, values[i], want, id)
		}
	}
}

// TestCheckerPairsByAddress: an answer in another order than the
// request's, and one that leaves an address out, are paired with the
// addresses by the address each item names: never by position.
func TestCheckerPairsByAddress(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	values := addresses("pair", 6)
	ids := map[string]string{}
	for _, v := range []string{values[1], values[4]} {
		got, err := c.BatchAdd(context.Background(), []string{v})
		if err != nil {
			t.Fatal(err)
		}
		ids[v] = got[0].ID
	}
	for _, leaveOut := range []bool{false, true} {
		svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
			if r.URL.Path != "/suppressions/batch/check" {
				return false
			}
			rec := httptest.NewRecorder()
			svc.gate.next.ServeHTTP(rec, r)
			var resp api.CheckResponse
			if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || len(resp.Data) != len(values) {
				t.Errorf("the check answered %d %s", rec.Code, rec.Body)
				return false
			}
			// Turned around: each item where another address was asked.
			slices.Reverse(resp.Data)
			if leaveOut {
				resp.Data = slices.DeleteFunc(resp.Data, func(it api.CheckItem) bool { return it.Email == values[4] })
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rec.Code)
			json.NewEncoder(w).Encode(resp)
			return true
		})
		found, err := (&batch.Checker{Client: c}).Check(context.Background(), values)
		if err != nil {
			t.Fatal(err)
		}
		for i, f := range found {
			id, listed := ids[values[i]]
			switch {
			case leaveOut && i == 4:
				if f.Input != values[i] || f.Err == nil || f.Listed {
					t.Errorf("left out: the answer of %s = %+v; want an error of its own", values[i], f)
				}
			case f.Input != values[i] || f.Err != nil || f.Listed != listed || f.Listed && (f.Entry.ID != id || f.Entry.Email != values[i]):
				t.Errorf("left out %v: the answer of %s = %+v; want listed=%v %s", leaveOut, values[i], f, listed, id)
			}
		}
	}
}

// TestCheckerFallsBackToLookups: against a service without the bulk check
// (the hosted one), the checker looks each address up, in small chunks so
// that progress shows, and keeps to look-ups after the first 404.
func TestCheckerFallsBackToLookups(t *testing.T) {
	h := hostedtest.Start(t)
	ids := h.Add("a@example.com", "c@example.com")
	c := client.New(h.URL, "re_test", client.WithRetry(2, time.Millisecond, 5*time.Millisecond))
	values := append([]string{"a@example.com", "b@example.com", "c@example.com"}, addresses("x", 120)...)
	k := &batch.Checker{Client: c, Concurrency: 4}
	var chunks atomic.Int32
	var found []batch.Found
	err := k.CheckAll(context.Background(), values, func(start int, got []batch.Found) error {
		if start != len(found) {
			t.Errorf("a chunk starts at %d after %d answers", start, len(found))
		}
		chunks.Add(1)
		found = append(found, got...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if k.Bulk() || chunks.Load() != 3 {
		t.Errorf("bulk=%v, %d chunks; want look-ups in chunks of %d", k.Bulk(), chunks.Load(), batch.FallbackChunk)
	}
	if !found[0].Listed || found[0].Entry.ID != ids["a@example.com"] || found[1].Listed || !found[2].Listed || found[3].Listed {
		t.Errorf("answers: %+v", found[:4])
	}
	n, _ := h.Requests.Load("POST /suppressions/batch/check")
	if got := n.(*atomic.Int64).Load(); got != 1 {
		t.Errorf("the bulk check was tried %d times; want once", got)
	}
}

func TestParseExpiry(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in, want string
		never    bool
	}{
		{"", "", true},
		{"never", "", true},
		{"30d", "2026-12-24T12:00:00Z", false},
		{"12h", "2026-11-25T00:00:00Z", false},
		{"2026-12-31", "2026-12-31T00:00:00Z", false},
		{"2026-12-31T18:00:00+01:00", "2026-12-31T17:00:00Z", false},
	} {
		e, err := batch.ParseExpiry(c.in)
		if err != nil || e.Never() != c.never || !c.never && e.At(now).Format(time.RFC3339) != c.want {
			t.Errorf("ParseExpiry(%q) = %v (at %v), %v; want %s", c.in, e, e.At(now), err, c.want)
		}
		if again, err := batch.ParseExpiry(e.String()); err != nil || again.At(now) != e.At(now) {
			t.Errorf("%q reads back as %v, %v", e.String(), again, err)
		}
	}
	for _, in := range []string{"0d", "-3d", "tomorrow", "30 days", "2026-13-01", "-1h"} {
		if _, err := batch.ParseExpiry(in); err == nil || !strings.Contains(err.Error(), in) {
			t.Errorf("ParseExpiry(%q): %v; want an error naming it", in, err)
		}
	}
}

// TestRunAddsWithNoteAndExpiry: a run's note and expiry go with every
// entry it sends, a resume's too; the results say what the service holds
// (a listed entry keeps its note and its later expiry), and the run's
// record keeps both.
func TestRunAddsWithNoteAndExpiry(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	ctx := context.Background()
	later := time.Now().Add(90 * 24 * time.Hour).UTC().Truncate(time.Millisecond)
	if _, err := c.BatchAddEntries(ctx, []api.NewEntry{{Email: "old@example.com", Note: new("first"), ExpiresAt: &api.Timestamp{Time: later}}}); err != nil {
		t.Fatal(err)
	}
	at, err := batch.ExpiresAt(ctx, c, mustExpiry(t, "30d"))
	if err != nil {
		t.Fatal(err)
	}
	rs := &batch.Runs{Dir: t.TempDir(), Client: c, Source: "cli"}
	ri, err := rs.Start(ctx, planOf(batch.Add, []string{"new@example.com", "old@example.com"}).Input(),
		batch.RunMeta{Reference: "#48213", Note: "asked on #48213", ExpiresAt: at}, batch.Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if ri.EntryNote != "asked on #48213" || !ri.EntryExpiresAt.Equal(at) {
		t.Errorf("the run's record: note %q, expiry %v", ri.EntryNote, ri.EntryExpiresAt)
	}
	var res []batch.Result
	if _, err := rs.Read(ri.ID, func(r batch.Report) error { res = append(res, r.Results...); return nil }); err != nil {
		t.Fatal(err)
	}
	if res[0].Note != "asked on #48213" || !res[0].ExpiresAt.Equal(at) || res[1].Note != "first" || !res[1].ExpiresAt.Equal(later) {
		t.Errorf("results: %+v; want new@ with the run's note and expiry, old@ keeping its own", res)
	}
	e, err := c.Get(ctx, "new@example.com")
	if err != nil || e.Note == nil || *e.Note != "asked on #48213" || e.ExpiresAt == nil || !e.ExpiresAt.Equal(at) {
		t.Errorf("new@ on the list: %+v, %v", e, err)
	}
}

func mustExpiry(t *testing.T, s string) batch.Expiry {
	t.Helper()
	e, err := batch.ParseExpiry(s)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
