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
	return n, err
}

func (t sqliteTx) clear(ctx context.Context, tables []string) error {
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
	rows, err := t.s.conn.QueryContext(ctx, sqliteSelect(tb, to))
	if err != nil {
		return err
	}
	defer rows.Close()
	holders, dest := sqliteHolders(tb, to)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		r, err := holders.row(tb)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return rows.Err()
}

// sqliteHold is where one column's value is scanned.
type sqliteHold struct {
	s      *string
	i      *int64
	b      *[]byte
	native any // the target's key of a change: *int64 or *string
}

type sqliteHolds []*sqliteHold

// sqliteHolders makes the scan destinations of a table's columns.
func sqliteHolders(tb Table, to dialectKind) (sqliteHolds, []any) {
	hs := make(sqliteHolds, len(tb.Columns))
	var dest []any
	for i, c := range tb.Columns {
		h := &sqliteHold{}
		switch c.Kind {
		case Text, UUID, List:
			h.s = new(string)
			dest = append(dest, &h.s)
		case Int, Bool, Time:
			h.i = new(int64)
			dest = append(dest, &h.i)
		case Bytes:
			h.b = new([]byte)
			dest = append(dest, h.b)
		case ChangeID, ChangeRef:
			h.s = new(string)
			dest = append(dest, &h.s)
			if to == sqliteKind {
				n := new(*int64)
				h.native, dest = n, append(dest, n)
			} else {
				s := new(*string)
				h.native, dest = s, append(dest, s)
			}
		}
		hs[i] = h
	}
	return hs, dest
}

// row turns what was scanned into the row's values.
func (hs sqliteHolds) row(tb Table) (row, error) {
	r := make(row, len(hs))
	for i, h := range hs {
		v, err := h.value(tb.Columns[i].Kind)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", tb.Name, tb.Columns[i].Name, err)
		}
		r[i] = v
	}
	return r, nil
}

func (h *sqliteHold) value(k Kind) (any, error) {
	switch k {
	case Text, UUID:
		if h.s == nil {
			return nil, nil
		}
		return *h.s, nil
	case List:
		if h.s == nil {
			return nil, nil
		}
		var l []string
		if err := json.Unmarshal([]byte(*h.s), &l); err != nil {
			return nil, fmt.Errorf("not a JSON list of strings: %w", err)
		}
		return l, nil
	case Bytes:
		if *h.b == nil {
			return nil, nil
		}
		return *h.b, nil
	case ChangeID, ChangeRef:
		return h.change(), nil
	}
	return h.number(k), nil
}

// number is an Int, Bool or Time value.
func (h *sqliteHold) number(k Kind) any {
	if h.i == nil {
		return nil
	}
	switch k {
	case Bool:
		return *h.i != 0
	case Time:
		return time.UnixMilli(*h.i).UTC()
	}
	return *h.i
}

func (h *sqliteHold) change() change {
	if h.s == nil {
		return change{} // no change, or one pruned
	}
	c := change{canon: *h.s}
	switch n := h.native.(type) {
	case **int64:
		if *n != nil {
			c.native = **n
		}
	case **string:
		if *n != nil {
			c.native = **n
		}
	}
	return c
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
