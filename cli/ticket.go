package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// ticketShape is the JSON `ticket read` prints.
const ticketShape = `{"mode": "add|remove|remove_ids|check|unsure", "targets": [...], "left_out": [{"value","reason","line"}], "requester": "…"|null, "reference": {"value","source","line","text"}|null, "evidence": [{"line","text","says"}]}`

func (a *app) ticketCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ticket",
		Short: "Read a ticket as the terminal UI reads a paste",
		Args:  noArgs,
	}
	cmd.AddCommand(a.ticketReadCommand())
	return cmd
}

func (a *app) ticketReadCommand() *cobra.Command {
	o := &ticketReadOptions{app: a}
	cmd := command(o, "read --file F", "Say what a ticket asks: the mode, its targets, what it leaves out and why",
		noArgs, runTicketRead)
	cmd.Long = `Read a ticket (an e-mail thread, a helpdesk export, a forwarded bounce
report, HTML, in English, German, Spanish, French, Portuguese, Italian,
Dutch, Swedish, Danish, Norwegian, Finnish, Polish, Czech, Hungarian,
Romanian, Greek or Turkish) as the terminal UI reads
a paste, and say what it would propose: the mode (add, remove, remove_ids,
check, or unsure when the ticket does not say or says both), the targets of
that mode, every address it leaves out with the reason and the line, the
requester, the ticket reference, and the lines that decided. The newest
mail decides; a quoted or forwarded older one only informs. Nothing is
looked up or changed; config "own" counts as ours.

An address written out in words ("jane at example dot com") is left out, to
be checked; a likely typo of a mail provider's domain ("gmial.com") is
named in the evidence, never mended. --file - reads stdin.`
	cmd.Example = `  shush ticket read --file ticket-4711.txt
  pbpaste | shush ticket read --file - --json`
	cmd.Flags().StringVar(&o.File, "file", "", "the ticket's text; - reads stdin")
	return cmd
}

type ticketReadOptions struct {
	*app
	File string
}

// runTicketRead reads --file as a ticket and prints the reading.
func runTicketRead(ctx context.Context, o *ticketReadOptions) error {
	a, file := o.app, o.File
	settings, err := a.settings()
	if err != nil {
		return err
	}
	tk, _, err := withInput(ctx, a, file, func(r io.Reader, name string) (*ticket.Ticket, batch.Format, error) {
		return readTicketText(r, name)
	})
	if err != nil {
		return err
	}
	reading := tk.Reading(ticket.NewOwn(settings.Own))
	if a.output().json {
		return writeJSON(a.io.Out, reading)
	}
	return a.page(a.io.Out, humanReading(reading))
}

// readTicketText reads a whole input as a ticket, with the reference its
// file name names first.
func readTicketText(r io.Reader, name string) (*ticket.Ticket, batch.Format, error) {
	data, err := io.ReadAll(io.LimitReader(r, batch.MaxInput+1))
	switch {
	case err != nil:
		return nil, batch.Text, fmt.Errorf("%s: cannot read it: %w", name, err)
	case len(data) > batch.MaxInput:
		return nil, batch.Text, fmt.Errorf("%s: it is over %d MiB", name, batch.MaxInput>>20)
	case !utf8.Valid(data):
		return nil, batch.Text, fmt.Errorf("%s: it is not UTF-8 text; save it as UTF-8", name)
	case strings.TrimSpace(string(data)) == "":
		return nil, batch.Text, fmt.Errorf("%s: it is empty", name)
	}
	tk := ticket.Read(strings.TrimPrefix(string(data), "\uFEFF"))
	if ref, ok := ticket.FindReference("", name); ok {
		tk.Reference, tk.HasReference = ref, true
	}
	return tk, batch.Text, nil
}

// humanReading is the reading for people; everything from the ticket is
// sanitized.
func humanReading(r ticket.Reading) string {
	var w strings.Builder
	p := r.Proposal
	fmt.Fprintf(&w, "Mode: %s — the ticket %s", r.Mode, safeText(p.Why))
	if p.By.Line > 0 {
		fmt.Fprintf(&w, " (line %d: %q)", p.By.Line, safeText(p.Words))
	}
	w.WriteString(".\n")
	for _, q := range p.Ask {
		fmt.Fprintf(&w, "Ask first: %s.\n", safeText(q))
	}
	fmt.Fprintf(&w, "Targets (%d):", len(r.Targets))
	for _, t := range r.Targets {
		w.WriteString(" " + shown(t))
	}
	w.WriteString("\n")
	if r.Requester != nil {
		fmt.Fprintf(&w, "Requester: %s\n", shown(*r.Requester))
	}
	if r.Reference != nil {
		fmt.Fprintf(&w, "Reference: %s (%s)\n", safeText(r.Reference.Value), safeText(r.Reference.Where()))
	}
	if len(r.LeftOut) > 0 {
		w.WriteString("Left out:\n")
		for _, l := range r.LeftOut {
			fmt.Fprintf(&w, "  %s — %s (line %d)\n", shown(l.Value), safeText(l.Reason), l.Line)
		}
	}
	if len(r.Evidence) > 0 {
		w.WriteString("Evidence:\n")
		for _, e := range r.Evidence {
			fmt.Fprintf(&w, "  line %d: %q — %s\n", e.Line, safeText(e.Text), safeText(e.Says))
		}
	}
	return w.String()
}

// shown is an address as people read it: an internationalized domain in
// Unicode, its ASCII form (what is sent) beside it; sanitized.
func shown(v string) string {
	if u := api.UnicodeEmail(v); u != v {
		return safeText(u) + " (" + safeText(v) + ")"
	}
	return safeText(v)
}

// intentGuard stops a batch whose mode its ticket's words contradict: one
// sentence naming the ticket's words and line, exit status 2; not with
// --ignore-intent, nor for a run resumed (it was started already).
func intentGuard(in *batch.Input, mode batch.Mode, f batchFlags) error {
	if !in.IsTicket || f.ignoreIntent || f.resume {
		return nil
	}
	if why, bad := in.Proposal.Contradicts(mode.TicketMode()); bad {
		return usagef("%s: %s; nothing was changed (--ignore-intent sends it as %s anyway)", inputName(f.file), why, mode)
	}
	return nil
}
