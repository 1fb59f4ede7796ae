package dbcopy

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the driver the store uses
)

// sqliteDB is a SQLite file open for a copy, on one connection.
type sqliteDB struct {
	db   *sql.DB
	conn *sql.Conn
}

// openSQLite opens the file at path (read-only for a source, which must
// exist).
func openSQLite(ctx context.Context, path string, readOnly bool) (*sqliteDB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("there is no database file %s", path)
	}
	params := url.Values{}
	params.Add("_pragma", "busy_timeout(5000)")
	if readOnly {
		params.Add("mode", "ro")
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath()+"?"+params.Encode())
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return &sqliteDB{db: db, conn: conn}, nil
}

func (s *sqliteDB) kind() dialectKind { return sqliteKind }

func (s *sqliteDB) close() {
	s.conn.Close()
	s.db.Close()
}

func (s *sqliteDB) version(ctx context.Context) (int, error) {
	var n int
	err := s.conn.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&n)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		return 0, nil
	}
	return n, err
}

// snapshot starts a read transaction: every table is read as of its
// first read.
func (s *sqliteDB) snapshot(ctx context.Context) (reader, error) {
	if _, err := s.conn.ExecContext(ctx, "BEGIN"); err != nil {
		return nil, err
	}
	return sqliteTx{s: s}, nil
}

// begin takes the file's write lock for the copy: nothing else writes
// until it commits or rolls back.
func (s *sqliteDB) begin(ctx context.Context) (target, error) {
	if _, err := s.conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return nil, err
	}
	return sqliteTx{s: s, stmts: map[string]*sql.Stmt{}}, nil
}

// sqliteTx is the open transaction of a sqliteDB.
type sqliteTx struct {
	s     *sqliteDB
	stmts map[string]*sql.Stmt
}

func (t sqliteTx) end() { _, _ = t.s.conn.ExecContext(context.Background(), "ROLLBACK") }

func (t sqliteTx) rollback() { t.end() }

func (t sqliteTx) commit() error {
	for _, st := range t.stmts {
		st.Close()
	}
	_, err := t.s.conn.ExecContext(context.Background(), "COMMIT")
	return err
}

func (t sqliteTx) count(ctx context.Context, table string) (n int64, err error) {
	err = t.s.conn.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n)
	if err == nil && table == "webhook_events" && t.has(ctx, "webhook_fanout") {
		var fan int64
		err = t.s.conn.QueryRowContext(ctx, "SELECT count(*) FROM webhook_fanout").Scan(&fan)
		n += fan
	}
	return n, err
}

// has says whether the database has the table (a step of the schema
// that only SQLite takes).
func (t sqliteTx) has(ctx context.Context, table string) bool {
	var n int
	err := t.s.conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", table).Scan(&n)
	return err == nil && n > 0
}

func (t sqliteTx) clear(ctx context.Context, tables []string) error {
	if t.has(ctx, "webhook_fanout") {
		tables = append([]string{"webhook_fanout"}, tables...)
	}
	for _, table := range tables {
		if _, err := t.s.conn.ExecContext(ctx, "DELETE FROM "+table); err != nil {
			return fmt.Errorf("%s: %w", table, err)
		}
	}
	return nil
}

// finish starts the sequence of the changes above every change copied,
// so that a change made after is never numbered as one copied.
func (t sqliteTx) finish(ctx context.Context) error {
	if _, err := t.s.conn.ExecContext(ctx, "DELETE FROM sqlite_sequence WHERE name = 'changes'"); err != nil {
		return err
	}
	_, err := t.s.conn.ExecContext(ctx, "INSERT INTO sqlite_sequence (name, seq) SELECT 'changes', coalesce(max(id), 0) FROM changes")
	return err
}

