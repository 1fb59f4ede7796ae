package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
)

// erasedDoc is what suppressions erase --json prints.
type erasedDoc struct {
	Object string           `json:"object"`
	Data   []api.ErasedItem `json:"data"`
	Local  []string         `json:"local_files_rewritten"`
}

func (d erasedDoc) byEmail() map[string]api.ErasedItem {
	m := map[string]api.ErasedItem{}
	for _, it := range d.Data {
		m[it.Email] = it
	}
	return m
}

func TestEraseKeepsTheAddressesBlockedAsHashes(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	added := svc.add(t, "jane@example.com", "stays@example.com")
	ta := newTestApp(t, svc)

	if err := ta.exec(t, "suppressions", "erase", "Jane@Example.com", "never@example.com", "jane@example.com", "--yes", "--reference", "GDPR-2231"); err != nil {
		t.Fatal(err)
	}
	var doc erasedDoc
	ta.decode(t, &doc)
	got := doc.byEmail()
	// The duplicate argument (in another case) is erased once.
	if doc.Object != "list" || len(doc.Data) != 2 {
		t.Fatalf("erase --json: %+v", doc)
	}
	jane, never := got["jane@example.com"], got["never@example.com"]
	if !jane.Listed || jane.Already || jane.ID != added[0].ID || jane.Erased == "" || strings.Contains(jane.Erased, "jane") {
		t.Errorf("the listed address: %+v", jane)
	}
	if never.Listed || never.Already || never.ID == "" || never.Erased == "" || never.Erased == jane.Erased {
		t.Errorf("the address not listed: %+v", never)
	}

	// Both stay blocked, found by their address, but the list no longer
	// holds either address.
	for _, e := range []string{"jane@example.com", "never@example.com"} {
		entry, err := svc.client().Get(ctx, e)
		if err != nil {
			t.Fatalf("get %s after the erasure: %v", e, err)
		}
		if !entry.Erased {
			t.Errorf("%s is not marked erased: %+v", e, entry)
		}
	}
	listed := strings.Join(svc.listed(t), " ")
	if strings.Contains(listed, "jane@") || strings.Contains(listed, "never@") || !strings.Contains(listed, "stays@example.com") {
		t.Errorf("the list after the erasure: %s", listed)
	}

	// Erasing again changes nothing and says so.
	ta.reset()
	if err := ta.exec(t, "suppressions", "erase", "jane@example.com", "--yes"); err != nil {
		t.Fatal(err)
	}
	ta.decode(t, &doc)
	if len(doc.Data) != 1 || !doc.Data[0].Already || doc.Data[0].Erased != jane.Erased {
		t.Errorf("a second erasure: %+v", doc.Data)
	}
}

func TestEraseForAPersonSaysWhatBecameOfEachAddress(t *testing.T) {
	svc := newTestService(t)
	svc.add(t, "jane@example.com", "old@example.com")
	ta := newTestApp(t, svc).human()
	if err := ta.exec(t, "suppressions", "erase", "old@example.com", "--yes"); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	if err := ta.exec(t, "suppressions", "erase", "jane@example.com", "new@example.com", "old@example.com", "--yes"); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 4 {
		t.Fatalf("erase for a person:\n%s", ta.out.String())
	}
	for i, want := range []string{
		"jane@example.com: erased (ID ",
		"new@example.com: was not listed; listed as erased, so it stays blocked (ID ",
		"old@example.com: already erased (ID ",
	} {
		if !strings.HasPrefix(lines[i], want) || !strings.Contains(lines[i], ", now ") {
			t.Errorf("line %d %q; want it to start %q", i+1, lines[i], want)
		}
	}
	if lines[3] != "Rewrote 0 files on this computer." {
		t.Errorf("last line %q", lines[3])
	}
}

func TestEraseRewritesThisComputersRecords(t *testing.T) {
	svc := newTestService(t)
	sendRun(t, svc, "jane@example.com", "bob@example.com")
	before := stateFiles(t)
	var journal string
	for p, text := range before {
		if strings.Contains(text, "jane@example.com") {
			journal = p
		}
	}
	if journal == "" {
		t.Fatalf("no record of the run names the address: %v", before)
	}

	ta := newTestApp(t, svc)
	if err := ta.exec(t, "suppressions", "erase", "jane@example.com", "--yes"); err != nil {
		t.Fatal(err)
	}
	var doc erasedDoc
	ta.decode(t, &doc)
	if len(doc.Local) != 1 || doc.Local[0] != journal {
		t.Errorf("files rewritten %v; want the run's journal %s", doc.Local, journal)
	}
	after := stateFiles(t)
	if !strings.Contains(after[journal], doc.Data[0].Erased) || !strings.Contains(after[journal], "bob@example.com") {
		t.Errorf("the journal does not name the hash in the address's place, or lost another address:\n%s", after[journal])
	}
	for p, text := range after {
		if strings.Contains(strings.ToLower(text), "jane@example.com") {
			t.Errorf("%s still names the erased address", p)
		}
	}

	// The run still reads, with the hash in the address's place.
	ta.reset()
	ta.human()
	if err := ta.exec(t, "runs", "list"); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); len(l) != 2 {
		t.Errorf("runs list after the erasure:\n%s", ta.out.String())
	}
}

