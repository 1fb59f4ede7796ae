package cli

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/shushlist/shush/server/store"
)

func TestCheckForAPersonShowsHowFarItGot(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	emails := addresses("many", 1200)
	svc.add(t, emails[0], emails[1199])
	svc.add(t, "@firm.example")
	file := writeFile(t, "crm.txt", strings.Join(append(emails, "jane@firm.example", "bad@"), "\n")+"\n")
	ta := newTestApp(t, svc).terminal("")
	if err := runCheck(ctx, checkOpts(ta, file)); err != nil {
		t.Fatal(err)
	}
	e := ta.err.String()
	if !strings.Contains(e, "\rChecked 1000 of 1201 addresses…") || !strings.HasSuffix(e, "\r\x1b[K") {
		t.Errorf("the progress on stderr %q", e)
	}
	lines := ta.lines()
	if n := len(lines); n < 4 || lines[n-2] != "3 of 1201 addresses on the list." || !strings.HasPrefix(lines[n-1], "Invalid, not looked up: line 1202 \"bad@\"") {
		t.Fatalf("the end of the table:\n%s", strings.Join(lines[max(0, len(lines)-4):], "\n"))
	}
	rows := map[string]string{}
	for _, l := range lines[1 : len(lines)-3] {
		f := fields(l)
		rows[f[0]] = strings.Join(f[1:], " ")
	}
	if !strings.HasPrefix(rows["jane@firm.example"], "listed by @firm.example manual ") || !strings.HasPrefix(rows[emails[0]], "yes manual ") ||
		rows[emails[1]] != "no" || len(rows) != 1201 {
		t.Errorf("rows: jane %q, first %q, second %q, %d rows", rows["jane@firm.example"], rows[emails[0]], rows[emails[1]], len(rows))
	}
}

func TestCheckShowsAnErasedEntry(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := runTeamSet(ctx, &teamSetOptions{app: ta.app, Team: "support", DB: svc.DB, KeepsDomain: true, Given: given("erasure-keeps-domain")}); err != nil {
		t.Fatal(err)
	}
	eraser := svc.Store.(store.Eraser)
	if _, err := eraser.Erase(ctx, "support", store.Change{}, []string{"gone@kept.example"}); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	if err := runCheck(ctx, checkOpts(ta, writeFile(t, "c.txt", "gone@kept.example\n"))); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); len(l) < 2 || !strings.Contains(l[1], "yes — erased entry (domain kept.example)") {
		t.Errorf("check of an erased address:\n%s", ta.out.String())
	}
	got := checked(t, ta, "gone@kept.example")["gone@kept.example"]
	if !got.Listed || !got.Erased || got.ErasedDomain != "kept.example" {
		t.Errorf("check --json of an erased address: %+v", got)
	}
}

// TestCheckOnAServiceWithoutTheBulkCheck: against a service that has no
// POST /suppressions/batch/check (the hosted one), check asks one address
// at a time, says so once, and answers the same.
func TestCheckOnAServiceWithoutTheBulkCheck(t *testing.T) {
	ctx := context.Background()
	svc := newServiceBehind(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/suppressions/batch/check" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"name":"not_found","message":"Route not found.","statusCode":404}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	added := svc.add(t, "a@example.com", "c@example.com")
	ta := newTestApp(t, svc)
	got := checked(t, ta, "a@example.com", "b@example.com", "c@example.com")
	if !got["a@example.com"].Listed || got["a@example.com"].ID != added[0].ID || got["b@example.com"].Listed || !got["c@example.com"].Listed {
		t.Errorf("one at a time: %+v", got)
	}
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runCheck(ctx, checkOpts(ta, writeFile(t, "c.txt", "a@example.com\nb@example.com\n"))); err != nil {
		t.Fatal(err)
	}
	if e := ta.err.String(); strings.Count(e, "has no bulk check") != 1 || !strings.Contains(e, "shush: "+svc.URL+" has no bulk check; looking up each address, paced to its rate limit") {
		t.Errorf("stderr %q", e)
	}
	wantErr(t, runCheck(ctx, &checkOptions{app: ta.app, File: "x", Concurrency: 17}), ExitUsage, "--concurrency must be between 1 and 16, not 17")
}