// selectSQL reads a table's columns; a change's key is read as its
// first_id and as the target's key (a ChangeRef through a join).
func sqliteSelect(t Table, to dialectKind) string {
	var cols []string
	from := t.Name + " t"
	native := func(alias string) string {
		if to == sqliteKind {
			return alias + ".id"
		}
		return alias + ".first_id"
	}
	for _, c := range t.Columns {
		switch c.Kind {
		case ChangeID:
			cols = append(cols, "t.first_id", native("t"))
		case ChangeRef:
			from += " LEFT JOIN changes c ON c.id = t." + c.Name
			cols = append(cols, "c.first_id", native("c"))
		default:
			cols = append(cols, "t."+c.Name)
		}
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM " + from
}

func (t sqliteTx) each(ctx context.Context, tb Table, to dialectKind, fn func(row) error) error {
	q := sqliteSelect(tb, to)
	if tb.Name == "webhook_events" && t.has(ctx, "webhook_fanout") {
		q += " UNION ALL " + sqliteEvents
	}
	rows, err := t.s.conn.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	// The driver's own values (int64, string, []byte, nil), read without
	// reflection, then made the kind's.
	n := len(tb.Columns)
	for _, c := range tb.Columns {
		if c.Kind == ChangeID || c.Kind == ChangeRef {
			n++
		}
	}
	vals := make([]any, n)
	dest := make([]any, n)
	for i := range vals {
		dest[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		r, err := sqliteRow(tb, vals)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// sqliteRow makes the row of a table from the driver's values (a change's
// two columns, its first_id and its key in the target, one after the
// other).
func sqliteRow(tb Table, vals []any) (row, error) {
	r := make(row, len(tb.Columns))
	v := 0
	for i, c := range tb.Columns {
		x, used, err := sqliteValueOf(c.Kind, vals[v:])
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", tb.Name, c.Name, err)
		}
		r[i], v = x, v+used
	}
	return r, nil
}

// sqliteValueOf is the value of a column of kind k, from the driver's
// values at vals, and how many of them it took.
func sqliteValueOf(k Kind, vals []any) (any, int, error) {
	x := vals[0]
	if x == nil {
		if k == ChangeID || k == ChangeRef {
			return change{}, 2, nil // no change, or one pruned
		}
		return nil, 1, nil
	}
	switch k {
	case Text, UUID:
		s, err := text(x)
		return s, 1, err
	case List:
		s, err := text(x)
		if err != nil {
			return nil, 1, err
		}
		var l []string
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			return nil, 1, fmt.Errorf("not a JSON list of strings: %w", err)
		}
		return l, 1, nil
	case Bytes:
		b, ok := x.([]byte)
		if !ok {
			s, err := text(x)
			return []byte(s), 1, err
		}
		return b, 1, nil
	case ChangeID, ChangeRef:
		canon, err := text(x)
		native := vals[1]
		if s, ok := native.([]byte); ok {
			native = string(s)
		}
		return change{canon: canon, native: native}, 2, err
	}
	n, ok := x.(int64)
	if !ok {
		return nil, 1, fmt.Errorf("%v is not an integer", x)
	}
	switch k {
	case Bool:
		return n != 0, 1, nil
	case Time:
		return time.UnixMilli(n).UTC(), 1, nil
	}
	return n, 1, nil
}

// text is a driver's text value.
func text(x any) (string, error) {
	switch v := x.(type) {
	case string:
		return v, nil
	case []byte:
		return string(v), nil
	}
	return "", fmt.Errorf("%v is not text", x)
}

// maxParams bounds the parameters of one statement.
const maxParams = 30000

func (t sqliteTx) write(ctx context.Context, tb Table, rows []row) error {
	per := max(1, maxParams/len(tb.Columns))
	for lo := 0; lo < len(rows); lo += per {
		part := rows[lo:min(lo+per, len(rows))]
		st, err := t.insert(ctx, tb, len(part))
		if err != nil {
			return err
		}
		args := make([]any, 0, len(part)*len(tb.Columns))
		for _, r := range part {
			for i, c := range tb.Columns {
				v, err := sqliteValue(c.Kind, r[i])
				if err != nil {
					return fmt.Errorf("%s.%s: %w", tb.Name, c.Name, err)
				}
				args = append(args, v)
			}
		}
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

// insert is the prepared insert of n rows of a table.
func (t sqliteTx) insert(ctx context.Context, tb Table, n int) (*sql.Stmt, error) {
	key := fmt.Sprintf("%s/%d", tb.Name, n)
	if st, ok := t.stmts[key]; ok {
		return st, nil
	}
	names := make([]string, len(tb.Columns))
	for i, c := range tb.Columns {
		names[i] = c.Name
	}
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", len(names)), ",") + ")"
	q := "INSERT INTO " + tb.Name + " (" + strings.Join(names, ", ") + ") VALUES " + strings.TrimSuffix(strings.Repeat(one+",", n), ",")
	st, err := t.s.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	t.stmts[key] = st
	return st, nil
}

// sqliteValue is a value as SQLite keeps it.
func sqliteValue(k Kind, v any) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case bool:
		if x {
			return int64(1), nil
		}
		return int64(0), nil
	case time.Time:
		return x.UnixMilli(), nil
	case []string:
		b, err := json.Marshal(x)
		return string(b), err
	case change:
		if k == ChangeID && x.native == nil {
			return nil, errors.New("a change without its key")
		}
		return x.native, nil
	}
	return v, nil
}
