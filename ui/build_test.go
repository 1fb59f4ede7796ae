package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
)

// Without bracketed paste every line arrives as runes and Enter; every line
// must land in the list, and the summary speaks for the whole paste.
func TestPlainPasteAddsEveryLine(t *testing.T) {
	h := newHarness(t, service(t, nil), 80, 24)
	h.plainPaste("one@example.com\r\ntwo@example.com\r\nTWO@example.com\r\nbroken@\r\n")
	if got := h.m.build.list.len(); got != 3 {
		t.Fatalf("list has %d rows, want 3:\n%s", got, h.view())
	}
	h.mustSee("Paste: 2 added, 1 skipped as duplicates, 1 invalid.")
	if h.m.screen != scrBuild {
		t.Fatal("an Enter of the paste left the Build screen")
	}
}

func TestListEditDeleteSelectFilterUndoClear(t *testing.T) {
	h := newHarness(t, service(t, nil), 80, 24)
	h.paste("a@example.com\nb@example.com\nc@example.com\nd@example\n")
	h.mustSee("3 valid · 1 invalid", "d@example  ✗ the domain has no dot")
	h.keys("esc", "g")

	// Edit row 4 in place to fix it.
	h.keys("G", "e")
	for range "d@example" {
		h.key(tea.KeyBackspace)
	}
	h.typeText("d@example.com")
	h.keys("enter")
	h.mustSee("Row 4 saved.", "4 valid · 0 invalid")

	// An edit that duplicates another row is refused.
	h.keys("g", "e")
	for range "a@example.com" {
		h.key(tea.KeyBackspace)
	}
	h.typeText("B@example.com")
	h.keys("enter")
	h.mustSee("B@example.com is already on the list.")
	h.keys("esc")

	// Delete one row (no prompt: u undoes it), then several (a prompt).
	h.keys("d")
	h.mustSee("Deleted 1 row (u undoes).", "3 entries")
	h.keys("u")
	h.mustSee("Undid delete.", "4 entries")
	h.keys("space", "space")
	h.mustSee("2 selected")
	h.keys("d")
	h.mustSee("Delete the 2 selected rows? [y/N]")
	h.keys("enter") // not a yes
	h.mustSee("4 entries")
	h.keys("d", "y")
	h.mustSee("Deleted 2 rows (u undoes).", "2 entries")
	if got := strings.Join(h.m.build.list.values(), " "); got != "c@example.com d@example.com" {
		t.Fatalf("values %q", got)
	}
	h.keys("u")

	// Filter.
	h.keys("/")
	h.typeText("c@")
	h.mustSee(`filter "c@": 1 shown`, "c@example.com")
	h.mustNotSee("a@example.com")
	h.keys("enter", "d")
	h.mustSee("3 entries")
	h.keys("/", "esc")
	h.mustSee("3 entries")
	h.mustNotSee("filter")

	// Clear asks first; u brings everything back.
	h.keys("X")
	h.mustSee("Clear all 3 entries? [y/N]")
	h.keys("y")
	h.mustSee("0 entries", "Cleared the list")
	h.keys("u")
	h.mustSee("3 entries")

	// Mode change revalidates (addresses are not IDs), and with rows it
	// asks first.
	h.keys("m")
	h.mustSee("Read the 3 rows again as remove by address? (u switches back) [y/N]")
	h.keys("y", "m")
	h.mustSee("Read the 3 rows again as remove by ID?")
	h.keys("y")
	h.mustSee("mode: remove by ID", "0 valid · 3 invalid", "it is not a UUID")
	h.keys("u", "u")
	h.mustSee("mode: add", "3 valid")

	// ctrl+a selects every row shown.
	h.keys("ctrl+a")
	h.mustSee("3 selected")
}

