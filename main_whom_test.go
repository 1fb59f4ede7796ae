package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The tickets of ticket/testdata/tickets that state a batch mode (mode:),
// each sent as a support agent would from the command line: `shush
// suppressions batch add|remove --file TICKET` (with --yes, which a
// removal without a terminal needs, and --ignore-intent: the ticket is
// sent in the mode its head names, whatever it asks) against `shush
// serve`, the real binary over real HTTP, each ticket on a team of its
// own. Every run ends with exactly the expected list on the service; a
// check of every ticket looks up every address it names, changes nothing
// and marks the requester.
func TestTicketsAgainstShushServe(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the corpus against shush serve")
	}
	tickets := readCorpus(t)
	sb := newSandbox(t)
	db := filepath.Join(sb.home, "service.db")
	keys := map[string]string{}
	for _, tk := range tickets {
		var k struct{ Key string }
		if err := json.Unmarshal([]byte(sb.run(t, nil, "keys", "create", "--team", tk.name, "--db", db, "--json").want(t, 0).stdout), &k); err != nil {
			t.Fatal(err)
		}
		keys[tk.name] = k.Key
	}
	base := startServe(t, sb, db)

	for _, tk := range tickets {
		t.Run(tk.name, func(t *testing.T) {
			agent := newSandbox(t).with("SHUSH_BASE_URL="+base, "SHUSH_API_KEY="+keys[tk.name])
			if len(tk.own) > 0 {
				os.MkdirAll(filepath.Dir(agent.configFile()), 0o700)
				writeFile(t, filepath.Dir(agent.configFile()), "config.toml", `own = ["`+strings.Join(tk.own, `", "`)+`"]`+"\n")
			}
			file := writeFile(t, agent.home, tk.name+".txt", tk.text)
			named := sorted(append(slices.Clone(tk.send), tk.leave...)...)
			var before, want []string
			verb := "add"
			if tk.remove {
				// The list holds everyone the ticket names (but our own,
				// which never go); the removal takes off exactly its
				// targets.
				verb = "remove"
				add := writeFile(t, agent.home, "before.txt", strings.Join(named, "\n")+"\n")
				agent.run(t, nil, "suppressions", "batch", "add", "--file", add).want(t, 0)
				before = listOf(t, agent)
				for _, v := range before {
					if !slices.Contains(tk.send, v) {
						want = append(want, v)
					}
				}
			} else {
				want = sorted(tk.send...)
			}
			args := []string{"suppressions", "batch", verb, "--file", file, "--ignore-intent"}
			if tk.remove {
				args = append(args, "--yes")
			}
			r := agent.run(t, nil, args...)
			switch {
			case len(tk.send) == 0 && r.code != 2:
				t.Fatalf("a ticket with nobody to send: want exit 2, got %s", r)
			case len(tk.send) > 0 && r.code != 0:
				t.Fatalf("%s", r)
			}
			if got := listOf(t, agent); !slices.Equal(got, sorted(want...)) {
				t.Errorf("the service lists %v; want exactly %v (before %v)\n%s", got, want, before, r)
			}

			// Check looks up everyone the ticket names and changes nothing.
			listed := listOf(t, agent)
			c := agent.run(t, nil, "suppressions", "check", "--file", file, "--json").want(t, 0)
			var doc struct {
				Data []struct {
					Email     string `json:"email"`
					Requester bool   `json:"requester"`
				} `json:"data"`
			}
			if err := json.Unmarshal([]byte(c.stdout), &doc); err != nil {
				t.Fatalf("check: %v: %s", err, c)
			}
			var looked []string
			requester := "none"
			for _, d := range doc.Data {
				looked = append(looked, d.Email)
				if d.Requester {
					requester = d.Email
				}
			}
			if !slices.Equal(sorted(looked...), named) {
				t.Errorf("check looked up %v; want every address the ticket names, %v", sorted(looked...), named)
			}
			if tk.requester != "" && requester != tk.requester {
				t.Errorf("check marks %s as the requester; want %s", requester, tk.requester)
			}
			if after := listOf(t, agent); !slices.Equal(after, listed) {
				t.Errorf("check changed the list: %v → %v", listed, after)
			}
		})
	}
}

// startServe runs `shush serve` on db on a free port until the test ends
// and returns its base URL.
func startServe(t *testing.T, sb *sandbox, db string) string {
	t.Helper()
	url, _ := startServeLogged(t, sb, db)
	return url
}

// startServeLogged is startServe that also returns what serve logs (a
// record per request).
func startServeLogged(t *testing.T, sb *sandbox, db string) (string, *lockedBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(shushBin, "serve", "--addr", addr, "--db", db, "--rate", "1000")
	cmd.Env = sb.env
	var errOut lockedBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	waitFor(t, "serve to answer", func() bool {
		resp, err := http.Get("http://" + addr + "/livez")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	})
	return "http://" + addr, &errOut
}

// listOf is the agent's whole list, from `suppressions list --all`.
func listOf(t *testing.T, sb *sandbox) []string {
	t.Helper()
	var doc struct {
		Data []struct {
			Email string `json:"email"`
		} `json:"data"`
	}
	r := sb.run(t, nil, "suppressions", "list", "--all", "--json").want(t, 0)
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("list: %v: %s", err, r)
	}
	var out []string
	for _, d := range doc.Data {
		out = append(out, d.Email)
	}
	return sorted(out...)
}

// corpusTicket is a ticket of the corpus, as far as the command line
// needs it (the ticket package's test reads the rest of its head).
type corpusTicket struct {
	name, text, requester string
	remove                bool
	own, send, leave      []string
}

func readCorpus(t *testing.T) []corpusTicket {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("ticket", "testdata", "tickets", "*.txt"))
	if err != nil || len(files) < 40 {
		t.Fatalf("the corpus: %d tickets, %v", len(files), err)
	}
	split := func(s string) []string {
		var out []string
		for v := range strings.SplitSeq(s, ",") {
			if v = strings.TrimSpace(v); v != "" {
				out = append(out, v)
			}
		}
		return out
	}
	var out []corpusTicket
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head, text, _ := strings.Cut(string(b), "\n====\n")
		tk := corpusTicket{name: strings.TrimSuffix(filepath.Base(f), ".txt"), text: text}
		if !strings.Contains("\n"+head, "\nmode:") {
			continue // a ticket of the proposal only
		}
		for l := range strings.SplitSeq(head, "\n") {
			k, v, _ := strings.Cut(l, ":")
			v = strings.TrimSpace(v)
			switch k {
			case "mode":
				tk.remove = v == "remove"
			case "own":
				tk.own = split(v)
			case "send":
				tk.send = split(v)
			case "leave":
				tk.leave = split(v)
			case "requester":
				if v != "none" {
					tk.requester = v
				} else {
					tk.requester = "none"
				}
			}
		}
		out = append(out, tk)
	}
	return out
}
