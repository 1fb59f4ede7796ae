package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/internal/hostedtest"
	"github.com/shushlist/shush/server"
)

// keyFor creates a key of team on the database db and returns it.
func keyFor(t *testing.T, sb *sandbox, db, team string) string {
	t.Helper()
	var k struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal([]byte(sb.run(t, nil, "keys", "create", "--team", team, "--db", db, "--json").want(t, 0).stdout), &k); err != nil {
		t.Fatal(err)
	}
	return k.Key
}

// The questions tickets ask, answered by `shush serve` through the CLI:
// everyone at a law firm (a domain search, and its export), whether 2,500
// addresses of a CRM export are suppressed (a bulk check: three requests,
// streamed as NDJSON), and why an address is listed and until when (a note
// and an expiry given by batch add and add, shown by get, list, check and
// the export).
func TestTheListAnswersQuestions(t *testing.T) {
	sb := newSandbox(t)
	db := filepath.Join(sb.home, "serve.db")
	key := keyFor(t, sb, db, "acme")
	url, serveLog := startServeLogged(t, sb, db)
	agent := sb.with("SHUSH_BASE_URL="+url, "SHUSH_API_KEY="+key)

	var firm []string
	for i := range 30 {
		firm = append(firm, fmt.Sprintf("partner%02d@firm.example", i))
	}
	file := writeFile(t, sb.home, "firm.txt", strings.Join(append(firm, "jane@example.com", "janet@example.com", "x@sub.firm.example"), "\n"))
	r := agent.run(t, nil, "suppressions", "batch", "add", "--file", file, "--note", "=asked on #48213", "--expires", "30d", "--reference", "#48213", "--json").want(t, 0)
	added := decode[struct {
		Data []struct {
			Email     string `json:"email"`
			Outcome   string `json:"outcome"`
			Note      string `json:"note"`
			ExpiresAt string `json:"expires_at"`
		} `json:"data"`
	}](t, r)
	if len(added.Data) != 33 || added.Data[0].Outcome != "added" || added.Data[0].Note != "=asked on #48213" {
		t.Fatalf("batch add: %s", r)
	}
	until, err := time.Parse(time.RFC3339, added.Data[0].ExpiresAt)
	if err != nil || time.Until(until) < 29*24*time.Hour || time.Until(until) > 30*24*time.Hour+time.Minute {
		t.Errorf("30d from now: %q (%v)", added.Data[0].ExpiresAt, err)
	}
	agent.run(t, nil, "suppressions", "add", "full@example.com", "--note", "mailbox full", "--expires", "2099-12-31").want(t, 0)

	// Everyone at the firm: exactly that domain, every page.
	r = agent.run(t, nil, "suppressions", "list", "--search", "@FIRM.example", "--all", "--limit", "7", "--json").want(t, 0)
	var got []string
	for _, e := range decode[struct {
		Data []struct {
			Email string `json:"email"`
		} `json:"data"`
	}](t, r).Data {
		got = append(got, e.Email)
	}
	if !slices.Equal(sorted(got...), firm) {
		t.Errorf("list --search @firm.example --all: %v", got)
	}
	r = agent.run(t, nil, "suppressions", "list", "--search", "jan*").want(t, 0)
	if !strings.Contains(r.stdout, `"janet@example.com"`) || !strings.Contains(r.stdout, `"jane@example.com"`) ||
		strings.Contains(r.stdout, "firm.example") || !strings.Contains(r.stdout, `"note": "=asked on #48213"`) {
		t.Errorf("list --search 'jan*': %s", r)
	}
	for _, bad := range []string{"ja*", "@nodot", "*jane"} {
		r = agent.run(t, nil, "suppressions", "list", "--search", bad).want(t, 2)
		if !strings.Contains(r.stderr, "--search") {
			t.Errorf("--search %s: %s", bad, r)
		}
	}
	r = agent.run(t, nil, "suppressions", "get", "full@example.com").want(t, 0)
	if !strings.Contains(r.stdout, `"note": "mailbox full"`) || !strings.Contains(r.stdout, `"expires_at": "2099-12-31T00:00:00.000Z"`) {
		t.Errorf("get full@: %s", r)
	}

	// The firm's export: its rows alone, with note and expiry, the note a
	// spreadsheet would run kept as text.
	r = agent.run(t, nil, "suppressions", "export", "--search", "@firm.example", "--output", "-").want(t, 0)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != 31 || !strings.HasPrefix(strings.Join(rows[0], ","), "id,email,origin,source_id,created_at,note,expires_at,evidence_provider,") {
		t.Fatalf("export --search: %v %s", err, r)
	}
	if rows[1][5] != "'=asked on #48213" || !strings.HasPrefix(rows[1][6], until.UTC().Format("2006-01-02T15:04")) {
		t.Errorf("an exported row: %q", rows[1])
	}

	// 2,500 addresses of a CRM export, 32 of them listed: three requests,
	// one item a line, as they come.
	crm := []string{"email,name"}
	for i := range 2500 {
		crm = append(crm, fmt.Sprintf("customer%04d@crm.example,Customer %d", i, i))
	}
	crm = append(crm, "jane@example.com,Jane", "full@example.com,Full", "not an address,Broken")
	crmFile := writeFile(t, sb.home, "crm.csv", strings.Join(crm, "\n"))
	checks := strings.Count(serveLog.String(), "/suppressions/batch/check")
	r = agent.run(t, nil, "suppressions", "check", "--file", crmFile, "--format", "ndjson").want(t, 0)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 2502 {
		t.Fatalf("check --format ndjson: %d lines; want one per valid address (2502)", len(lines))
	}
	var last struct {
		Email     string `json:"email"`
		Listed    bool   `json:"listed"`
		Note      string `json:"note"`
		ExpiresAt string `json:"expires_at"`
	}
	if err := json.Unmarshal([]byte(lines[2501]), &last); err != nil || last.Email != "full@example.com" || !last.Listed ||
		last.Note != "mailbox full" || !strings.HasPrefix(last.ExpiresAt, "2099-12-31T00:00:00") {
		t.Errorf("the last line: %s (%v)", lines[2501], err)
	}
	if n := strings.Count(serveLog.String(), "/suppressions/batch/check") - checks; n != 3 {
		t.Errorf("check of 2,502 addresses made %d bulk requests; want 3", n)
	}
	if !strings.Contains(r.stderr, "not an address") {
		t.Errorf("the invalid line is not said: %s", r.stderr)
	}
	r = agent.run(t, nil, "suppressions", "check", "--file", crmFile, "--json").want(t, 0)
	doc := decode[struct {
		Data    []json.RawMessage `json:"data"`
		Invalid []json.RawMessage `json:"invalid"`
	}](t, r)
	if len(doc.Data) != 2502 || len(doc.Invalid) != 1 {
		t.Errorf("check --json: %d items, %d invalid", len(doc.Data), len(doc.Invalid))
	}
	r = agent.run(t, nil, "suppressions", "check", "--file", crmFile, "--format", "table").want(t, 0)
	if !strings.Contains(r.stdout, "2 of 2502 addresses on the list.") || !strings.Contains(squeezed(r.stdout), "full@example.com yes manual") {
		t.Errorf("check's table: %s", r.stdout[max(0, len(r.stdout)-600):])
	}
}

