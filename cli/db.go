package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/internal/redact"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store/dbcopy"
)

func (a *app) dbCommand() *cobra.Command {
	return group("db", "Work on the service's databases", `Work on the databases shush serve keeps its teams' lists in: SQLite files and PostgreSQL.`,
		a.dbCopyCommand())
}

// copyJSON is what db copy --json prints.
type copyJSON struct {
	From     string               `json:"from"`
	To       string               `json:"to"`
	Tables   []dbcopy.TableReport `json:"tables"`
	Rows     int64                `json:"rows"`
	Replaced int64                `json:"replaced"`
	Seconds  float64              `json:"seconds"`
}

type dbCopyOptions struct {
	*app
	From, To string
	Force    bool
}

// runDBCopy copies one database into another, verified table by table.
func runDBCopy(ctx context.Context, o *dbCopyOptions) error {
	if o.From == "" || o.To == "" {
		return usagef("db copy needs --from DSN and --to DSN")
	}
	return o.runCopy(ctx, o.From, o.To, o.Force)
}

func (a *app) dbCopyCommand() *cobra.Command {
	o := &dbCopyOptions{app: a}
	cmd := command(o, "copy --from DSN --to DSN", "Copy everything the service keeps from one database to another",
		noArgs, runDBCopy)
	cmd.Long = `Copy everything shush serve keeps from one database to another, SQLite to
PostgreSQL or back: every team's entries with their IDs, creation times,
expiries, notes and evidence, the audit trail in its order, the API keys
(their hashes: the keys go on working), the SSH agents, the webhooks with
their signing secrets and their deliveries, the teams' rules, and intake's
endpoints, events and review queue.

A DSN is a SQLite file path, a postgres:// URL or a key=value PostgreSQL
string; a SQLite target is created when missing, a PostgreSQL one must
exist (an empty database or schema: shush makes its tables). The copy is one
transaction on the target: it commits only once every table reads back with
the source's row count and the checksum of its canonical rows (the same in
both dialects), so an interrupted or failed copy leaves the target as it
was, and running it again starts afresh. A target that holds any row is
refused; --force replaces what it holds.

Stop shush serve on the target first; the source may stay in use (the copy
reads it as of one moment). Both databases must be at this shush's schema:
any shush command on a database brings it there.`
	cmd.Example = `  shush db copy --from ~/.local/share/shush/shush.db --to postgres://shush@db.internal/shush
  shush db copy --from postgres://shush@db.internal/shush --to backup.db --json`
	fl := cmd.Flags()
	fl.StringVar(&o.From, "from", "", "the database to copy: a SQLite file path, a postgres:// URL or a key=value PostgreSQL string")
	fl.StringVar(&o.To, "to", "", "the database to copy into (a SQLite file is created when missing)")
	fl.BoolVar(&o.Force, "force", false, "replace what the target holds (without it a target with any row is refused)")
	return cmd
}

// endpoint checks a DSN and says which database it names.
func endpoint(flag, dsn string) (dbcopy.Endpoint, error) {
	kind, err := server.ClassifyDSN(dsn)
	if err != nil {
		return dbcopy.Endpoint{}, usagef("--%s: %v", flag, err)
	}
	return dbcopy.Endpoint{DSN: dsn, Postgres: kind == server.DSNPostgres}, nil
}

func (a *app) runCopy(ctx context.Context, fromDSN, toDSN string, force bool) error {
	from, err := endpoint("from", fromDSN)
	if err != nil {
		return err
	}
	to, err := endpoint("to", toDSN)
	if err != nil {
		return err
	}
	if !from.Postgres {
		if _, err := os.Stat(from.DSN); errors.Is(err, fs.ErrNotExist) {
			return usagef("--from: there is no database file %s", from.DSN)
		}
	}
	// The target is made (a SQLite file) and brought to this shush's
	// schema as any command opens a database; a file made here goes again
	// when the copy fails.
	made := !to.Postgres && !exists(to.DSN)
	st, _, err := openStore(ctx, to.DSN)
	if err != nil {
		return err
	}
	st.Close()
	progress := a.copyProgress()
	rep, err := dbcopy.Copy(ctx, from, to, dbcopy.Options{Force: force, Progress: progress.show})
	progress.clear()
	if err != nil {
		if made {
			for _, p := range []string{to.DSN, to.DSN + "-wal", to.DSN + "-shm"} {
				_ = os.Remove(p)
			}
		}
		if errors.Is(err, dbcopy.ErrNotEmpty) {
			return usageErr{err}
		}
		return fmt.Errorf("copy %s to %s: %w", redact.DSN(from.DSN), redact.DSN(to.DSN), err)
	}
	return a.printCopy(rep, from, to)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (a *app) printCopy(rep dbcopy.Report, from, to dbcopy.Endpoint) error {
	var rows int64
	for _, t := range rep.Tables {
		rows += t.Rows
	}
	if a.output().json {
		return writeJSON(a.io.Out, copyJSON{From: redact.DSN(from.DSN), To: redact.DSN(to.DSN), Tables: rep.Tables, Rows: rows,
			Replaced: rep.Replaced, Seconds: rep.Took.Seconds()})
	}
	w := a.io.Out
	t := newTable(w)
	t.row("TABLE", "ROWS", "CHECKSUM")
	for _, tr := range rep.Tables {
		t.row(tr.Name, fmt.Sprint(tr.Rows), tr.Sum)
	}
	_ = t.flush()
	fmt.Fprintf(w, "Copied %s from %s to %s in %s; every table read back with the source's rows and checksum.\n",
		plural(int(rows), "row", "rows"), safeText(redact.DSN(from.DSN)), safeText(redact.DSN(to.DSN)), rep.Took.Round(time.Millisecond))
	if rep.Replaced > 0 {
		fmt.Fprintf(w, "It replaced the %s the target held (--force).\n", plural(int(rep.Replaced), "row", "rows"))
	}
	return nil
}

// copyLine shows a copy's progress on a terminal.
type copyLine struct {
	a    *app
	on   bool
	last time.Time
}

func (a *app) copyProgress() *copyLine {
	return &copyLine{a: a, on: a.io.StderrTTY}
}

func (p *copyLine) show(table string, rows int64) {
	if !p.on || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.a.io.ErrOut, "\r\x1b[K%s · %d rows", table, rows)
}

func (p *copyLine) clear() {
	if p.on {
		fmt.Fprint(p.a.io.ErrOut, "\r\x1b[K")
	}
}
