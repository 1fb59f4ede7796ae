package dbcopy

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// postgresDB is a PostgreSQL database open for a copy, on one connection.
type postgresDB struct {
	conn *pgx.Conn
}

func openPostgres(ctx context.Context, dsn string) (*postgresDB, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("cannot connect to PostgreSQL: %s", pe.Message)
		}
		// pgx's message may quote the connection string, password
		// included.
		return nil, errors.New("cannot connect to PostgreSQL (check the host, the port and the credentials)")
	}
	return &postgresDB{conn: conn}, nil
}

func (p *postgresDB) kind() dialectKind { return postgresKind }

func (p *postgresDB) close() { p.conn.Close(context.Background()) }

func (p *postgresDB) version(ctx context.Context) (int, error) {
	var n int
	err := p.conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&n)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P01" { // undefined_table
		return 0, nil
	}
	return n, err
}

// snapshot reads every table as of one moment.
func (p *postgresDB) snapshot(ctx context.Context) (reader, error) {
	tx, err := p.conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	return postgresTx{tx: tx}, nil
}

// begin starts the copy's change; it takes the tables' locks before it
// reads them, so that no other writer's rows slip in beside the copy.
func (p *postgresDB) begin(ctx context.Context) (target, error) {
	tx, err := p.conn.Begin(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(Tables))
	for i, t := range Tables {
		names[i] = t.Name
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE "+strings.Join(names, ", ")+" IN EXCLUSIVE MODE"); err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	// The indexes are made again in one go at the end (see dropIndexes):
	// with room to sort in memory.
	if _, err := tx.Exec(ctx, "SET LOCAL maintenance_work_mem = '256MB'"); err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	t := postgresTx{tx: tx, indexes: new([]string)}
	if err := t.dropIndexes(ctx, names); err != nil {
		_ = tx.Rollback(ctx)
		return nil, err
	}
	return t, nil
}

// postgresTx is the open transaction of a postgresDB.
type postgresTx struct {
	tx pgx.Tx
	// indexes are the definitions of the indexes the copy dropped, to
	// make again once the rows are in (nil for a snapshot).
	indexes *[]string
}

func (t postgresTx) end()          { _ = t.tx.Rollback(context.Background()) }
func (t postgresTx) rollback()     { t.end() }
func (t postgresTx) commit() error { return t.tx.Commit(context.Background()) }

// dropIndexes drops the tables' indexes that no key or constraint holds,
// inside the copy's change: building one over the copied rows costs less
// than keeping it up to date row by row. finish makes them again, before
// the copy is verified and committed.
func (t postgresTx) dropIndexes(ctx context.Context, tables []string) error {
	rows, err := t.tx.Query(ctx, `SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
		FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relname = ANY($1) AND NOT i.indisprimary
			AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`, tables)
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			rows.Close()
			return err
		}
		names = append(names, name)
		*t.indexes = append(*t.indexes, def)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, name := range names {
		if _, err := t.tx.Exec(ctx, "DROP INDEX "+name); err != nil {
			return err
		}
	}
	return nil
}

// finish makes again the indexes the copy dropped.
func (t postgresTx) finish(ctx context.Context) error {
	for _, def := range *t.indexes {
		if _, err := t.tx.Exec(ctx, def); err != nil {
			return fmt.Errorf("make the index again (%s): %w", def, err)
		}
	}
	return nil
}

func (t postgresTx) count(ctx context.Context, table string) (n int64, err error) {
	err = t.tx.QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	return n, err
}

// clear empties the tables in one statement (the webhooks' events refer
// to their webhooks).
func (t postgresTx) clear(ctx context.Context, tables []string) error {
	_, err := t.tx.Exec(ctx, "TRUNCATE "+strings.Join(tables, ", "))
	return err
}

// numbering gives each change the number SQLite keys it by: in the order
// of their times (and first entries).
const numbering = "n AS (SELECT id, row_number() OVER (ORDER BY created_at, first_id, id) AS num FROM changes)"

// postgresSelect reads a table's columns as text where SQLite's are (its
// UUIDs); a change's key is read as its first_id and as the target's key.
func postgresSelect(t Table, to dialectKind) string {
	var cols []string
	from := t.Name + " t"
	with := ""
	native := func(alias string) string {
		if to == postgresKind {
			return alias + ".id::text"
		}
		with = "WITH " + numbering + " "
		from += " LEFT JOIN n n" + alias + " ON n" + alias + ".id = " + alias + ".id"
		return "n" + alias + ".num"
	}
	for _, c := range t.Columns {
		switch c.Kind {
		case UUID:
			cols = append(cols, "t."+c.Name+"::text")
		case ChangeID:
			cols = append(cols, "t.first_id::text", native("t"))
		case ChangeRef:
			from += " LEFT JOIN changes c ON c.id = t." + c.Name
			cols = append(cols, "c.first_id::text", native("c"))
		default:
			cols = append(cols, "t."+c.Name)
		}
	}
	return with + "SELECT " + strings.Join(cols, ", ") + " FROM " + from
}

