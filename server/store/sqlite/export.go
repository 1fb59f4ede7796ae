package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// ExportEntries reads the list from one read transaction: a WAL snapshot,
// in which changes committed meanwhile are not seen.
func (s *db) ExportEntries(ctx context.Context, p *sqlstore.EntriesParams, fn func(store.Entry) error) error {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	base, where, args := entriesQuery(p)
	rows, err := tx.QueryContext(ctx, base+" WHERE "+strings.Join(where, " AND ")+" ORDER BY id DESC", args...)
	if err != nil {
		return err
	}
	return each(rows, sqlstore.ScanEntry, fn)
}
