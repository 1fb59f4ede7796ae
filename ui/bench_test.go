package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/batch"
)

// bigModel is the UI at 120x40 with n addresses in the list, the list in
// focus.
func bigModel(b *testing.B, n int) Model {
	b.Helper()
	m := New(Options{Service: nil, Target: Target{Label: "local list"}, Renderer: asciiRenderer(), StartDir: b.TempDir()})
	nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m = nm.(Model)
	items := make([]batch.Item, n)
	for i := range items {
		v := fmt.Sprintf("user%06d@example.com", i)
		items[i] = batch.Item{Raw: v, Value: v, Line: i + 1}
	}
	m.build.addItems(items, "bench", n)
	m.build.focus = focusList
	m.build.input.Blur()
	m.build.view.top()
	return m
}

// frame is one key press: Update, then View, as the runtime does.
func frame(m Model, msg tea.Msg) Model {
	nm, cmd := m.Update(msg)
	m = nm.(Model)
	if cmd != nil {
		if out := cmd(); out != nil {
			nm, _ = m.Update(out)
			m = nm.(Model)
		}
	}
	_ = m.View()
	return m
}

func reportFrame(b *testing.B, start time.Time, frames int) {
	b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(frames), "ms/frame")
}

func BenchmarkScroll100k(b *testing.B) {
	m := bigModel(b, 100_000)
	down, pgdn := tea.KeyMsg{Type: tea.KeyDown}, tea.KeyMsg{Type: tea.KeyPgDown}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			m = frame(m, down)
		} else {
			m = frame(m, pgdn)
		}
	}
	reportFrame(b, start, b.N)
}

// BenchmarkEdit100k edits a row in place: open the editor, type a
// character, save (three frames; an undo step is recorded).
func BenchmarkEdit100k(b *testing.B) {
	m := bigModel(b, 100_000)
	m.build.view.cursor = 50_000
	m.build.view.clamp()
	e, enter := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("e")}, tea.KeyMsg{Type: tea.KeyEnter}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		m = frame(m, e)
		m = frame(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{rune('a' + i%26)}})
		m = frame(m, enter)
	}
	reportFrame(b, start, 3*b.N)
}

// BenchmarkDeleteUndo100k deletes a row (the list is copied) and undoes it.
func BenchmarkDeleteUndo100k(b *testing.B) {
	m := bigModel(b, 100_000)
	m.build.view.cursor = 50_000
	m.build.view.clamp()
	d, u := tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("d")}, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("u")}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		m = frame(m, d)
		m = frame(m, u)
	}
	reportFrame(b, start, 2*b.N)
}

// BenchmarkFilter100k types into the filter: every key press filters all
// 100,000 rows again.
func BenchmarkFilter100k(b *testing.B) {
	m := bigModel(b, 100_000)
	m = frame(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	m = frame(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("user0")})
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		if i%2 == 0 {
			m = frame(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{rune('0' + i%10)}})
		} else {
			m = frame(m, tea.KeyMsg{Type: tea.KeyBackspace})
		}
	}
	reportFrame(b, start, b.N)
	if !strings.Contains(m.View(), "filter") {
		b.Fatal("the filter is not on")
	}
}

// BenchmarkLoadFile100k reads a 100,000-line file into the list (read,
// normalize, de-duplicate, first frame).
func BenchmarkLoadFile100k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.txt")
	var sb strings.Builder
	for i := 0; i < 100_000; i++ {
		fmt.Fprintf(&sb, "User%06d@Example.com\n", i)
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		m := New(Options{Target: Target{Label: "local list"}, Renderer: asciiRenderer()})
		nm, _ := m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m = nm.(Model)
		m.Update(m.build.load(path)())
		if m.build.list.valid != 100_000 {
			b.Fatalf("%d valid rows", m.build.list.valid)
		}
		_ = m.View()
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/load")
}

// BenchmarkPaste10k is a bracketed paste of 10,000 lines of ticket text
// (the parse, once bubbletea has delivered it).
func BenchmarkPaste10k(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 10_000; i++ {
		fmt.Fprintf(&sb, "Customer <User%06d@Example.com> asked to stop\r", i)
	}
	text := sb.String()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		m := New(Options{Target: Target{Label: "local list"}, Renderer: asciiRenderer()})
		m = frame(m, tea.WindowSizeMsg{Width: 120, Height: 40})
		m = frame(m, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(text), Paste: true})
		if m.build.list.valid != 10_000 {
			b.Fatalf("%d valid rows", m.build.list.valid)
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "ms/paste")
}
