package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// fixtureReport is a report a bounce fixture's JSON says its message
// gives.
type fixtureReport struct {
	Recipient, Kind, Status, Action, FeedbackType string
}

// fixtures are the bounce reader's fixtures: each message's file name and
// raw bytes, and the reports it gives ("" error) or the error it is.
type fixture struct {
	name    string
	raw     []byte
	reports []fixtureReport
	err     string
}

func readFixtures(t *testing.T) []fixture {
	t.Helper()
	paths, err := filepath.Glob("bounce/testdata/*.eml")
	if err != nil || len(paths) < 40 {
		t.Fatalf("the bounce fixtures: %d files, %v; want at least 40", len(paths), err)
	}
	var out []fixture
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var want struct {
			Reports []fixtureReport `json:"reports"`
			Error   string          `json:"error"`
		}
		b, err := os.ReadFile(strings.TrimSuffix(p, ".eml") + ".json")
		if err != nil || json.Unmarshal(b, &want) != nil {
			t.Fatalf("%s: no expected reports: %v", p, err)
		}
		out = append(out, fixture{name: filepath.Base(p), raw: raw, reports: want.Reports, err: want.Error})
	}
	return out
}

// expectedDecision is the classification of a report, written
// from its table: a complaint lists; a permanent failure (5.x.x) lists,
// but a policy refusal (5.7.x) waits for an agent; a temporary one
// (4.x.x, delayed) is counted; an auto-reply is ignored; a bounce without
// a status code and what the reader could not place wait for an agent; a
// report without a recipient cannot list anything.
func expectedDecision(r fixtureReport) string {
	switch {
	case r.Recipient == "":
		return "ignored"
	case r.Kind == "complaint":
		return "listed"
	case r.Kind == "auto_reply":
		return "ignored"
	case r.Kind == "unknown":
		return "review"
	case r.Action == "delayed":
		return "counted"
	case r.Status == "":
		return "review"
	case strings.HasPrefix(r.Status, "5.7."):
		return "review"
	case strings.HasPrefix(r.Status, "5."):
		return "listed"
	case strings.HasPrefix(r.Status, "4."):
		return "counted"
	}
	return "ignored"
}

// fromLine matches a line an mbox must escape.
var fromLine = regexp.MustCompile(`(?m)^(>*From )`)

// mbox joins the fixtures into one mbox and says at which line each
// message's separator is.
func mbox(fs []fixture) ([]byte, map[int]string) {
	var b bytes.Buffer
	at := map[int]string{}
	line := 1
	for _, f := range fs {
		msg := fromLine.ReplaceAll(bytes.ReplaceAll(f.raw, []byte("\r\n"), []byte("\n")), []byte(">$1"))
		msg = append(bytes.TrimRight(msg, "\n"), '\n', '\n')
		at[line] = f.name
		b.WriteString("From MAILER-DAEMON Thu Dec  3 15:04:20 2026\n")
		b.Write(msg)
		line += 1 + bytes.Count(msg, []byte("\n"))
	}
	return b.Bytes(), at
}

// ingestOut is what bounces ingest --json prints.
type ingestOut struct {
	Messages int `json:"messages"`
	Data     []struct {
		Source, Email, Kind, Status, Decision, Reason, ID string
	} `json:"data"`
	Unreadable []struct{ Source, Error string } `json:"unreadable"`
}