// A big paste arrives whole: every line is read, nothing suggests it was
// wrong to paste it.
func TestBigPasteArrivesWhole(t *testing.T) {
	h := newHarness(t, service(t, nil), 80, 24)
	var b strings.Builder
	for i := 0; i < 20001; i++ {
		b.WriteString("p")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(fmtN(i))
		b.WriteString("@example.com\n")
	}
	h.paste(b.String())
	h.mustSee("Paste: 20001 added")
	h.mustNotSee("slow")
	if h.m.build.list.len() != 20001 {
		t.Fatalf("%d rows", h.m.build.list.len())
	}
}

func fmtN(i int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
		if i == 0 {
			return string(b)
		}
	}
}

func TestFilePickerCaseAndErrors(t *testing.T) {
	h := newHarness(t, service(t, nil), 80, 24)
	os.WriteFile(filepath.Join(h.dir, "LIST.CSV"), []byte("email\nx@example.com\ny@example.com\n"), 0o600)
	os.WriteFile(filepath.Join(h.dir, "notes.pdf"), []byte("%PDF"), 0o600)
	os.WriteFile(filepath.Join(h.dir, "bad.json"), []byte(`{"emails": [1, 2`), 0o600)
	h.keys("ctrl+o")
	h.mustSee("Open a file (.txt, .csv, .json, .ndjson)", "LIST.CSV", "bad.json", "notes.pdf")
	// Sorted: LIST.CSV, bad.json, notes.pdf (directories first; none here).
	h.keys("enter")
	h.mustSee("LIST.CSV: 2 added, 0 skipped as duplicates, 0 invalid.")
	h.keys("o", "down", "enter")
	h.mustSee("bad.json:")
	if h.m.build.list.len() != 2 {
		t.Fatal("a broken file changed the list")
	}
	h.keys("o", "down", "down", "enter")
	h.mustSee("notes.pdf is not a .txt, .csv, .json or .ndjson file.")
	h.keys("esc")
	h.mustNotSee("Open a file")

	os.WriteFile(filepath.Join(h.dir, "dump.txt"), []byte("a@example.com\n\x00\x01binary"), 0o600)
	h.run(h.m.build.load(filepath.Join(h.dir, "dump.txt")))
	h.mustSee("dump.txt: line 2: it holds binary data (a NUL byte), not text")
	h.run(h.m.build.load(filepath.Join(h.dir, "gone.txt")))
	h.mustSee("cannot read gone.txt: it does not exist")
	if h.m.build.list.len() != 2 {
		t.Fatal("an unreadable file changed the list")
	}

	if os.Getuid() != 0 {
		locked := filepath.Join(h.dir, "locked.txt")
		os.WriteFile(locked, []byte("z@example.com\n"), 0o000)
		cmd := h.m.build.load(locked)
		h.run(cmd)
		h.mustSee("cannot read locked.txt: permission denied")
	}
}

// The list's NDJSON export, opened from the picker, lists its entries
// again with the origins and notes it says, not as manual ones.
func TestNDJSONExportReopensWithItsOrigins(t *testing.T) {
	svc := service(t, nil)
	h := newHarness(t, svc, 100, 30)
	os.WriteFile(filepath.Join(h.dir, "list.ndjson"), []byte(
		`{"object":"suppression","id":"0193f0c2-7d1e-7a00-8000-000000000001","email":"hard@example.com","origin":"bounce","source_id":"msg-1","created_at":"2026-11-01T10:00:00Z","note":"mailbox gone"}`+"\n"+
			`{"object":"suppression","id":"0193f0c2-7d1e-7a00-8000-000000000002","email":"angry@example.com","origin":"complaint","source_id":null,"created_at":"2026-11-02T10:00:00Z","note":null}`+"\n"), 0o600)
	h.keys("ctrl+o")
	h.mustSee("list.ndjson")
	h.keys("enter")
	h.mustSee("list.ndjson: 2 added, 0 skipped as duplicates, 0 invalid.")
	h.keys("ctrl+s", "ctrl+s")
	h.mustSee("2 entries: 2 added")
	for email, want := range map[string]string{"hard@example.com": "bounce mailbox gone", "angry@example.com": "complaint "} {
		e, err := svc.Get(context.Background(), email)
		if err != nil {
			t.Fatal(err)
		}
		note := ""
		if e.Note != nil {
			note = *e.Note
		}
		if got := string(e.Origin) + " " + note; got != want {
			t.Errorf("%s listed as %q, want %q", email, got, want)
		}
	}
}

