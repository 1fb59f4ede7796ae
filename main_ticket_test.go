package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// A read-only key's run is refused at its first batch: nothing more is
// sent, the key's refusal is said with exit status 4 and no command to
// finish the run, the run reads "refused", and it is never resumed.
func TestRefusedKeyLeavesNoRunToResume(t *testing.T) {
	t.Parallel()
	var batches atomic.Int32
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/suppressions/batch/") {
				batches.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	_, ro, err := server.CreateNamedKey(context.Background(), svc.store, svc.team, "auditor", true)
	if err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t).with("SHUSH_BASE_URL="+svc.url, "SHUSH_API_KEY="+ro)
	var body strings.Builder
	for i := range 350 {
		fmt.Fprintf(&body, "ro%04d@example.com\n", i)
	}
	in := writeFile(t, sb.home, "in.txt", body.String())
	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", in).want(t, 4)
	if !strings.Contains(r.stderr, "refused this key") || !strings.Contains(r.stderr, "read-only") || strings.Contains(r.stderr, "--resume") {
		t.Errorf("the refusal: %s", r)
	}
	if n := batches.Load(); n != 1 {
		t.Errorf("%d batch requests; want the first only (a refused key is refused again)", n)
	}
	list := decode[struct{ Data []struct{ ID, State string } }](t, sb.run(t, nil, "runs", "list", "--json").want(t, 0))
	if len(list.Data) != 1 || list.Data[0].State != "refused" {
		t.Fatalf("runs: %+v", list.Data)
	}
	r = sb.run(t, nil, "runs", "resume", list.Data[0].ID).want(t, 2)
	if !strings.Contains(r.stderr, "refused by the service") || batches.Load() != 1 {
		t.Errorf("resuming a refused run: %s (%d batch requests)", r, batches.Load())
	}
	// --resume finds nothing to finish: the run of the same file is not
	// offered, and the new one is refused in turn.
	r = sb.run(t, nil, "suppressions", "batch", "add", "--file", in, "--resume").want(t, 4)
	if !strings.Contains(r.stderr, "No interrupted add run") {
		t.Errorf("--resume after a refusal: %s", r)
	}
}

// A stopped run is offered to --resume only under the profile and key
// that started it: another key starts a run of its own.
func TestResumeIsOfferedOnlyToTheSameKey(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/suppressions/batch/") && down.Load() {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadGateway)
				fmt.Fprint(w, `{"statusCode":502,"name":"bad_gateway","message":"upstream is down"}`)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	down.Store(true)
	sb := newSandbox(t).at(svc)
	in := writeFile(t, sb.home, "in.txt", "k1@example.com\nk2@example.com\n")
	sb.run(t, nil, "suppressions", "batch", "add", "--file", in).want(t, 1)
	down.Store(false)

	_, other, err := server.CreateNamedKey(context.Background(), svc.store, svc.team, "colleague", false)
	if err != nil {
		t.Fatal(err)
	}
	osb := sb.with("SHUSH_API_KEY=" + other)
	r := osb.run(t, nil, "suppressions", "batch", "add", "--file", in, "--resume").want(t, 0)
	if !strings.Contains(r.stderr, "No interrupted add run") {
		t.Errorf("another key resumed the run: %s", r)
	}
	list := decode[struct {
		Data []struct {
			ID, State      string
			KeyFingerprint string `json:"key_fingerprint"`
		}
	}](t, sb.run(t, nil, "runs", "list", "--json").want(t, 0))
	if len(list.Data) != 2 || list.Data[1].State == "finished" || list.Data[0].KeyFingerprint == list.Data[1].KeyFingerprint ||
		list.Data[0].KeyFingerprint == "" || strings.Contains(list.Data[1].KeyFingerprint, svc.key) {
		t.Fatalf("runs: %+v", list.Data)
	}
	r = sb.run(t, nil, "suppressions", "batch", "add", "--file", in, "--resume").want(t, 0)
	if !strings.Contains(r.stderr, "Resuming the run of") {
		t.Errorf("the key that started the run did not resume it: %s", r)
	}
}

// What a run left out (invalid entries, the ticket's requester) is kept
// with the run and told with its reasons by runs show (here its JSON; the
// words are TestOnATerminal's).
func TestRunKeepsWhatItLeftOut(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	ticket := "From: Jane Doe <jane@customer.test>\n\nPlease stop mailing bob@example.com and bob@@example.com.\n"
	in := writeFile(t, sb.home, "ticket.txt", ticket)
	sb.run(t, nil, "suppressions", "batch", "add", "--file", in).want(t, 0)
	list := decode[struct{ Data []struct{ ID string } }](t, sb.run(t, nil, "runs", "list", "--json").want(t, 0))
	if len(list.Data) != 1 {
		t.Fatalf("runs: %+v", list.Data)
	}
	doc := decode[struct {
		Data    []struct{ Email string }
		Invalid []struct{ Entry, Problem string }
		LeftOut []struct{ Email, Reason string } `json:"left_out"`
	}](t, sb.run(t, nil, "runs", "show", list.Data[0].ID, "--json").want(t, 0))
	if len(doc.Data) != 1 || len(doc.Invalid) != 1 || doc.Invalid[0].Entry != "bob@@example.com" || doc.Invalid[0].Problem == "" ||
		len(doc.LeftOut) != 1 || doc.LeftOut[0].Email != "jane@customer.test" || doc.LeftOut[0].Reason == "" {
		t.Errorf("runs show --json: %+v", doc)
	}
}

// The single add and remove take --reference, and the trail keeps it.
func TestSingleChangesTakeAReference(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	sb.run(t, nil, "suppressions", "add", "one@example.com", "--reference", "T-5521").want(t, 0)
	sb.run(t, nil, "suppressions", "remove", "one@example.com", "--yes", "--reference", "T-5522").want(t, 0)
	for _, ref := range []string{"T-5521", "T-5522"} {
		trail, _, err := svc.store.Audit(context.Background(), svc.team, store.AuditQuery{Reference: ref, Limit: 10})
		if err != nil || len(trail) != 1 {
			t.Errorf("the trail under %s: %+v, %v", ref, trail, err)
		}
	}
	sb.run(t, nil, "suppressions", "add", "two@example.com", "--reference", "bad\u202eref").want(t, 2)
	if got := svc.emails(t); len(got) != 0 {
		t.Errorf("a refused --reference still changed the list: %v", got)
	}
}