// A postmaster feeds shush serve the bounce mail of their mail server:
// an mbox of every fixture (DSN, ARF, the plain-text shapes, auto-replies,
// malformed mail), a Maildir, one message on stdin. Each report gets the
// decision the classification's table gives it; the list holds exactly
// the addresses that table lists, with their evidence; the unreadable
// messages are named with their line and the rest still go; the same mbox
// again is all duplicates.
func TestBouncesIngestAgainstShushServe(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	db := filepath.Join(sb.home, "shush.db")
	key := strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "mail", "--name", "postmaster", "--db", db).want(t, 0).stdout)
	// One failure lists nobody here: a counted report stays counted.
	sb.run(t, nil, "team", "set", "--team", "mail", "--soft-bounce-threshold", "100", "--db", db).want(t, 0)
	url := startServeWith(t, sb, db)
	cli := sb.with("SHUSH_BASE_URL="+url, "SHUSH_API_KEY="+key)

	fs := readFixtures(t)
	box, at := mbox(fs)
	path := writeFile(t, sb.home, "bounces.mbox", string(box))
	r := cli.run(t, nil, "bounces", "ingest", "--file", path, "--reference", "sweep-1")
	if r.code != 1 {
		t.Fatalf("an mbox with unreadable messages: %s; want exit 1", r)
	}
	var out ingestOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("%v\n%s", err, r)
	}
	byName := map[string]fixture{}
	readable, unreadable := 0, 0
	for _, f := range fs {
		byName[f.name] = f
		if f.err == "" {
			readable++
		} else {
			unreadable++
		}
	}
	if out.Messages != readable || len(out.Unreadable) != unreadable {
		t.Errorf("read %d messages and %d unreadable; want %d and %d", out.Messages, len(out.Unreadable), readable, unreadable)
	}
	for _, u := range out.Unreadable {
		line := 0
		fmt.Sscanf(u.Source[strings.LastIndexByte(u.Source, ':')+1:], "%d", &line)
		if f := byName[at[line]]; f.err == "" || !strings.Contains(u.Error, f.err) || !strings.HasPrefix(u.Error, u.Source) {
			t.Errorf("unreadable %s (%s): the fixture there is %s, expected error %q", u.Source, u.Error, at[line], f.err)
		}
	}
	wantListed := map[string]bool{}
	got := map[string][]string{} // fixture → its reports' "email decision"
	for _, d := range out.Data {
		line := 0
		fmt.Sscanf(d.Source[strings.LastIndexByte(d.Source, ':')+1:], "%d", &line)
		got[at[line]] = append(got[at[line]], d.Email+" "+d.Decision)
	}
	classes := map[string]int{}
	for _, f := range fs {
		if f.err != "" {
			continue
		}
		var want []string
		for _, rep := range f.reports {
			dec := expectedDecision(rep)
			want = append(want, rep.Recipient+" "+dec)
			classes[dec]++
			if dec == "listed" {
				wantListed[rep.Recipient] = true
			}
		}
		sort.Strings(want)
		have := got[f.name]
		sort.Strings(have)
		if strings.Join(have, ", ") != strings.Join(want, ", ") {
			t.Errorf("%s: decided %q; want %q", f.name, have, want)
		}
	}
	t.Logf("%d fixtures: %v", len(fs), classes)
	for _, dec := range []string{"listed", "counted", "ignored", "review"} {
		if classes[dec] == 0 {
			t.Errorf("no fixture is %s: the set does not cover the classification", dec)
		}
	}

	// The list: exactly the addresses listed, each with its evidence.
	export := cli.run(t, nil, "suppressions", "export").want(t, 0)
	recs, err := csv.NewReader(strings.NewReader(export.stdout)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, rec := range recs[1:] {
		listed[rec[1]] = true
		if rec[7] != "mail" {
			t.Errorf("%s is listed with evidence provider %q; want mail", rec[1], rec[7])
		}
	}
	if len(listed) != len(wantListed) {
		t.Errorf("listed %d addresses; want %d", len(listed), len(wantListed))
	}
	for e := range wantListed {
		if !listed[e] {
			t.Errorf("%s is not listed", e)
		}
	}
	var trail struct {
		Data []struct{ Key struct{ Name string } }
	}
	json.Unmarshal([]byte(cli.run(t, nil, "audit", "--reference", "sweep-1", "--limit", "100").want(t, 0).stdout), &trail)
	if len(trail.Data) != len(wantListed) || trail.Data[0].Key.Name != "postmaster" {
		t.Errorf("the trail of the sweep has %d entries (by %+v); want %d by postmaster", len(trail.Data), trail.Data, len(wantListed))
	}

	// The same mbox again: every report a duplicate, nothing written.
	again := cli.run(t, nil, "bounces", "ingest", "--file", path)
	var out2 ingestOut
	json.Unmarshal([]byte(again.stdout), &out2)
	for _, d := range out2.Data {
		if d.Decision != "duplicate" {
			t.Errorf("the second sweep decided %s %s", d.Email, d.Decision)
		}
	}
	json.Unmarshal([]byte(cli.run(t, nil, "audit", "--limit", "100").want(t, 0).stdout), &trail)
	if len(trail.Data) != len(wantListed) {
		t.Errorf("the trail has %d entries after the second sweep; want %d", len(trail.Data), len(wantListed))
	}

	// A Maildir (new/ and cur/) and a message on stdin.
	maildir := filepath.Join(sb.home, "Maildir")
	for i, name := range []string{"dsn-postfix-permanent.eml", "vacation-german.eml", "dsn-policy-block.eml"} {
		sub := []string{"new", "cur"}[i%2]
		os.MkdirAll(filepath.Join(maildir, sub), 0o700)
		os.WriteFile(filepath.Join(maildir, sub, fmt.Sprintf("1700000000.%d.host", i)), byName[name].raw, 0o600)
	}
	var dir ingestOut
	json.Unmarshal([]byte(cli.run(t, nil, "bounces", "ingest", "--file", maildir).want(t, 0).stdout), &dir)
	if dir.Messages != 3 || len(dir.Data) < 3 {
		t.Errorf("the Maildir: %+v", dir)
	}
	single := byName["exim-permanent.eml"]
	var in ingestOut
	json.Unmarshal([]byte(cli.run(t, single.raw, "bounces", "ingest", "--file", "-").want(t, 0).stdout), &in)
	if in.Messages != 1 || len(in.Data) != len(single.reports) || in.Data[0].Source != "stdin" {
		t.Errorf("stdin: %+v", in)
	}
	cli.run(t, nil, "bounces", "ingest", "--file", filepath.Join(sb.home, "missing.mbox")).want(t, 2)
	cli.run(t, nil, "bounces", "ingest").want(t, 2)
}