func TestQuitAsksWithUnsentWork(t *testing.T) {
	h := newHarness(t, service(t, nil), 80, 24)
	h.keys("esc", "q")
	if !h.quit {
		t.Fatal("q on an empty list did not quit")
	}
	h = newHarness(t, service(t, nil), 80, 24)
	h.paste("a@example.com")
	h.keys("esc", "q")
	h.mustSee("Quit? The 1 unsent entry is kept and offered back next time. [y/N]")
	h.keys("q")
	if h.quit {
		t.Fatal("a second q confirmed the quit")
	}
	h.keys("ctrl+c", "y")
	if !h.quit {
		t.Fatal("y did not quit")
	}
}

func TestTooSmall(t *testing.T) {
	h := newHarness(t, service(t, nil), 50, 10)
	h.mustSee("The terminal is 50x10; shush needs at least 60x16.")
}

func TestExportAndCopy(t *testing.T) {
	t.Setenv(config.EnvExportDir, "")
	h := newHarness(t, service(t, nil), 100, 30)
	home := t.TempDir()
	t.Setenv("HOME", home)
	downloads := filepath.Join(home, "Downloads")
	os.Mkdir(downloads, 0o700)
	var clip bytes.Buffer
	h.m.results.clip = copier{term: &clip, env: func(string) string { return "" }}
	h.paste("a@example.com b@example.com")
	h.keys("ctrl+s", "tab")
	h.typeText("T-4711")
	h.keys("enter", "ctrl+s")
	run := h.results()

	// The default: the downloads directory, a name that names the ticket.
	h.keys("w")
	want := filepath.Join(downloads, config.ExportName("T-4711", "add", run.Started.Local(), "csv"))
	if got := h.m.results.path.Value(); got != want {
		t.Fatalf("export path %q; want %q", got, want)
	}
	h.keys("enter")
	h.mustSee("Wrote 2 rows to " + downloads)
	data, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "address,id,outcome,deleted,error,ticket,target,mode,time,expires_at,note\na@example.com,"+run.Results[0].ID+",added,false,,T-4711,local list,add,") {
		t.Fatalf("csv:\n%s", data)
	}
	// The note is the ticket's reference, as the review had it.
	if line := strings.Split(string(data), "\n")[1]; !strings.HasSuffix(line, ",,T-4711") {
		t.Errorf("a row's expiry and note: %q; want none and the ticket's reference", line)
	}

	out := filepath.Join(h.dir, "out.JSON")
	h.keys("w")
	h.key(tea.KeyCtrlU)
	h.send(tea.KeyMsg{Type: tea.KeyCtrlK})
	for range 200 {
		h.key(tea.KeyBackspace)
	}
	h.typeText(out)
	h.keys("enter")
	h.mustSee("Wrote 2 rows to " + out)
	data, _ = os.ReadFile(out)
	var got struct {
		Ticket, Target, Mode string
		Data                 []row
	}
	if err := json.Unmarshal(data, &got); err != nil || len(got.Data) != 2 || got.Data[0].ID != run.Results[0].ID ||
		got.Ticket != "T-4711" || got.Mode != "add" || got.Target != "local list" {
		t.Fatalf("%s: %v %s", out, err, data)
	}
	h.keys("y")
	h.mustSee("Sent 2 IDs to your terminal's clipboard (OSC 52); shush cannot confirm")
	if !strings.HasPrefix(clip.String(), "\x1b]52;c;") {
		t.Fatalf("clipboard got %q", clip.String())
	}
}

