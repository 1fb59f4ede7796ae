package sqlstore

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Schema is a dialect's schema history in the numbering both dialects
// share: step n brings the same thing in both (its SQL is the dialect's),
// and Steps[n-1] is step n. A step is never edited once released; a
// change of schema is a new step, written in both dialects under the same
// number (see MustSteps).
//
// Before the numbering was shared, PostgreSQL numbered its steps 3 to 5
// in another order (3 the origin index, 4 webhooks, 5 changes) than
// SQLite (3 webhooks, 4 changes, 5 the covering origin index), which the
// shared numbering keeps. Before maps a version such a database records
// to the steps it has in the shared numbering; a version it does not name
// means the same in both. The map is unambiguous because Migrate applies
// every missing step in one transaction: no database migrated under the
// shared numbering stops at a version Before names.
type Schema struct {
	Steps  []string
	Before map[int][]int
}

// MustSteps reads a dialect's steps from the .sql files in dir of fsys,
// named NNN_what.sql and numbered from 001 without a gap; the same file
// name in both dialects is the same step. It panics on anything else: the
// files are part of the binary.
func MustSteps(fsys fs.FS, dir string) []string {
	names, err := fs.Glob(fsys, dir+"/*.sql")
	if err != nil {
		panic(err)
	}
	slices.Sort(names)
	steps := make([]string, len(names))
	for i, name := range names {
		n, err := strconv.Atoi(strings.SplitN(path.Base(name), "_", 2)[0])
		if err != nil || n != i+1 {
			panic(fmt.Sprintf("schema step %s: want step %03d here", name, i+1))
		}
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			panic(err)
		}
		steps[i] = string(b)
	}
	return steps
}

// Migrator is a dialect's hold on its database's schema history, inside
// the transaction (and lock) in which Migrate runs. The history is the
// table schema_migrations, one row per step applied (its version).
type Migrator interface {
	// Exec runs SQL without arguments.
	Exec(ctx context.Context, sql string) error
	// Version is the newest step the history records, 0 for none.
	Version(ctx context.Context) (int, error)
	// Record adds the steps to the history, as applied now.
	Record(ctx context.Context, steps []int) error
}

// Migrate applies the steps of s the database lacks, in order, after
// renumbering the history of a database made before the shared numbering.
func Migrate(ctx context.Context, m Migrator, s Schema) error {
	have, err := m.Version(ctx)
	if err != nil {
		return err
	}
	if have > len(s.Steps) {
		return fmt.Errorf("the database schema is at version %d, newer than this shush knows (%d): upgrade shush", have, len(s.Steps))
	}
	done := make([]int, 0, len(s.Steps))
	if steps, ok := s.Before[have]; ok {
		if err := m.Exec(ctx, "DELETE FROM schema_migrations"); err != nil {
			return err
		}
		if err := m.Record(ctx, steps); err != nil {
			return fmt.Errorf("renumber the schema's history: %w", err)
		}
		done = steps
	} else {
		for n := 1; n <= have; n++ {
			done = append(done, n)
		}
	}
	for n := 1; n <= len(s.Steps); n++ {
		if slices.Contains(done, n) {
			continue
		}
		if err := m.Exec(ctx, s.Steps[n-1]); err != nil {
			return fmt.Errorf("schema migration %d: %w", n, err)
		}
		if err := m.Record(ctx, []int{n}); err != nil {
			return fmt.Errorf("schema migration %d: %w", n, err)
		}
	}
	return nil
}
