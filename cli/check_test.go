package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
)

func checkOpts(ta *testApp, file string) *checkOptions {
	return &checkOptions{app: ta.app, File: file, Concurrency: 4}
}

func TestCheckSaysWhichAreListed(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	added := svc.add(t, "a@example.com")
	file := writeFile(t, "list.txt", "a@example.com\nb@example.com\nc@@x\n")
	ta := newTestApp(t, svc)
	if err := runCheck(ctx, checkOpts(ta, file)); err != nil {
		t.Fatal(err)
	}
	var doc checkJSON
	ta.decode(t, &doc)
	if doc.Object != "list" || len(doc.Data) != 2 || len(doc.Invalid) != 1 || doc.Invalid[0].Line != 3 {
		t.Fatalf("check document %+v", doc)
	}
	a, b := doc.Data[0], doc.Data[1]
	if a.Email != "a@example.com" || !a.Listed || a.ID != added[0].ID || a.Origin != "manual" || a.CreatedAt == "" {
		t.Errorf("a: %+v", a)
	}
	if b.Email != "b@example.com" || b.Listed || b.ID != "" {
		t.Errorf("b: %+v", b)
	}
	if l := svc.listed(t); len(l) != 1 {
		t.Errorf("check changed the list: %v", l)
	}
}

func TestCheckFormats(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com")
	file := writeFile(t, "list.txt", "a@example.com\nb@example.com\nbad@\n")
	ta := newTestApp(t, svc)

	o := checkOpts(ta, file)
	o.Format = "ndjson"
	if err := runCheck(ctx, o); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 2 {
		t.Fatalf("ndjson:\n%s", ta.out.String())
	}
	for i, want := range []struct {
		email  string
		listed bool
	}{{"a@example.com", true}, {"b@example.com", false}} {
		var it checkItem
		if err := json.Unmarshal([]byte(lines[i]), &it); err != nil || it.Email != want.email || it.Listed != want.listed {
			t.Errorf("line %d %q: %+v %v", i+1, lines[i], it, err)
		}
	}
	if !strings.Contains(ta.err.String(), `shush: invalid, not looked up: line 3 "bad@"`) {
		t.Errorf("stderr %q", ta.err.String())
	}

	ta.reset()
	ta.human()
	if err := runCheck(ctx, checkOpts(ta, file)); err != nil {
		t.Fatal(err)
	}
	out := squeeze(ta.out.String())
	for _, want := range []string{"a@example.com yes manual", "b@example.com no", "1 of 2 addresses on the list."} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, ta.out.String())
		}
	}
}

func TestCheckMarksTheRequesterOfATicket(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "jane@customer.example")
	file := writeFile(t, "ticket.txt", "From: Jane <jane@customer.example>\nTo: support@shush.example\n\nAm I blocked? I get none of your mail.\n")
	ta := newTestApp(t, svc)
	if err := runCheck(ctx, checkOpts(ta, file)); err != nil {
		t.Fatal(err)
	}
	var doc checkJSON
	ta.decode(t, &doc)
	var jane *checkItem
	for i := range doc.Data {
		if doc.Data[i].Email == "jane@customer.example" {
			jane = &doc.Data[i]
		}
	}
	if jane == nil || !jane.Listed || !jane.Requester || jane.Rule == nil {
		t.Fatalf("the requester: %+v in %+v", jane, doc.Data)
	}
}

func TestCheckRefusesBadFlags(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	file := writeFile(t, "list.txt", "a@example.com\n")
	ta := newTestApp(t, svc)
	for _, c := range []struct {
		o    checkOptions
		want string
	}{
		{checkOptions{File: file, Concurrency: 0}, "--concurrency must be between 1 and 16, not 0"},
		{checkOptions{File: file, Concurrency: 4, Format: "xml"}, `--format must be table, json or ndjson, not "xml"`},
		{checkOptions{Concurrency: 4}, "give the addresses to look up, or --file"},
		{checkOptions{File: "-", Concurrency: 4}, "stdin: it is empty"},
		{checkOptions{File: file, Args: []string{"a@example.com"}, Concurrency: 4}, "give addresses or --file, not both"},
		{checkOptions{Args: []string{"a@example.com", "bob@"}, Concurrency: 4}, `argument 2 ("bob@") is not a valid email address`},
	} {
		o := c.o
		o.app = ta.app
		wantErr(t, runCheck(ctx, &o), ExitUsage, c.want)
	}
	ta.globals.jq = ".data"
	o := checkOpts(ta, file)
	o.Format = "ndjson"
	wantErr(t, runCheck(ctx, o), ExitUsage, "--jq filters one JSON document")
}

