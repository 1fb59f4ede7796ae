package ui

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

// program runs the whole UI in a real Bubble Tea program (teatest) against
// the service.
func program(t *testing.T, svc *client.Client) (*teatest.TestModel, string) {
	t.Helper()
	dir := t.TempDir()
	m := New(Options{
		Service:   svc,
		Target:    Target{Profile: "default", Label: "local list", MaskedKey: "shush_ab…wxyz"},
		StateDir:  filepath.Join(dir, "state"),
		Runs:      &batch.Runs{Dir: filepath.Join(dir, "state", "journal"), Client: svc, Source: "ui"},
		StartDir:  dir,
		Clipboard: io.Discard,
		Renderer:  asciiRenderer(),
	})
	return teatest.NewTestModel(t, m, teatest.WithInitialTermSize(120, 40)), dir
}

func waitFor(t *testing.T, tm *teatest.TestModel, want ...string) {
	t.Helper()
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		for _, w := range want {
			if !bytes.Contains(b, []byte(w)) {
				return false
			}
		}
		return true
	}, teatest.WithDuration(15*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
}

func press(k tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: k} }

func finalRun(t *testing.T, tm *teatest.TestModel) *Run {
	t.Helper()
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	m := tm.FinalModel(t, teatest.WithFinalTimeout(15*time.Second)).(Model)
	if m.screen != scrResults {
		t.Fatalf("the program ended on screen %d, not Results", m.screen)
	}
	return m.results.run
}

func TestProgramPasteAdd(t *testing.T) {
	svc := service(t, nil)
	tm, _ := program(t, svc)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(ticketText), Paste: true})
	waitFor(t, tm, "Paste: 3 added, 1 skipped as duplicates, 1 invalid.")
	tm.Send(press(tea.KeyCtrlS))
	waitFor(t, tm, "Review · add")
	tm.Type("add")
	tm.Send(press(tea.KeyEnter))
	waitFor(t, tm, "3 entries: 3 added")
	run := finalRun(t, tm)
	ids := map[string]bool{}
	for _, r := range run.Results {
		e, err := svc.Get(context.Background(), r.Input)
		if err != nil || e.ID != r.ID || ids[r.ID] {
			t.Fatalf("%s: ID %q, service %q (%v)", r.Input, r.ID, e.ID, err)
		}
		ids[r.ID] = true
	}
	if len(ids) != 3 {
		t.Fatalf("%d IDs for 3 addresses", len(ids))
	}
}

func TestProgramFileOfIDsRemove(t *testing.T) {
	svc := service(t, nil)
	added, err := svc.BatchAdd(context.Background(), []string{"p@example.com", "q@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	tm, dir := program(t, svc)
	os.WriteFile(filepath.Join(dir, "ids.Json"), []byte(`{"ids": ["`+added[0].ID+`", "`+added[1].ID+`"]}`), 0o600)
	tm.Send(press(tea.KeyEsc))
	tm.Type("mm")
	waitFor(t, tm, "mode: remove by ID")
	tm.Send(press(tea.KeyCtrlO))
	waitFor(t, tm, "ids.Json")
	tm.Send(press(tea.KeyEnter))
	waitFor(t, tm, "ids.Json: 2 added")
	tm.Type("r")
	waitFor(t, tm, "Preview: 2 on the list")
	tm.Type("remove")
	tm.Send(press(tea.KeyEnter))
	// The Results screen's counts (the send screen's "So far" line says
	// the same while its end is still on the way).
	waitFor(t, tm, "2 entries: 2 removed")
	run := finalRun(t, tm)
	for _, r := range run.Results {
		if r.Outcome != batch.Removed || run.address(r) == "" {
			t.Fatalf("%+v", r)
		}
	}
}

func TestProgramRemoveByAddressPreview(t *testing.T) {
	svc := service(t, nil)
	if _, err := svc.BatchAdd(context.Background(), []string{"here@example.com"}); err != nil {
		t.Fatal(err)
	}
	tm, _ := program(t, svc)
	tm.Send(press(tea.KeyEsc))
	tm.Type("m")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("here@example.com\rgone@example.com\r"), Paste: true})
	waitFor(t, tm, "Paste: 2 added")
	tm.Type("r")
	waitFor(t, tm, "Preview: 1 on the list · 1 not on the list")
	tm.Type("remove")
	tm.Send(press(tea.KeyEnter))
	waitFor(t, tm, "2 entries: 1 removed · 1 not on the list")
	run := finalRun(t, tm)
	if run.Results[0].Outcome != batch.Removed || run.Results[1].Outcome != batch.NotListed {
		t.Fatalf("%+v", run.Results)
	}
}

func TestProgramFailedBatchRetry(t *testing.T) {
	var failing atomic.Bool
	failing.Store(true)
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if batchSend(r) && r.URL.Path == "/suppressions/batch/add" && failing.Load() {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				w.Write([]byte(`{"statusCode":503,"name":"service_unavailable","message":"the store is unavailable"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	tm, _ := program(t, svc)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("r1@example.com r2@example.com"), Paste: true})
	waitFor(t, tm, "Paste: 2 added")
	tm.Send(press(tea.KeyCtrlS))
	waitFor(t, tm, "Review · add")
	tm.Send(press(tea.KeyCtrlS))
	waitFor(t, tm, "2 entries: 2 failed", "Row 1: failed: the service answered 503 service_unavailable: the store is unavailable")
	failing.Store(false)
	tm.Type("R")
	waitFor(t, tm, "Send the 2 failed or unsent entries again?")
	tm.Type("y")
	waitFor(t, tm, "2 entries: 2 added")
	run := finalRun(t, tm)
	if run.Counts[batch.Added] != 2 {
		t.Fatalf("%+v", run.Counts)
	}
}