func TestEraseFromAFile(t *testing.T) {
	svc := newTestService(t)
	svc.add(t, "a@example.com")
	ta := newTestApp(t, svc)
	file := writeFile(t, "forget.txt", "a@example.com\nB@example.com\na@example.com\n")
	if err := ta.exec(t, "suppressions", "erase", "--file", file, "--yes"); err != nil {
		t.Fatal(err)
	}
	var doc erasedDoc
	ta.decode(t, &doc)
	got := doc.byEmail()
	if len(doc.Data) != 2 || !got["a@example.com"].Listed || got["b@example.com"].Listed {
		t.Errorf("erase --file: %+v", doc.Data)
	}

	// From stdin it cannot ask: it needs --yes.
	ta.reset()
	ta.stdin("c@example.com\n")
	wantErr(t, ta.exec(t, "suppressions", "erase", "--file", "-"), ExitUsage, "the entries come from stdin", "pass --yes")
	ta.reset()
	ta.stdin("c@example.com\n")
	if err := ta.exec(t, "suppressions", "erase", "--file", "-", "--yes"); err != nil {
		t.Fatal(err)
	}
	ta.decode(t, &doc)
	if len(doc.Data) != 1 || doc.Data[0].Email != "c@example.com" {
		t.Errorf("erase --file -: %+v", doc.Data)
	}
}

func TestEraseOfMoreThanOneRequest(t *testing.T) {
	svc := newTestService(t)
	var emails []string
	for i := range api.MaxBatch + 30 {
		emails = append(emails, fmt.Sprintf("user%03d@example.com", i))
	}
	svc.add(t, emails[:api.MaxBatch]...)
	ta := newTestApp(t, svc)
	file := writeFile(t, "forget.txt", strings.Join(emails, "\n")+"\n")
	if err := ta.exec(t, "suppressions", "erase", "--file", file, "--yes"); err != nil {
		t.Fatal(err)
	}
	var doc erasedDoc
	ta.decode(t, &doc)
	if len(doc.Data) != len(emails) {
		t.Fatalf("erased %d of %d addresses", len(doc.Data), len(emails))
	}
	listedBefore := 0
	for _, it := range doc.Data {
		if it.Listed {
			listedBefore++
		}
	}
	if listedBefore != api.MaxBatch {
		t.Errorf("%d were listed before; want %d", listedBefore, api.MaxBatch)
	}
	if l := svc.listed(t); len(l) != api.MaxBatch {
		t.Errorf("%d entries on the first page after; want %d (every address stays blocked)", len(l), api.MaxBatch)
	}
}

func TestEraseRefusesBadInputAndErasesNothing(t *testing.T) {
	svc := newTestService(t)
	svc.add(t, "jane@example.com")
	ta := newTestApp(t, svc)
	file := writeFile(t, "forget.txt", "jane@example.com\nbob@\nann@\n")
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"suppressions erase needs addresses or --file F"}},
		{[]string{"jane@example.com", "--file", file}, []string{"give addresses or --file, not both"}},
		{[]string{"jane@example.com", "bob@"}, []string{`argument 2 ("bob@") is not a valid email address`}},
		{[]string{"--file", file, "--yes"}, []string{"forget.txt holds entries that are not addresses", `line 2 "bob@"`, `line 3 "ann@"`, "erase names each address exactly"}},
		{[]string{"--file", filepath.Join(t.TempDir(), "none.txt"), "--yes"}, []string{"none.txt"}},
		{[]string{"jane@example.com"}, []string{"refusing", "pass --yes"}},
		{[]string{"jane@example.com", "--yes", "--reference", "two\nlines"}, []string{"--reference"}},
	} {
		ta.reset()
		err := ta.exec(t, append([]string{"suppressions", "erase"}, c.args...)...)
		wantErr(t, err, ExitUsage, c.want...)
	}
	e, err := svc.client().Get(context.Background(), "jane@example.com")
	if err != nil || e.Erased {
		t.Errorf("a refused erasure erased: %+v %v", e, err)
	}
}

// TestEraseFileNamesTheLineOfADomainEntry: erase takes addresses only; a
// domain entry in --file is bad input, named by its line before anything
// is sent, as an invalid address is (the service's refusal would name
// its index in the request, emails[1], not the file's line).
func TestEraseFileNamesTheLineOfADomainEntry(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	for _, entry := range []string{"@example.org", "*.example.org"} {
		ta.reset()
		file := writeFile(t, "forget.txt", "jane@example.com\n"+entry+"\n")
		wantErr(t, ta.exec(t, "suppressions", "erase", "--file", file, "--yes"), ExitUsage, "line 2", entry)
	}
	if _, err := svc.client().Get(context.Background(), "jane@example.com"); err == nil {
		t.Error("jane@example.com was erased from a file that holds bad input")
	}
}