func (t postgresTx) each(ctx context.Context, tb Table, to dialectKind, fn func(row) error) error {
	rows, err := t.tx.Query(ctx, postgresSelect(tb, to))
	if err != nil {
		return err
	}
	defer rows.Close()
	holds, dest := postgresHolders(tb, to)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		if err := fn(holds.row()); err != nil {
			return err
		}
	}
	return rows.Err()
}

// postgresHold is where one column's value is scanned.
type postgresHold struct {
	kind   Kind
	v      any // a pointer to a pointer of the kind's Go type
	native any // the target's key of a change
}

type postgresHolds []*postgresHold

func postgresHolders(tb Table, to dialectKind) (postgresHolds, []any) {
	hs := make(postgresHolds, len(tb.Columns))
	var dest []any
	for i, c := range tb.Columns {
		h := &postgresHold{kind: c.Kind}
		switch c.Kind {
		case Text, UUID, ChangeID, ChangeRef:
			h.v = new(*string)
		case Int:
			h.v = new(*int64)
		case Bool:
			h.v = new(*bool)
		case Time:
			h.v = new(*time.Time)
		case List:
			h.v = new([]string)
		case Bytes:
			h.v = new([]byte)
		}
		dest = append(dest, h.v)
		if c.Kind == ChangeID || c.Kind == ChangeRef {
			if to == sqliteKind {
				h.native = new(*int64)
			} else {
				h.native = new(*string)
			}
			dest = append(dest, h.native)
		}
		hs[i] = h
	}
	return hs, dest
}

func (hs postgresHolds) row() row {
	r := make(row, len(hs))
	for i, h := range hs {
		r[i] = h.value()
	}
	return r
}

func (h *postgresHold) value() any {
	switch v := h.v.(type) {
	case **string:
		if *v == nil {
			if h.kind == ChangeID || h.kind == ChangeRef {
				return change{}
			}
			return nil
		}
		if h.kind == ChangeID || h.kind == ChangeRef {
			return change{canon: **v, native: deref(h.native)}
		}
		return **v
	case **int64:
		return deref(v)
	case **bool:
		return deref(v)
	case **time.Time:
		if *v == nil {
			return nil
		}
		return (**v).UTC().Truncate(time.Millisecond)
	case *[]string:
		if *v == nil {
			return []string{}
		}
		return *v
	case *[]byte:
		if *v == nil {
			return nil
		}
		return *v
	}
	return nil
}

// deref is the value a pointer to a pointer points at, nil for none.
func deref(p any) any {
	switch v := p.(type) {
	case **int64:
		if *v != nil {
			return **v
		}
	case **string:
		if *v != nil {
			return **v
		}
	case **bool:
		if *v != nil {
			return **v
		}
	}
	return nil
}

func (t postgresTx) write(ctx context.Context, tb Table, rows []row) error {
	names := make([]string, len(tb.Columns))
	for i, c := range tb.Columns {
		names[i] = c.Name
	}
	values := make([][]any, len(rows))
	for n, r := range rows {
		vs := make([]any, len(r))
		for i, c := range tb.Columns {
			v, err := postgresValue(c.Kind, r[i])
			if err != nil {
				return fmt.Errorf("%s.%s: %w", tb.Name, c.Name, err)
			}
			vs[i] = v
		}
		values[n] = vs
	}
	_, err := t.tx.CopyFrom(ctx, pgx.Identifier{tb.Name}, names, pgx.CopyFromRows(values))
	return err
}

// postgresValue is a value as PostgreSQL's copy takes it: UUIDs as their
// bytes.
func postgresValue(k Kind, v any) (any, error) {
	if c, ok := v.(change); ok {
		if c.native == nil {
			if k == ChangeID {
				return nil, errors.New("a change without its key")
			}
			return nil, nil
		}
		v = c.native
	}
	s, ok := v.(string)
	if !ok || k != UUID && k != ChangeID && k != ChangeRef {
		return v, nil
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("%q is not a UUID", s)
	}
	return [16]byte(u), nil
}
