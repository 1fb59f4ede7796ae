package dbcopy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Endpoint is a database to copy from or to: a SQLite file path, or a
// PostgreSQL connection string (Postgres set).
type Endpoint struct {
	DSN      string
	Postgres bool
}

// Options tune a copy.
type Options struct {
	// Force lets the copy replace what the target holds; without it a
	// target with any row is refused.
	Force bool
	// Progress, when set, hears each table as its rows are copied, and
	// the verification.
	Progress func(table string, rows int64)
}

// TableReport is one table as copied: its rows and the checksum of its
// canonical rows, the same on both sides.
type TableReport struct {
	Name string `json:"table"`
	Rows int64  `json:"rows"`
	Sum  string `json:"checksum"`
}

// Report is a finished copy: every table, verified.
type Report struct {
	Tables []TableReport `json:"tables"`
	// Replaced counts the rows of the target the copy replaced (Force).
	Replaced int64         `json:"replaced"`
	Took     time.Duration `json:"-"`
}

// ErrNotEmpty is the refusal of a target that holds rows, without Force.
var ErrNotEmpty = errors.New("the target database is not empty")

// MismatchError says the target did not read back as the source: the copy
// was rolled back.
type MismatchError struct {
	Table              string
	SourceRows, Rows   int64
	SourceSum, GotSums string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the table %s did not read back as copied (%d rows, checksum %s; the source has %d, %s): nothing was written",
		e.Table, e.Rows, e.GotSums, e.SourceRows, e.SourceSum)
}

// chunkRows is how many rows go to the target at once.
const chunkRows = 4000

// Copy copies every table of Tables from one database to the other, in
// one transaction on the target that commits only once each table reads
// back with the source's count and checksum. The target must be at the
// schema step of the source (open it with this shush first: that makes
// and migrates it); without Force it must hold no row.
func Copy(ctx context.Context, from, to Endpoint, opts Options) (Report, error) {
	start := time.Now()
	if from == to {
		return Report{}, errors.New("the source and the target are the same database")
	}
	src, err := open(ctx, from, true)
	if err != nil {
		return Report{}, fmt.Errorf("the source: %w", err)
	}
	defer src.close()
	dst, err := open(ctx, to, false)
	if err != nil {
		return Report{}, fmt.Errorf("the target: %w", err)
	}
	defer dst.close()
	if err := sameSchema(ctx, src, dst); err != nil {
		return Report{}, err
	}
	rd, err := src.snapshot(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("read the source: %w", err)
	}
	defer rd.end()
	tx, err := dst.begin(ctx)
	if err != nil {
		return Report{}, fmt.Errorf("write the target: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			tx.rollback()
		}
	}()
	rep := Report{}
	if rep.Replaced, err = prepare(ctx, tx, opts.Force); err != nil {
		return rep, err
	}
	sums, err := copyTables(ctx, rd, tx, dst.kind(), opts.Progress)
	if err != nil {
		return rep, err
	}
	if err := tx.finish(ctx); err != nil {
		return rep, fmt.Errorf("write the target: %w", err)
	}
	if rep.Tables, err = verify(ctx, tx, dst.kind(), sums, opts.Progress); err != nil {
		return rep, err
	}
	if err := tx.commit(); err != nil {
		return rep, fmt.Errorf("commit the copy: %w", err)
	}
	committed = true
	rep.Took = time.Since(start)
	return rep, nil
}

// sameSchema refuses databases at different schema steps: their tables
// and columns would differ.
func sameSchema(ctx context.Context, src, dst database) error {
	sv, err := src.version(ctx)
	if err != nil {
		return fmt.Errorf("the source: %w", err)
	}
	dv, err := dst.version(ctx)
	if err != nil {
		return fmt.Errorf("the target: %w", err)
	}
	switch {
	case sv == 0:
		return errors.New("the source holds no shush schema: it is not a shush database")
	case sv != dv:
		return fmt.Errorf("the source is at schema step %d and the target at %d: open both with the same shush (any command on the database brings it to that shush's step) and copy again", sv, dv)
	}
	return nil
}

// prepare checks that the target is empty, or empties it with force, and
// says how many rows it held.
func prepare(ctx context.Context, tx target, force bool) (int64, error) {
	var held int64
	var full []string
	for _, t := range Tables {
		n, err := tx.count(ctx, t.Name)
		if err != nil {
			return 0, fmt.Errorf("read the target: %w", err)
		}
		if n > 0 {
			held += n
			full = append(full, fmt.Sprintf("%s (%d)", t.Name, n))
		}
	}
	if held == 0 {
		return 0, nil
	}
	if !force {
		return 0, fmt.Errorf("%w: it holds rows in %s; copy into an empty database, or replace them with --force", ErrNotEmpty, strings.Join(full, ", "))
	}
	var names []string
	for _, t := range slices.Backward(Tables) {
		names = append(names, t.Name)
	}
	if err := tx.clear(ctx, names); err != nil {
		return 0, fmt.Errorf("empty the target: %w", err)
	}
	return held, nil
}