func TestEraseAsksOnATerminal(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "jane@example.com", "bob@example.com")
	ta := newTestApp(t, svc).terminal("n\n")
	if err := ta.exec(t, "suppressions", "erase", "jane@example.com", "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	e := ta.err.String()
	// Every address is shown before the question.
	list := strings.Index(e, "jane@example.com\nbob@example.com\n")
	question := strings.Index(e, "Erase 2 addresses from "+svc.URL+"? The addresses are kept only as hashes, still blocked; this cannot be undone. [y/N]")
	if list < 0 || question < list || !strings.HasSuffix(e, "Nothing removed.\n") {
		t.Errorf("the question on stderr:\n%s", e)
	}
	if ta.out.Len() != 0 {
		t.Errorf("stdout after no: %q", ta.out.String())
	}
	if got, _ := svc.client().Get(ctx, "jane@example.com"); got.Erased {
		t.Error("erased after no")
	}

	ta.reset()
	ta.stdin("y\n")
	if err := ta.exec(t, "suppressions", "erase", "jane@example.com"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ta.out.String(), "jane@example.com: erased") {
		t.Errorf("after yes: %q", ta.out.String())
	}
	if got, _ := svc.client().Get(ctx, "jane@example.com"); !got.Erased {
		t.Error("not erased after yes")
	}
}

func TestEraseWithAReadOnlyKeyIsRefused(t *testing.T) {
	svc := newTestService(t)
	svc.add(t, "jane@example.com")
	ta := newTestApp(t, svc)
	ta.globals.apiKey = svc.key(t, "support", server.KeyPermissions{ReadOnly: true})
	err := ta.exec(t, "suppressions", "erase", "jane@example.com", "--yes")
	wantErr(t, err, ExitRefused)
	if e, _ := svc.client().Get(context.Background(), "jane@example.com"); e.Erased {
		t.Error("a read-only key erased")
	}
}

func TestTeamErasureSecretShowAndRotate(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := ta.exec(t, "team", "erasure-secret", "show", "--team", "support", "--db", svc.DB); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "Team support has no erasure secret yet: its first erasure makes one.\n" {
		t.Errorf("show before any erasure: %q", ta.out.String())
	}

	svc.add(t, "a@example.com")
	ta.reset()
	if err := ta.exec(t, "suppressions", "erase", "a@example.com", "b@example.com", "--yes"); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	if err := ta.exec(t, "team", "erasure-secret", "show", "--team", "support", "--db", svc.DB); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); len(l) != 1 || !strings.HasPrefix(l[0], "v1  made ") || !strings.HasSuffix(l[0], "  2 erased entries") {
		t.Errorf("show after an erasure:\n%s", ta.out.String())
	}

	ta.reset()
	if err := ta.exec(t, "team", "erasure-secret", "rotate", "--team", "support", "--db", svc.DB); err != nil {
		t.Fatal(err)
	}
	if want := "Team support erases with version 2 of its secret from now on; the older versions stay, to match the entries hashed with them.\n"; ta.out.String() != want {
		t.Errorf("rotate said %q", ta.out.String())
	}

	// A new erasure is hashed with version 2; the old entries stay found.
	ta.reset()
	if err := ta.exec(t, "suppressions", "erase", "c@example.com", "--yes"); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	ta.io.StdoutTTY = false
	if err := ta.exec(t, "team", "erasure-secret", "show", "--team", "support", "--db", svc.DB); err != nil {
		t.Fatal(err)
	}
	var versions []struct {
		Version   int    `json:"version"`
		CreatedAt string `json:"created_at"`
		Entries   int    `json:"entries"`
	}
	ta.decode(t, &versions)
	if len(versions) != 2 || versions[0].Version != 1 || versions[0].Entries != 2 || versions[1].Version != 2 || versions[1].Entries != 1 || versions[1].CreatedAt == "" {
		t.Errorf("show --json: %+v", versions)
	}
	for _, e := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		if got, err := svc.client().Get(context.Background(), e); err != nil || !got.Erased {
			t.Errorf("%s after the rotation: %+v %v", e, got, err)
		}
	}

	ta.reset()
	if err := ta.exec(t, "team", "erasure-secret", "rotate", "--team", "support", "--db", svc.DB); err != nil {
		t.Fatal(err)
	}
	var rotated struct {
		Team    string
		Version int
	}
	ta.decode(t, &rotated)
	if rotated.Team != "support" || rotated.Version != 3 {
		t.Errorf("rotate --json: %+v", rotated)
	}
}

func TestTeamErasureSecretNeedsATeam(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	for _, args := range [][]string{
		{"show", "--db", svc.DB},
		{"rotate", "--db", svc.DB},
		{"rotate", "--team", "two words", "--db", svc.DB},
	} {
		ta.reset()
		wantErr(t, ta.exec(t, append([]string{"team", "erasure-secret"}, args...)...), ExitUsage, "erasure-secret "+args[0]+" needs --team T")
	}
	ta.reset()
	wantErr(t, ta.exec(t, "team", "erasure-secret", "show", "--team", "support", "--db", "postgres://u:pw@127.0.0.1:1/db?connect_timeout=1"), ExitFailed, "open the database")
}
