package sqlstore

import (
	"context"
	"fmt"
	"slices"
)

// Schema is a dialect's schema history in the numbering both dialects
// share: step n brings the same thing in both (its SQL is the dialect's),
// and Steps[n-1] is step n. A step is never edited once released; a
// change of schema is a new step, written in both dialects under the same
// number.
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

// Migrator is a dialect's hold on its schema's history, inside the
// transaction (and lock) in which Migrate runs.
type Migrator interface {
	// Version is the newest step the database records, 0 for a new one.
	Version(ctx context.Context) (int, error)
	// Apply runs a step's SQL and records its number.
	Apply(ctx context.Context, n int, sql string) error
	// Renumber replaces the recorded steps with these.
	Renumber(ctx context.Context, steps []int) error
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
		if err := m.Renumber(ctx, steps); err != nil {
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
		if err := m.Apply(ctx, n, s.Steps[n-1]); err != nil {
			return fmt.Errorf("schema migration %d: %w", n, err)
		}
	}
	return nil
}
