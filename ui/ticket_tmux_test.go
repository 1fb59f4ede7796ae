package ui

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
)

// shortIDRE is an ID as a narrow table shows it: its end.
var shortIDRE = regexp.MustCompile(`…([0-9a-f]{8})\b`)

// Two tickets in a row in the real binary at 80x24: the first adds eight
// addresses (their IDs, shortened, all tell apart); the second, a
// removal of one of them, reviews only its own address under its own
// reference.
func TestTwoTicketsInARowInTmux(t *testing.T) {
	s, dir := startTmux(t, 80, 24)
	paste := func(name, text string) {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o600)
		s.tmux("load-buffer", "-b", name, path)
		s.tmux("paste-buffer", "-p", "-b", name, "-t", "ui")
	}
	var first []string
	for i := range 8 {
		first = append(first, fmt.Sprintf("first%d@example.com", i))
	}
	paste("t1.txt", "Subject: Ticket #1001\n\nPlease stop mailing "+strings.Join(first, ", ")+".\n")
	s.waitScreen("Paste: 8 added")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Review · add", "8 addresses in 1 batch", "Ticket: #1001")
	s.tmux("send-keys", "-t", "ui", "C-s")
	scr := s.waitScreen("8 entries: 8 added", "ticket #1001")
	ids := map[string]bool{}
	for _, m := range shortIDRE.FindAllStringSubmatch(scr, -1) {
		ids[m[1]] = true
	}
	if len(ids) != 8 {
		t.Fatalf("at 80x24 the results show %d distinct IDs, want 8:\n%s", len(ids), scr)
	}

	// The next ticket: the Build screen is empty, in add mode.
	s.tmux("send-keys", "-t", "ui", "F1")
	s.waitScreen("List · 0 entries", "mode: add")
	s.esc()
	s.tmux("send-keys", "-t", "ui", "m")
	s.waitScreen("mode: remove by address")
	paste("t2.txt", "Subject: Re: Ticket #1002\n\nPlease put first3@example.com back, I want your mail again.\n")
	s.waitScreen("Paste: 1 added")
	s.tmux("send-keys", "-t", "ui", "C-s")
	scr = s.waitScreen("Review · remove by address", "1 address in 1 batch", "Ticket: #1002", "This removes 1 entry")
	for _, other := range append(first[:3:3], first[4:]...) {
		if strings.Contains(scr, other) {
			t.Fatalf("the second review holds the first ticket's %s:\n%s", other, scr)
		}
	}
	s.tmux("send-keys", "-t", "ui", "-l", "remove")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.waitScreen("1 entry: 1 removed", "ticket #1002", "first3@example.com")
}

// The header recovers after the service returns: it says the service does
// not answer while it does not, asks again every few seconds while it
// fails, and clears once the service answers; a send then goes through.
func TestHeaderRecoversInTmux(t *testing.T) {
	var down atomic.Bool
	svc := servicetest.Start(t, server.Options{Rate: 1e6}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if down.Load() {
				// No answer: the connection drops.
				if hj, ok := w.(http.Hijacker); ok {
					if conn, _, err := hj.Hijack(); err == nil {
						conn.Close()
						return
					}
				}
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `{"statusCode":503,"name":"service_unavailable","message":"down"}`)
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	down.Store(true)
	s, _ := startTmux(t, 120, 30, "SHUSH_BASE_URL="+svc.URL, "SHUSH_API_KEY="+svc.Key)
	s.waitScreen("✗ not answering")
	// Still down at the next probe.
	time.Sleep(probeFailingEvery + time.Second)
	s.waitScreen("✗ not answering")
	back := time.Now()
	down.Store(false)
	s.waitScreen("· answers ·")
	if took := time.Since(back); took > probeFailingEvery+3*time.Second {
		t.Errorf("the header took %s to recover", took.Round(time.Second))
	}
	s.tmux("send-keys", "-t", "ui", "-l", "back@example.com")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Review · add", "Preview: 1 new")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("1 entry: 1 added")
}
