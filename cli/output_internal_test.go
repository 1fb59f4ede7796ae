package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/ticket"
)

// The human forms are what a terminal shows; a test cannot be a terminal,
// so these call the printers directly.

func humanApp() (*app, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &app{io: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}}, &out, &errOut
}

func TestHumanPlan(t *testing.T) {
	a, out, _ := humanApp()
	in, err := batch.ReadPlanAs(strings.NewReader("Ann@example.com\nann@example.com\nbob@\ncy@example.com\n"), "in.txt", batch.Add, ticket.Own{}, ticket.ByRule, batch.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.printPlan(outputMode{}, in, "http://svc.example", "", noteFlags{}, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Would add 2 addresses on http://svc.example in 1 batch of up to 100.",
		"Read 4 entries (one entry per line): 2 to send, 1 duplicate, 1 invalid.",
		`line 3: "bob@": `,
		"Nothing was sent (--dry-run).",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("plan does not say %q:\n%s", want, out)
		}
	}
}

// The dry run of a ticket says whom it is about: who is taken in and who
// left out, each once, with the reason and the line that decided.
func TestHumanPlanOfATicket(t *testing.T) {
	a, out, _ := humanApp()
	text := "From: Jane Doe <jane@customer.example>\nTo: support@ourcompany.test\nCc: tom@customer.example\n" +
		"Subject: Re: [#5521]\n\nPlease unsubscribe me and my colleague (cc'd).\n\nThanks,\nJane\n" +
		"kim@customer.example\n\x1b]0;hi\x07 x@lists.example\n"
	in, err := batch.ReadPlanAs(strings.NewReader(text), "t.txt", batch.Add, ticket.NewOwn([]string{"@ourcompany.test"}), ticket.ByRule, batch.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.printPlan(outputMode{}, in, "http://svc.example", "#5521", noteFlags{}, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Taken in from the ticket (--exclude-requester leaves them out):",
		`jane@customer.example the requester asks for themselves (line 6: "Please unsubscribe me and my colleague (cc'd).")`,
		`tom@customer.example a colleague the requester includes (line 6:`,
		"Left out 3 addresses; --include-requester takes in all but our own and the address the ticket was sent to:",
		`x@lists.example line 11 only in a signature (line 11: "\x1b]0;hi\a x@lists.example")`,
		`support@ourcompany.test line 2 one of our own addresses (line 2: "To: support@ourcompany.test")`,
		`kim@customer.example line 10 only in a signature (line 10: "kim@customer.example")`,
		"Reference: #5521.",
	} {
		if !strings.Contains(squeeze(out.String()), want) {
			t.Errorf("plan does not say %q:\n%s", want, out)
		}
	}
	if strings.ContainsRune(out.String(), 0x1b) {
		t.Errorf("an escape from the ticket reached the terminal:\n%q", out)
	}
}

func TestHumanReport(t *testing.T) {
	a, out, _ := humanApp()
	var items []batch.Item
	for i := range 150 {
		items = append(items, batch.NewItem(batch.RemoveEmails, i+1, fmt.Sprintf("u%d@example.com", i)))
	}
	items = append(items, batch.NewItem(batch.RemoveEmails, 151, "nope"))
	plan := batch.NewInput(batch.RemoveEmails, items)
	rep := batch.Report{Invalid: plan.Invalid, Batches: 2, Failed: []int{2}}
	i := 0
	for v := range plan.Values() {
		r := batch.Result{Input: v, ID: "x", Outcome: batch.Removed, Batch: 1}
		switch {
		case i == 0:
			r = batch.Result{Input: v, Outcome: batch.NotListed, Batch: 1}
		case i >= 100:
			r = batch.Result{Input: v, Outcome: batch.Failed, Message: "the service answered 503 service_unavailable: busy", Batch: 2}
		}
		rep.Results = append(rep.Results, r)
		i++
	}
	sum := newSummary(plan.Mode, plan.Len())
	sum.add(rep)
	a.printReport(sum, "http://svc.example")
	for _, want := range []string{
		"Remove by address on http://svc.example, 2 batches: 99 removed, 1 not on the list, 50 failed.",
		"Left out: 0 duplicates, 1 invalid.",
		`line 151: "nope": `,
		"Batch 2 failed: the service answered 503 service_unavailable: busy",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report does not say %q:\n%s", want, out)
		}
	}
	if sum.complete() || sum.unsent() != 0 || len(sum.failed) != 1 {
		t.Errorf("summary: complete %v, unsent %d, failed %v", sum.complete(), sum.unsent(), sum.failed)
	}
}

// A run of several segments numbers its batches across segments, and
// counts the entries of segments it never reached as unsent.
func TestSummaryAcrossSegments(t *testing.T) {
	const segmentSize, segmentBatches = batch.SegmentSize, batch.SegmentSize / api.MaxBatch
	values := make([]string, segmentSize+250)
	for i := range values {
		values[i] = fmt.Sprintf("u%d@example.com", i)
	}
	first := values[:segmentSize]
	sum := newSummary(batch.Add, len(values))
	rep := batch.Report{Batches: segmentBatches, Failed: []int{7}}
	for i, v := range first {
		o := batch.Added
		if i/api.MaxBatch == 6 {
			o = batch.Failed
		}
		rep.Results = append(rep.Results, batch.Result{Input: v, ID: "x", Outcome: o, Batch: i/api.MaxBatch + 1})
	}
	sum.add(rep)
	if sum.batches != segmentBatches+3 || sum.unsent() != 3 || sum.complete() {
		t.Errorf("batches %d, unsent %d", sum.batches, sum.unsent())
	}
	got := sum.outcomes()
	if got[batch.Added] != segmentSize-100 || got[batch.Failed] != 100 || got[batch.Unsent] != 250 {
		t.Errorf("outcomes %v", got)
	}
	if len(sum.failed) != 1 || sum.failed[0].number != 7 {
		t.Errorf("failed %v", sum.failed)
	}
}

