package ui

import (
	"encoding/csv"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

// A service whose error message carries escape sequences (clear the
// screen, draw a fake "all batches succeeded", set the title, write the
// clipboard) and a bidi override: the view shows them as escapes and
// holds none of them.
func TestServiceReplyCannotDrawOnTheScreen(t *testing.T) {
	evil := "\x1b[2J\x1b[HAll batches succeeded \x1b]0;pwned\x07\x1b]52;c;aGk=\x07 moc.elpmaxe\u202e"
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if batchSend(r) && r.URL.Path == "/suppressions/batch/add" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnprocessableEntity)
				w.Write([]byte(`{"statusCode":422,"name":"validation_error","message":"` + strings.NewReplacer("\x1b", `\u001b`, "\x07", `\u0007`).Replace(evil) + `"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	h := newHarness(t, svc, 120, 40)
	h.paste("a@example.com")
	h.keys("ctrl+s", "ctrl+s")
	h.mustSee(`\x1b[2J\x1b[HAll batches succeeded`)
	v := h.view()
	for _, bad := range []string{"\x1b[2J", "\x1b]0;", "\x1b]52;", "\u202e", "\x07"} {
		if strings.Contains(v, bad) {
			t.Errorf("the view holds %q", bad)
		}
	}
}

// An export a spreadsheet opens runs no formula: cells that start with
// = + - @ are written as text.
func TestExportEscapesFormulas(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.csv")
	rows := []row{
		{Address: "=1+2@example.com", ID: "id-1", Outcome: batch.Added},
		{Address: "+cmd@example.com", Outcome: batch.Failed, Error: "-2+3 refused"},
		{Address: "@sum@example.com", Outcome: batch.Unverified},
		{Address: "plain@example.com", Outcome: batch.Added},
	}
	if err := writeResults(path, exportHead{Ticket: "=T-1", Mode: "add"}, rows); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"'=1+2@example.com", "'+cmd@example.com", "'@sum@example.com", "plain@example.com"}
	for i, w := range want {
		if recs[i+1][0] != w {
			t.Errorf("row %d address cell %q; want %q", i+1, recs[i+1][0], w)
		}
	}
	if recs[2][4] != "'-2+3 refused" {
		t.Errorf("error cell %q", recs[2][4])
	}
}

// The header says whether the service answers: a service down at start
// shows as not answering, with the cause in the notice.
func TestHeaderSaysWhetherTheServiceAnswers(t *testing.T) {
	down := client.New("http://127.0.0.1:1", "k", client.WithRetry(0, time.Millisecond, time.Millisecond))
	h := newHarness(t, down, 120, 40)
	h.mustSee("local list · ✗ not answering: cannot reach the service at http://127.0.0.1:1", "The service does not answer: cannot reach")
	h.mustNotSee("· answers ·")

	up := newHarness(t, service(t, nil), 120, 40)
	up.mustSee("local list · answers · profile default")
}

// A results export re-opens in the UI as the list it was: the CSV's
// formula guards are taken off, the JSON's data read, for an addition by
// address and a removal by ID alike.
func TestResultsExportReopens(t *testing.T) {
	rows := []row{
		{Address: "=1+2@example.com", ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a", Outcome: batch.Added},
		{Address: "+tag@example.com", ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6b", Outcome: batch.AlreadyListed},
		{Address: "plain@example.com", ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6c", Outcome: batch.Added},
	}
	for _, name := range []string{"results.csv", "results.json"} {
		h := newHarness(t, service(t, nil), 100, 30)
		path := filepath.Join(h.dir, name)
		if err := writeResults(path, exportHead{Ticket: "T-1", Mode: "add"}, rows); err != nil {
			t.Fatal(err)
		}
		h.run(h.m.build.load(path))
		h.mustSee(name + ": 3 added, 0 skipped as duplicates, 0 invalid.")
		if got := h.m.build.list.values(); !slices.Equal(got, []string{"=1+2@example.com", "+tag@example.com", "plain@example.com"}) {
			t.Errorf("%s re-opened as %v", name, got)
		}
		ids, _, _, _, err := readFile(path, batch.RemoveIDs)
		if err != nil || len(ids) != 3 || ids[2].Value != rows[2].ID {
			t.Errorf("%s re-read by ID: %+v %v", name, ids, err)
		}
	}
}

// The embedded default list's key is shush's own: the header names the
// list and the profile, and no key a newcomer would wonder about.
func TestHeaderOfTheLocalListNamesNoKey(t *testing.T) {
	svc := service(t, nil)
	state := filepath.Join(t.TempDir(), "state")
	m := New(Options{
		Service:   svc,
		Target:    Target{Profile: "default", Label: "local list", MaskedKey: "shush_ab…wxyz", Local: true},
		StateDir:  state,
		Clipboard: io.Discard,
		Renderer:  asciiRenderer(),
	})
	h := newHarnessOf(t, m, t.TempDir(), state)
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.run(m.Init())
	h.mustSee("shush · local list · answers · profile default")
	h.mustNotSee("· key ", "shush_ab")
}
