package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// exportColumns are what an export reads of each entry, in as few columns
// as it can: modernc.org/sqlite takes and releases the connection's mutex
// for every column it reads (once for its type, once more for its text),
// which cost an export more than SQLite's own stepping through the rows.
// The origin's first letter (b, c or m tell the three apart), the ID
// (canonical, 36 characters: the store writes no other) and the address
// are one text; a source, a note, an expiry and an evidence are mostly
// NULL, read with one call each.
const exportColumns = "substr(origin, 1, 1) || id || email, created_at, source_id, note, expires_at, evidence, erased_domain"

// ExportEntries reads the list from one read transaction: a WAL snapshot,
// in which changes committed meanwhile are not seen.
func (s *db) ExportEntries(ctx context.Context, p *sqlstore.EntriesParams, fn func(store.Entry) error) error {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	base, where, args := entriesQuery(p, exportColumns)
	rows, err := tx.QueryContext(ctx, base+" WHERE "+strings.Join(where, " AND ")+" ORDER BY id DESC", args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		e            store.Entry
		packed       string
		created      int64
		source, note sql.NullString
		domain       sql.NullString
		until        sql.NullInt64
		ev           sqlstore.EvidenceColumn
	)
	for rows.Next() {
		if err := rows.Scan(&packed, &created, &source, &note, &until, &ev, &domain); err != nil {
			return err
		}
		e.Evidence, e.ErasedDomain = ev.Evidence, domain.String
		if err := unpack(&e, packed); err != nil {
			return err
		}
		e.CreatedAt = time.UnixMilli(created).UTC()
		e.SourceID, e.Note, e.ExpiresAt = nil, note.String, time.Time{}
		if source.Valid {
			src := source.String
			e.SourceID = &src
		}
		if until.Valid {
			e.ExpiresAt = time.UnixMilli(until.Int64).UTC()
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}

// errPacked says an exported row was not what exportColumns make.
var errPacked = errors.New("an entry's origin, ID and address did not read back as written")

// unpack reads the origin, ID and address of exportColumns' first column;
// the ID and address share the driver's one string.
func unpack(e *store.Entry, packed string) error {
	if len(packed) < 37 || packed[9] != '-' || packed[14] != '-' || packed[19] != '-' || packed[24] != '-' {
		return errPacked
	}
	switch packed[0] {
	case 'b':
		e.Origin = api.OriginBounce
	case 'c':
		e.Origin = api.OriginComplaint
	case 'm':
		e.Origin = api.OriginManual
	default:
		return errPacked
	}
	e.ID, e.Email = packed[1:37], packed[37:]
	return nil
}