// copyTables copies each table in chunks and sums the source's rows. The
// source is read while the target writes the chunk before: each waits on
// its own database.
func copyTables(ctx context.Context, rd reader, tx target, to dialectKind, progress func(string, int64)) (map[string]sum, error) {
	sums := make(map[string]sum, len(Tables))
	for _, t := range Tables {
		s, err := copyTable(ctx, rd, tx, t, to, progress)
		if err != nil {
			return nil, err
		}
		sums[t.Name] = s
	}
	return sums, nil
}

// copyTable copies one table: a reader of the source hands chunks to the
// writer of the target, which hands them on to be summed while it writes.
func copyTable(ctx context.Context, rd reader, tx target, t Table, to dialectKind, progress func(string, int64)) (sum, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	chunks := make(chan []row, 2)
	var readErr error
	go func() {
		defer close(chunks)
		chunk := make([]row, 0, chunkRows)
		readErr = rd.each(ctx, t, to, func(r row) error {
			if chunk = append(chunk, r); len(chunk) < chunkRows {
				return nil
			}
			select {
			case chunks <- chunk:
			case <-ctx.Done():
				return ctx.Err()
			}
			chunk = make([]row, 0, chunkRows)
			return nil
		})
		if readErr == nil && len(chunk) > 0 {
			chunks <- chunk
		}
	}()
	summing := make(chan []row, 4)
	summed := make(chan sum, 1)
	go func() {
		var s sum
		for chunk := range summing {
			for _, r := range chunk {
				s.add(r)
			}
		}
		summed <- s
	}()
	written, err := writeChunks(ctx, tx, t, chunks, summing, progress)
	close(summing)
	s := <-summed
	if err != nil {
		cancel()
		for range chunks {
		}
		return sum{}, err
	}
	if readErr != nil {
		return sum{}, fmt.Errorf("read the source's %s: %w", t.Name, readErr)
	}
	if s.rows != written {
		return sum{}, fmt.Errorf("the source's %s: %d rows read, %d written", t.Name, s.rows, written)
	}
	return s, ctx.Err()
}

// writeChunks writes each chunk, handing it to be summed first.
func writeChunks(ctx context.Context, tx target, t Table, chunks <-chan []row, summing chan<- []row, progress func(string, int64)) (int64, error) {
	var written int64
	for chunk := range chunks {
		summing <- chunk
		if err := tx.write(ctx, t, chunk); err != nil {
			return written, fmt.Errorf("write the target's %s: %w", t.Name, err)
		}
		written += int64(len(chunk))
		if progress != nil {
			progress(t.Name, written)
		}
	}
	return written, nil
}

// verify reads every table back from the target, inside the copy's own
// change, and compares it with the source.
func verify(ctx context.Context, tx target, kind dialectKind, want map[string]sum, progress func(string, int64)) ([]TableReport, error) {
	out := make([]TableReport, 0, len(Tables))
	for _, t := range Tables {
		var got sum
		if err := tx.each(ctx, t, kind, func(r row) error { got.add(r); return nil }); err != nil {
			return nil, fmt.Errorf("read back the target's %s: %w", t.Name, err)
		}
		w := want[t.Name]
		if got != w {
			return nil, &MismatchError{Table: t.Name, SourceRows: w.rows, Rows: got.rows, SourceSum: w.String(), GotSums: got.String()}
		}
		if progress != nil {
			progress("verified "+t.Name, got.rows)
		}
		out = append(out, TableReport{Name: t.Name, Rows: got.rows, Sum: got.String()})
	}
	return out, nil
}

// dialectKind says which dialect a database speaks.
type dialectKind int

const (
	sqliteKind dialectKind = iota
	postgresKind
)

// database is one database open for a copy.
type database interface {
	kind() dialectKind
	version(ctx context.Context) (int, error)
	snapshot(ctx context.Context) (reader, error)
	begin(ctx context.Context) (target, error)
	close()
}

// reader reads a table's rows, each as its Table's columns say, with the
// keys of changes in the dialect to (see change).
type reader interface {
	each(ctx context.Context, t Table, to dialectKind, fn func(row) error) error
	end()
}

// target is the copy's change of the target database.
type target interface {
	reader
	count(ctx context.Context, table string) (int64, error)
	clear(ctx context.Context, tables []string) error
	write(ctx context.Context, t Table, rows []row) error
	// finish sets what the target derives from the rows (SQLite's
	// sequence of changes).
	finish(ctx context.Context) error
	commit() error
	rollback()
}

func open(ctx context.Context, e Endpoint, readOnly bool) (database, error) {
	if e.Postgres {
		return openPostgres(ctx, e.DSN)
	}
	return openSQLite(ctx, e.DSN, readOnly)
}