func TestBrowseMarkAndRemove(t *testing.T) {
	svc := service(t, nil)
	ctx := context.Background()
	var emails []string
	for i := 0; i < 45; i++ {
		emails = append(emails, "b"+fmtN(i)+"@example.com")
	}
	if _, err := svc.BatchAdd(ctx, emails); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 100, 30)
	h.keys("esc", "f2")
	h.mustSee("Browse · page 1 · all origins", "more: n", "b44@example.com")
	h.keys("n")
	h.mustSee("page 2")
	h.mustNotSee("b44@example.com")
	h.keys("p")
	h.mustSee("page 1", "b44@example.com")
	h.keys("o")
	h.mustSee("origin bounce", "No entries.")
	h.keys("o", "o")
	h.mustSee("origin manual", "b44@example.com")
	h.keys("/")
	h.typeText("Bee Three <B3@example.com>") // as mail writes it
	h.keys("enter")
	h.mustSee("lookup result", "b3@example.com")
	h.keys("space")
	h.mustSee("1 marked")
	h.keys("/")
	h.typeText("mailto:nobody@example.com?subject=hi")
	h.keys("enter")
	h.mustSee("nobody@example.com is not on the list.")
	h.mustNotSee("b3@example.com") // a miss clears the previous hit
	h.keys("/")
	h.typeText("two@example.com, three@example.com")
	h.keys("enter")
	h.mustSee("holds 2 addresses")
	h.keys("p", "space", "space", "x")
	if h.m.screen != scrBuild || h.m.build.list.mode != batch.RemoveIDs || h.m.build.list.valid != 3 {
		t.Fatalf("after x: screen %d mode %v valid %d", h.m.screen, h.m.build.list.mode, h.m.build.list.valid)
	}
	h.mustSee("3 entries from Browse, to remove by ID")
	h.keys("r")
	h.mustSee("Preview: 3 on the list")
	h.typeText("remove")
	h.keys("enter")
	if run := h.results(); run.Counts[batch.Removed] != 3 {
		t.Fatalf("counts %+v", run.Counts)
	}
}

// A service with only the batch endpoints: browsing is hidden and a
// removal by address goes without a preview.
func TestBatchOnlyService(t *testing.T) {
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(404)
				w.Write([]byte(`{"statusCode":404,"name":"not_found","message":"Not found"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	if _, err := svc.BatchAdd(context.Background(), []string{"gone@example.com"}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 100, 30)
	h.keys("esc", "?")
	h.mustSee("history", "build list")
	h.mustNotSee("browse the list")
	h.keys("?", "f2")
	h.mustSee("This service offers no list to browse (it answered 404/405).")
	if h.m.screen != scrBuild {
		t.Fatal("Browse opened")
	}
	h.keys("m")
	h.paste("gone@example.com")
	h.keys("r")
	h.mustSee("This service offers no lookups")
	h.typeText("remove")
	h.keys("enter")
	run := h.results()
	if run.Counts[batch.Removed] != 1 || run.Results[0].Outcome != batch.Removed {
		t.Fatalf("%+v", run.Results)
	}
	h.mustSee("gone@example.com", "deleted: true")
	_ = api.MaxBatch
}

// TestScreenKeysFromTheEntryField checks that F1-F3 switch screens while the
// entry field has focus (no one types them into it), and that the field
// keeps what was typed.
func TestScreenKeysFromTheEntryField(t *testing.T) {
	h := newHarness(t, service(t, nil), 100, 30)
	h.typeText("half@exam")
	h.keys("f3")
	h.mustSee("History")
	h.keys("f2")
	h.mustSee("Browse · page 1")
	h.keys("f1")
	h.mustSee("> half@exam")
}

// The next ticket pasted on the Results screen of the last one starts a
// new list and is read there, as after n: not dropped, and nothing of
// the sent list comes back into it.
func TestPasteOnResultsStartsTheNextList(t *testing.T) {
	h := newHarness(t, service(t, nil), 120, 30)
	h.paste("first@example.com")
	h.keys("ctrl+s", "ctrl+s")
	h.results()
	h.paste("second@example.com third@example.com")
	if h.m.screen != scrBuild {
		t.Fatalf("the paste on Results left the screen at %v:\n%s", h.m.screen, h.view())
	}
	h.mustSee("second@example.com", "third@example.com", "List · 2 entries")
	h.mustNotSee("first@example.com")
}