func TestHumanListIsSafeAndPages(t *testing.T) {
	a, out, errOut := humanApp()
	created := api.Timestamp{Time: time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)}
	page := api.ListResponse{HasMore: true, Data: []api.Entry{
		{ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a", Email: "evil\x1b[2J@example.com", Origin: api.OriginBounce, CreatedAt: created,
			Note: new("full \x1b]0;pwned\x07mailbox"), ExpiresAt: &api.Timestamp{Time: created.AddDate(0, 1, 0)}},
		{ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c69", Email: "ok@example.com", Origin: api.OriginManual, CreatedAt: created},
	}}
	if err := a.printList(page, client.ListParams{Limit: 2, Origin: api.OriginBounce}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "\x1b") {
		t.Errorf("an escape sequence from the service reached the terminal: %q", out)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || strings.Join(strings.Fields(lines[0]), " ") != "EMAIL ID ORIGIN CREATED EXPIRES NOTE" ||
		!strings.HasSuffix(strings.Join(strings.Fields(lines[1]), " "), `2026-11-21 09:30:00 2026-12-21 09:30:00 full \x1b]0;pwned\x07mailbox`) ||
		strings.Join(strings.Fields(lines[2]), " ") != "ok@example.com 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c69 manual 2026-11-21 09:30:00" ||
		column(lines[1], "0195") != column(lines[2], "0195") {
		t.Errorf("table:\n%s", out)
	}
	if want := "More entries: shush suppressions list --after 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c69 --limit 2 --origin bounce"; !strings.Contains(errOut.String(), want) {
		t.Errorf("next page hint %q, want %q", errOut, want)
	}
}

func TestExitCodes(t *testing.T) {
	cases := []struct {
		err  error
		code int
	}{
		{usagef("bad"), ExitUsage},
		{&api.Error{StatusCode: 403}, ExitRefused},
		{&api.Error{StatusCode: 401}, ExitRefused},
		{&api.Error{StatusCode: 422}, ExitFailed},
		{exitErr{ExitNotListed, errors.New("x is not on the list")}, ExitNotListed},
		{context.Canceled, ExitInterrupted},
		{exitErr{ExitInterrupted, errors.New("stopped")}, ExitInterrupted},
		{exitErr{ExitFailed, errors.New("1 batch failed")}, ExitFailed},
		{errors.New("anything else"), ExitFailed},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.code {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.code)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain/file.txt": "plain/file.txt",
		"with space.txt": "'with space.txt'",
		"it's.txt":       `'it'\''s.txt'`,
		"-":              "-",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// column is the screen column (in runes) where sub starts in line.
func column(line, sub string) int {
	return utf8.RuneCountInString(line[:strings.Index(line, sub)])
}

func TestHumanConfigMasksTheKey(t *testing.T) {
	a, out, _ := humanApp()
	key := "shush_0123456789abcdef_abcdefghijklmnopqrstuvwxyz234567"
	v := configView{
		Profile:    config.Setting{Value: "work", Source: "SHUSH_PROFILE"},
		BaseURL:    config.Setting{Value: "https://svc.example", Source: `profile "work" in /c/config.toml`},
		APIKey:     config.Setting{Value: config.MaskKey(key), Source: "--api-key flag"},
		File:       "/c/config.toml",
		FileFound:  true,
		JournalDir: "/s/journal",
	}
	if err := a.printConfig(v); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{"profile", "work", "SHUSH_PROFILE", "https://svc.example", `profile "work" in /c/config.toml`, "shush_01…4567", "--api-key flag", "(found)"} {
		if !strings.Contains(got, want) {
			t.Errorf("config table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, key[10:40]) {
		t.Errorf("the key shows:\n%s", got)
	}
}

// The command that finishes an interrupted run reads the ticket with the
// same override, so that it finds the same plan.
func TestResumeCommandKeepsTheOverride(t *testing.T) {
	a, _, _ := humanApp()
	for f, want := range map[batchFlags]string{
		{file: "t.txt"}:                         "shush suppressions batch add --file t.txt --resume",
		{file: "t.txt", includeRequester: true}: "shush suppressions batch add --file t.txt --include-requester --resume",
		{file: "t.txt", excludeRequester: true}: "shush suppressions batch add --file t.txt --exclude-requester --resume",
	} {
		if got := a.resumeCommand(batch.Add, f); got != want {
			t.Errorf("%+v: %q; want %q", f, got, want)
		}
	}
}

// A stopped run's state counts the entries the service refused as sent,
// which a resume would not send again.
func TestStateTextCountsRefusedAsSent(t *testing.T) {
	ri := batch.RunInfo{State: batch.Stopped, Entries: 151, Counts: map[batch.Outcome]int{batch.Added: 100, batch.Failed: 51}, RefusedAsSent: 51}
	if got, want := stateText(ri), "stopped, 100 of 151 sent, 51 refused as sent"; got != want {
		t.Errorf("stateText = %q, want %q", got, want)
	}
	ri.RefusedAsSent = 0
	if got, want := stateText(ri), "stopped, 100 of 151 sent"; got != want {
		t.Errorf("stateText = %q, want %q", got, want)
	}
}
