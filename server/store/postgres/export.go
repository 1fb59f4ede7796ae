package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// ExportEntries reads the list from one REPEATABLE READ snapshot, in the
// order of the index a page reads (entriesQuery without a limit); pgx
// reads the rows as they come, so memory stays flat (a scan gives each
// entry a source ID of its own).
func (s *db) ExportEntries(ctx context.Context, p *sqlstore.EntriesParams, fn func(store.Entry) error) error {
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		q, args := entriesQuery(p, sqlstore.Window{})
		rows, err := tx.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		var (
			e      store.Entry
			origin string
			note   *string
			until  *time.Time
			ev     sqlstore.EvidenceColumn
			domain *string
		)
		_, err = pgx.ForEachRow(rows, []any{&e.ID, &e.Email, &origin, &e.SourceID, &e.CreatedAt, &note, &until, &ev, &domain}, func() error {
			e.Origin, e.CreatedAt, e.Note, e.ExpiresAt = api.Origin(origin), e.CreatedAt.UTC(), "", time.Time{}
			e.Evidence, e.ErasedDomain = ev.Evidence, ""
			if domain != nil {
				e.ErasedDomain = *domain
			}
			if note != nil {
				e.Note = *note
			}
			if until != nil {
				e.ExpiresAt = until.UTC()
			}
			return fn(e)
		})
		return err
	})
}
