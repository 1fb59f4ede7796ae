package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestScreens compares every screen at 80x24 and 120x40 with its golden
// file (ASCII colour profile; IDs and times scrubbed). Rewrite them with
//
//	go test ./ui -run TestScreens -update
func TestScreens(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, hgt := size[0], size[1]
		t.Run(fmt.Sprintf("%dx%d", w, hgt), func(t *testing.T) {
			svc := service(t, nil)
			ctx := context.Background()
			if _, err := svc.BatchAdd(ctx, []string{"old1@example.com", "old2@example.com", "old3@example.com"}); err != nil {
				t.Fatal(err)
			}
			h := newHarness(t, svc, w, hgt)
			shot := func(name string) {
				t.Helper()
				golden(t, fmt.Sprintf("%s-%dx%d", name, w, hgt), scrub(h.view(), h.dir))
			}
			shot("build-empty")
			h.paste(ticketText)
			shot("build-pasted")
			h.keys("esc", "k", "space")
			shot("build-list")
			h.keys("?")
			shot("build-help")
			h.keys("?")
			os.WriteFile(filepath.Join(h.dir, "ticket-4711.txt"), []byte("x@example.com\n"), 0o600)
			os.WriteFile(filepath.Join(h.dir, "IDS.CSV"), []byte("id\n"), 0o600)
			os.Mkdir(filepath.Join(h.dir, "exports"), 0o700)
			h.keys("o")
			shot("picker")
			h.keys("esc")
			h.keys("r")
			shot("review-add")
			h.keys("tab")
			h.typeText("T-4711")
			h.keys("enter")
			h.typeText("add")
			// Hold the first batch back to see the Send screen.
			nm, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyEnter})
			h.m = nm.(Model)
			nm, first := h.m.Update(cmd())
			h.m = nm.(Model)
			shot("send")
			h.run(first)
			shot("results-add")

			h.keys("n", "esc", "m")
			h.paste("old1@example.com, old2@example.com, nobody@example.com")
			h.keys("r")
			shot("review-remove")
			h.typeText("remove")
			h.keys("enter")
			shot("results-remove")
			h.keys("f2")
			shot("browse")
			h.keys("f3")
			shot("history")
			h.send(tea.WindowSizeMsg{Width: 50, Height: 12})
			shot("too-small")
		})
	}
}
