package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
)

// readTicket is the JSON of `shush ticket read --json`.
type readTicket struct {
	Mode    string   `json:"mode"`
	Targets []string `json:"targets"`
	LeftOut []struct {
		Value, Reason string
		Line          int
	} `json:"left_out"`
	Requester *string `json:"requester"`
	Reference *struct {
		Value, Source, Text string
		Line                int
	} `json:"reference"`
	Evidence []struct {
		Line       int
		Text, Says string
	} `json:"evidence"`
}

// proposal is what a corpus ticket's head says it proposes.
type proposal struct {
	name, text, intent string
	own, targets       []string
	known              bool // a known miss (wrong:)
}

func readProposals(t *testing.T) []proposal {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("ticket", "testdata", "tickets", "*.txt"))
	if err != nil || len(files) < 120 {
		t.Fatalf("the corpus: %d tickets, %v", len(files), err)
	}
	var out []proposal
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head, text, _ := strings.Cut(string(b), "\n====\n")
		p := proposal{name: strings.TrimSuffix(filepath.Base(f), ".txt"), text: text}
		for l := range strings.SplitSeq(head, "\n") {
			k, v, _ := strings.Cut(l, ":")
			v = strings.TrimSpace(v)
			switch k {
			case "intent":
				p.intent = v
			case "own":
				p.own = strings.Split(v, ",")
			case "targets":
				for x := range strings.SplitSeq(v, ",") {
					if x = strings.TrimSpace(x); x != "" {
						if n, err := api.NormalizeEmail(x); err == nil {
							x = n
						} else if n, err := api.NormalizeID(x); err == nil {
							x = n
						}
						p.targets = append(p.targets, x)
					}
				}
			case "wrong":
				p.known = true
			}
		}
		slices.Sort(p.targets)
		out = append(out, p)
	}
	return out
}

// `shush ticket read --json`, from the built binary, proposes for every
// ticket of the corpus the mode and targets its head states (a known miss
// is read, not compared), in the exact shape the command's help gives;
// --file - reads stdin.
func TestTicketReadAgainstTheCorpus(t *testing.T) {
	t.Parallel()
	for _, p := range readProposals(t) {
		t.Run(p.name, func(t *testing.T) {
			sb := newSandbox(t)
			if len(p.own) > 0 {
				os.MkdirAll(filepath.Dir(sb.configFile()), 0o700)
				writeFile(t, filepath.Dir(sb.configFile()), "config.toml", `own = ["`+strings.Join(p.own, `", "`)+`"]`+"\n")
			}
			file := writeFile(t, sb.home, p.name+".txt", p.text)
			r := sb.run(t, nil, "ticket", "read", "--file", file, "--json").want(t, 0)
			var shape map[string]json.RawMessage
			if err := json.Unmarshal([]byte(r.stdout), &shape); err != nil {
				t.Fatalf("%v: %s", err, r)
			}
			for _, k := range []string{"mode", "targets", "left_out", "requester", "reference", "evidence"} {
				if _, ok := shape[k]; !ok || len(shape) != 6 {
					t.Fatalf("the JSON lacks %q or holds more than the six keys: %s", k, r.stdout)
				}
			}
			var got readTicket
			if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
				t.Fatal(err)
			}
			if got.Targets == nil || got.LeftOut == nil || got.Evidence == nil {
				t.Errorf("an empty list printed as null: %s", r.stdout)
			}
			if p.known {
				return
			}
			if got.Mode != p.intent {
				t.Errorf("mode %s; want %s\n%s", got.Mode, p.intent, r.stdout)
			}
			targets := slices.Clone(got.Targets)
			slices.Sort(targets)
			if p.intent != "unsure" && !slices.Equal(targets, p.targets) {
				t.Errorf("targets %v; want %v\n%s", targets, p.targets, r.stdout)
			}
			if got.Mode != "unsure" && got.Mode != "" && (len(got.Evidence) == 0 || got.Evidence[0].Says != got.Mode) {
				t.Errorf("no evidence for %s: %s", got.Mode, r.stdout)
			}
		})
	}
	// stdin: the same reading.
	sb := newSandbox(t)
	r := sb.run(t, []byte("From: ann@customer.test\n\nPlease put me back on the newsletter.\n"), "ticket", "read", "--file", "-", "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"mode": "remove"`) || !strings.Contains(r.stdout, `"ann@customer.test"`) {
		t.Errorf("--file -: %s", r)
	}
	sb.run(t, nil, "ticket", "read", "--json").want(t, 2)
	empty := writeFile(t, sb.home, "empty.txt", "\n\n")
	if r := sb.run(t, nil, "ticket", "read", "--file", empty).want(t, 2); !strings.Contains(r.stderr, "empty") {
		t.Errorf("an empty ticket: %s", r)
	}
}
