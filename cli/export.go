package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

type exportOptions struct {
	*app
	Params  client.ExportParams
	Origin  string
	Select  selectFlags
	OutPath string
}

// runExport streams the list (what the flags select) into --output.
func runExport(ctx context.Context, o *exportOptions) error {
	p := o.Params
	if p.Format != "csv" && p.Format != "ndjson" {
		return usagef("--format must be csv or ndjson, not %s", api.Quote(p.Format))
	}
	origin, err := originFlag(o.Origin)
	if err != nil {
		return err
	}
	p.Origin = origin
	narrow, err := o.Select.parse()
	if err != nil {
		return err
	}
	p.Search, p.CreatedAfter, p.CreatedBefore = narrow.search, narrow.after, narrow.before
	return o.onService(ctx, func(conn *connection) error {
		return o.export(ctx, conn, p, o.OutPath)
	})
}

func (a *app) exportCommand() *cobra.Command {
	o := &exportOptions{app: a}
	cmd := command(o, "export", "Write the whole list, newest first, as CSV or NDJSON", noArgs, runExport)
	cmd.Long = `Write every entry of the list, newest first, from one consistent snapshot:
CSV (id,email,origin,source_id,created_at,note,expires_at and the
evidence of entries taken in from events: evidence_provider, _kind,
_event_id, _message_id, _status, _diagnostic, _reporting_mta,
_reported_at; cells a spreadsheet would run as a formula are escaped) or
NDJSON (one entry a line, its evidence an object or null). The service streams it and shush writes it as it comes, so memory
stays flat for any size. --origin, --search (@domain, prefix*, an address)
and the created range export only the entries they select, as list does.

With --output the file is written whole or not at all (mode 0600: it holds
addresses); without it, or with --output -, the export goes to stdout. Needs shush's own service
(GET /suppressions/export); the hosted service has none (use list --all).`
	cmd.Example = `  shush suppressions export --output list.csv
  shush suppressions export --search @firm.example --output firm.csv
  shush suppressions export --format ndjson --origin bounce | jq -r .email`
	f := cmd.Flags()
	f.StringVar(&o.Params.Format, "format", "csv", "csv or ndjson")
	f.StringVar(&o.Origin, "origin", "", "only entries of this origin: bounce, complaint or manual")
	o.Select.flags(f)
	f.StringVarP(&o.OutPath, "output", "o", "", "write to this file (whole or not at all; - is stdout) instead of stdout")
	return cmd
}

// export streams the list into outPath, or stdout when it is "" or "-".
func (a *app) export(ctx context.Context, conn *connection, p client.ExportParams, outPath string) error {
	out, err := a.openOutput(outPath)
	if err != nil {
		return err
	}
	defer out.abort()
	prog := &exportProgress{w: out, err: a.io.ErrOut, show: a.io.StderrTTY, csv: p.Format == "csv"}
	_, err = conn.Client.Export(ctx, p, prog)
	prog.done()
	if err != nil {
		if client.IsNotFound(err) || client.IsUnsupported(err) {
			return fmt.Errorf("%s offers no export (only shush's own service does); use shush suppressions list --all: %w", conn.Target, err)
		}
		return err
	}
	if err := out.commit(); err != nil {
		return err
	}
	if out.file != nil {
		abs, _ := filepath.Abs(outPath)
		fmt.Fprintf(a.io.ErrOut, "Exported %s to %s.\n", plural(prog.entries(), "entry", "entries"), safeText(abs))
	}
	return nil
}

// exportProgress passes the export through and counts its lines, saying
// how far it got on a terminal.
type exportProgress struct {
	w     io.Writer
	err   io.Writer
	show  bool
	csv   bool
	lines int
	shown int
}

func (p *exportProgress) Write(b []byte) (int, error) {
	p.lines += bytes.Count(b, []byte{'\n'})
	if p.show && p.lines-p.shown >= 10000 {
		p.shown = p.lines
		fmt.Fprintf(p.err, "\rExported %d entries…", p.entries())
	}
	return p.w.Write(b)
}

func (p *exportProgress) entries() int {
	if p.csv && p.lines > 0 {
		return p.lines - 1
	}
	return p.lines
}

func (p *exportProgress) done() {
	if p.show && p.shown > 0 {
		fmt.Fprint(p.err, "\r\x1b[K")
	}
}