// squeezed collapses the runs of spaces a table aligns columns with.
func squeezed(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// Against the hosted service (which has neither q nor the bulk check) the
// CLI says it does not search, rather than show its whole list, and checks
// one address at a time, saying so.
func TestAnswersAgainstTheHostedService(t *testing.T) {
	hosted := hostedtest.Start(t)
	hosted.Add("a@firm.example", "b@example.com")
	sb := newSandbox(t).with("SHUSH_BASE_URL="+hosted.URL, "SHUSH_API_KEY=re_test")
	r := sb.run(t, nil, "suppressions", "list", "--search", "@firm.example").want(t, 1)
	if !strings.Contains(r.stderr, "does not search its list") || strings.Contains(r.stdout, "b@example.com") {
		t.Errorf("list --search on the hosted service: %s", r)
	}
	file := writeFile(t, sb.home, "ask.txt", "a@firm.example\nnobody@example.com\nb@example.com\n")
	r = sb.run(t, nil, "suppressions", "check", "--file", file, "--format", "ndjson").want(t, 0)
	var listed []string
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var it struct {
			Email  string `json:"email"`
			Listed bool   `json:"listed"`
		}
		if err := json.Unmarshal([]byte(l), &it); err != nil {
			t.Fatal(err)
		}
		if it.Listed {
			listed = append(listed, it.Email)
		}
	}
	if !slices.Equal(listed, []string{"a@firm.example", "b@example.com"}) || !strings.Contains(r.stderr, "has no bulk check") {
		t.Errorf("check on the hosted service: listed %v: %s", listed, r)
	}
}

// --jq filters check's JSON document; NDJSON is not one, and is refused
// with it rather than filtered a line at most.
func TestCheckFormats(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	sb.run(t, nil, "suppressions", "add", "a@example.com").want(t, 0)
	file := writeFile(t, sb.home, "ask.txt", "a@example.com\nb@example.com\n")
	r := sb.run(t, nil, "suppressions", "check", "--file", file, "--jq", ".data[] | select(.listed) | .email").want(t, 0)
	if strings.TrimSpace(r.stdout) != "a@example.com" {
		t.Errorf("check --jq: %s", r)
	}
	sb.run(t, nil, "suppressions", "check", "--file", file, "--jq", ".", "--format", "ndjson").want(t, 2)
	sb.run(t, nil, "suppressions", "check", "--file", file, "--format", "xml").want(t, 2)
}
