package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/bounce"
)

func (a *app) bouncesCommand() *cobra.Command {
	return group("bounces", "Take in raw bounce and complaint mail", `Take in the bounce and complaint messages a mail server sent back: RFC 3464
delivery-status reports, RFC 5965 (ARF) feedback reports, the plain-text
bounces of Postfix, Exim, Exchange and Office 365, Gmail, qmail and
sendmail, and auto-replies. shush reads them here and sends what each says
to the team's service, which decides by the same rules as the providers'
webhooks (see shush intake).`,
		a.bouncesIngestCommand())
}

// ingested is one report read from a message and what the service did
// with it.
type ingested struct {
	Source   string `json:"source"`
	Email    string `json:"email"`
	Kind     string `json:"kind"`
	Status   string `json:"status,omitempty"`
	Shape    string `json:"shape,omitempty"`
	EventID  string `json:"event_id"`
	Decision string `json:"decision,omitempty"`
	ID       string `json:"id,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

// unreadable is a message that could not be read.
type unreadable struct {
	Source string `json:"source"`
	Error  string `json:"error"`
}

// ingestDoc is what bounces ingest prints with --json.
type ingestDoc struct {
	Object     string       `json:"object"`
	DryRun     bool         `json:"dry_run,omitempty"`
	Messages   int          `json:"messages"`
	Data       []ingested   `json:"data"`
	Unreadable []unreadable `json:"unreadable"`
}

type bouncesIngestOptions struct {
	*app
	File, Reference string
	DryRun          bool
}

func runBouncesIngest(ctx context.Context, o *bouncesIngestOptions) error {
	if o.File == "" {
		return usagef("bounces ingest needs --file F (a message, an mbox or a Maildir folder; - for stdin)")
	}
	ctx, err := withReference(ctx, o.Reference)
	if err != nil {
		return err
	}
	doc, reports, err := readBounces(o.File, o.io.In)
	if err != nil {
		return err
	}
	doc.DryRun = o.DryRun
	if !o.DryRun {
		if err := o.sendReports(ctx, &doc, reports); err != nil {
			return err
		}
	}
	if err := o.printIngest(doc); err != nil {
		return err
	}
	if n := len(doc.Unreadable); n > 0 {
		done := "taken in"
		if o.DryRun {
			done = "read (nothing sent)"
		}
		err := fmt.Errorf("%s could not be read; the others were %s", plural(n, "message", "messages"), done)
		if !o.output().json {
			fmt.Fprintln(o.io.ErrOut, capitalize(err.Error())+".")
		}
		return loggedError{err}
	}
	return nil
}

func (a *app) bouncesIngestCommand() *cobra.Command {
	o := &bouncesIngestOptions{app: a}
	cmd := command(o, "ingest --file F|-", "Read bounce mail (a message, an mbox or a Maildir) and send what it says",
		noArgs, runBouncesIngest)
	cmd.Long = `Read bounce and complaint mail (one message, an mbox, or a Maildir folder with
cur/ and new/; - reads stdin) and send each recipient's report to the team's
service, 100 a request. The service lists permanent failures (origin bounce)
and complaints (origin complaint) with their evidence (provider mail: the
status code, the remote server's words, the reporting host, the message),
counts temporary failures toward the team's threshold, ignores auto-replies,
and puts what its rules cannot place (a 5.7.x policy block, a bounce
without a status code, a message it could not read, a protected address)
in the review queue: see shush intake review.

A message read twice (the same mbox again) is taken in once: its report's
ID (the report's Message-ID and the recipient, or a hash of the message)
makes the second a duplicate. A message that cannot be read is named with
its file (and its line in an mbox) and the others still go; the command
then ends with 1. --dry-run reads and shows the reports, sending nothing. --json
prints {"object","messages" (read),"data":[{"source","email","kind","status",
"shape","event_id","decision","id","reason"}],"unreadable":[{"source",
"error"}]}.`
	cmd.Example = `  shush bounces ingest --file /var/mail/bounces
  shush bounces ingest --file ~/Maildir/.Bounces --reference "mailbox sweep 2026-11"
  cat dsn.eml | shush bounces ingest --file - --dry-run`
	f := cmd.Flags()
	f.StringVar(&o.File, "file", "", "a message, an mbox or a Maildir folder; - reads stdin")
	f.BoolVar(&o.DryRun, "dry-run", false, "read and show the reports, send nothing")
	referenceFlag(cmd, &o.Reference)
	return cmd
}

// readBounces reads every message of the source (bounce reads stdin for
// "-"). A source that cannot be opened at all is a usage error (exit 2);
// a message that cannot be read is kept with its source, and the others
// are read.
func readBounces(file string, stdin io.Reader) (ingestDoc, []api.Report, error) {
	doc := ingestDoc{Object: api.ObjectList, Data: []ingested{}, Unreadable: []unreadable{}}
	var reports []api.Report
	for m, err := range bounce.Messages(file, stdin) {
		if err != nil {
			doc.Unreadable = append(doc.Unreadable, unreadable{Source: m.Source, Error: err.Error()})
			continue
		}
		got, err := m.Parse()
		if err != nil {
			doc.Unreadable = append(doc.Unreadable, unreadable{Source: m.Source, Error: err.Error()})
			continue
		}
		doc.Messages++
		for _, r := range got {
			doc.Data = append(doc.Data, ingested{Source: m.Source, Email: r.Recipient, Kind: string(r.Kind), Status: r.Status,
				Shape: r.Shape, EventID: r.EventID})
			reports = append(reports, wireReport(r))
		}
	}
	if doc.Messages == 0 && len(doc.Unreadable) == 1 && doc.Unreadable[0].Source == "" {
		return doc, nil, usagef("%s", doc.Unreadable[0].Error)
	}
	return doc, reports, nil
}

// wireReport is a report as POST /intake/reports takes it.
func wireReport(r bounce.Report) api.Report {
	out := api.Report{Email: r.Recipient, Kind: string(r.Kind), Status: r.Status, Action: r.Action, Diagnostic: r.Diagnostic,
		ReportingMTA: r.ReportingMTA, MessageID: r.MessageID, OriginalMessageID: r.OriginalMessageID, FeedbackType: r.FeedbackType,
		Shape: r.Shape, EventID: r.EventID}
	if !r.ReportedAt.IsZero() {
		out.ReportedAt = &api.Timestamp{Time: r.ReportedAt}
	}
	return out
}

// sendReports sends the reports read, api.MaxReports a request, and takes
// each answer's items back by event ID and address: never by position.
func (a *app) sendReports(ctx context.Context, doc *ingestDoc, pending []api.Report) error {
	if len(pending) == 0 {
		return nil
	}
	return a.onService(ctx, func(conn *connection) error {
		at := make(map[string][]int, len(doc.Data))
		for i, d := range doc.Data {
			k := d.EventID + "\x00" + d.Email
			at[k] = append(at[k], i)
		}
		for lo := 0; lo < len(pending); lo += api.MaxReports {
			batch := pending[lo:min(lo+api.MaxReports, len(pending))]
			ans, err := conn.Client.SendReports(ctx, batch)
			if err != nil {
				return intakeErr(conn, "", fmt.Errorf("after %d of %s: %w", lo, plural(len(pending), "report", "reports"), err))
			}
			for _, o := range ans.Data {
				k := o.EventID + "\x00" + o.Email
				for _, i := range at[k] {
					if doc.Data[i].Decision == "" {
						doc.Data[i].Decision, doc.Data[i].ID, doc.Data[i].Reason = o.Decision, o.ID, o.Reason
						break
					}
				}
			}
		}
		return nil
	})
}

// printIngest shows what was read and done: the API-shaped document with
// --json, else the counts, the events that wait for an agent and the
// messages that could not be read.
func (a *app) printIngest(doc ingestDoc) error {
	if a.output().json {
		return writeJSON(a.io.Out, doc)
	}
	counts := map[string]int{}
	for _, d := range doc.Data {
		counts[d.Decision]++
	}
	w := a.io.Out
	if doc.DryRun {
		fmt.Fprintf(w, "Read %s: %s (nothing sent).\n", plural(doc.Messages, "message", "messages"), plural(len(doc.Data), "report", "reports"))
		t := newTable(w)
		t.row("SOURCE", "EMAIL", "KIND", "STATUS", "SHAPE")
		for _, d := range doc.Data {
			t.row(d.Source, orDash(d.Email), d.Kind, orDash(d.Status), orDash(d.Shape))
		}
		if err := t.flush(); err != nil {
			return err
		}
	} else {
		var parts []string
		for _, k := range []string{api.DecisionListed, api.DecisionCounted, api.DecisionIgnored, api.DecisionReview, api.DecisionDuplicate} {
			if counts[k] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
			}
		}
		fmt.Fprintf(w, "Read %s: %s", plural(doc.Messages, "message", "messages"), plural(len(doc.Data), "report", "reports"))
		if len(parts) > 0 {
			fmt.Fprintf(w, ": %s", strings.Join(parts, ", "))
		}
		fmt.Fprintln(w, ".")
		if counts[api.DecisionReview] > 0 {
			fmt.Fprintln(w, "Waiting for an agent (shush intake review):")
			t := newTable(w)
			for _, d := range doc.Data {
				if d.Decision == api.DecisionReview {
					t.row("  "+d.Source, orDash(d.Email), d.Reason)
				}
			}
			if err := t.flush(); err != nil {
				return err
			}
		}
	}
	for _, u := range doc.Unreadable {
		fmt.Fprintf(a.io.ErrOut, "%s\n", safeText(u.Error))
	}
	return nil
}