func TestCheckOnAServiceThatRefusesTheKey(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	file := writeFile(t, "list.txt", "a@example.com\n")
	ta := newTestApp(t, svc)
	ta.globals.apiKey = "shush_0000000000000000_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	err := runCheck(ctx, checkOpts(ta, file))
	if err == nil {
		t.Fatal("no error with a key the service does not know")
	}
	if code := exitCode(err); code != ExitRefused && code != ExitFailed {
		t.Errorf("exit %d: %v", code, err)
	}
	if strings.Contains(err.Error(), "aaaaaaaa") {
		t.Errorf("the error shows the key: %v", err)
	}
}

func TestExportWritesTheListAsCSVAndNDJSON(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com", "b@firm.example", "=cmd@example.com")
	ta := newTestApp(t, svc)

	o := &exportOptions{app: ta.app}
	o.Params.Format = "csv"
	if err := runExport(ctx, o); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "id,email,origin,source_id,created_at,note,expires_at") {
		t.Fatalf("csv:\n%s", ta.out.String())
	}
	if !strings.Contains(lines[1], ",'=cmd@example.com,") && !strings.Contains(lines[1], `"'=cmd@example.com"`) {
		t.Errorf("a cell a spreadsheet would run is not escaped: %q", lines[1])
	}

	ta.reset()
	o.Params.Format = "ndjson"
	o.Select.search = "@firm.example"
	if err := runExport(ctx, o); err != nil {
		t.Fatal(err)
	}
	lines = ta.lines()
	var e struct{ Email, Origin string }
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &e) != nil || e.Email != "b@firm.example" || e.Origin != "manual" {
		t.Errorf("ndjson of @firm.example:\n%s", ta.out.String())
	}
}

func TestExportToAFileIsWholeAndPrivate(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com", "b@example.com")
	ta := newTestApp(t, svc)
	path := filepath.Join(t.TempDir(), "list.csv")
	o := &exportOptions{app: ta.app, OutPath: path}
	o.Params.Format = "csv"
	if err := runExport(ctx, o); err != nil {
		t.Fatal(err)
	}
	if ta.out.Len() != 0 {
		t.Errorf("stdout %q", ta.out.String())
	}
	if want := "Exported 2 entries to " + path + ".\n"; ta.err.String() != want {
		t.Errorf("stderr %q, want %q", ta.err.String(), want)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}

	// A refused export leaves nothing behind.
	bad := filepath.Join(t.TempDir(), "bad.csv")
	o = &exportOptions{app: ta.app, OutPath: bad, Origin: "spam"}
	o.Params.Format = "csv"
	wantErr(t, runExport(ctx, o), ExitUsage, "--origin")
	o = &exportOptions{app: ta.app, OutPath: bad}
	o.Params.Format = "xlsx"
	wantErr(t, runExport(ctx, o), ExitUsage, `--format must be csv or ndjson, not "xlsx"`)
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a refused export wrote %s: %v", bad, err)
	}
}

// Addresses given as arguments are looked up as a file's would be, in
// their order, each once.
func TestCheckOfArguments(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	if err := runBatch(ctx, batchOpts(ta, batch.Add, writeFile(t, "list.txt", "listed@example.com\n"))); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	o := &checkOptions{app: ta.app, Concurrency: 4, Args: []string{"Listed@Example.com", "free@example.org", "listed@example.com"}}
	if err := runCheck(ctx, o); err != nil {
		t.Fatal(err)
	}
	var doc checkJSON
	if err := json.Unmarshal(ta.out.Bytes(), &doc); err != nil {
		t.Fatalf("%v: %s", err, ta.out.String())
	}
	if len(doc.Data) != 2 || doc.Data[0].Email != "listed@example.com" || !doc.Data[0].Listed || doc.Data[0].ID == "" ||
		doc.Data[1].Email != "free@example.org" || doc.Data[1].Listed {
		t.Errorf("check of the arguments: %+v", doc.Data)
	}
}
