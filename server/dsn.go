package server

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/internal/redact"
)

// DSNKind says which store a DSN selects.
type DSNKind int

// The kinds of DSN.
const (
	DSNSQLite DSNKind = iota
	DSNPostgres
)

// kvStart matches the first pair of a key=value connection string.
var kvStart = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=`)

// pgKeys are the connection parameters of libpq that a key=value string
// starts with in practice; a string that starts with another key=value pair
// is refused rather than guessed at.
var pgKeys = map[string]bool{
	"host": true, "hostaddr": true, "port": true, "dbname": true, "user": true,
	"password": true, "passfile": true, "sslmode": true, "sslrootcert": true,
	"sslcert": true, "sslkey": true, "connect_timeout": true, "application_name": true,
	"target_session_attrs": true, "service": true, "servicefile": true,
	"search_path": true, "options": true, "sslpassword": true, "pool_max_conns": true,
	"pool_min_conns": true,
}

// ClassifyDSN says which store dsn selects, after checking it: a
// postgres:// or postgresql:// URL and a key=value string whose first key
// is a PostgreSQL connection parameter select PostgreSQL and must parse
// with pgx's own parser; anything else must look like a file path. The
// error is one sentence and never holds the DSN's password.
func ClassifyDSN(dsn string) (DSNKind, error) {
	if strings.TrimSpace(dsn) == "" {
		return 0, errors.New("no database given: pass a SQLite file path, a postgres:// URL or a key=value PostgreSQL connection string")
	}
	lower := strings.ToLower(strings.TrimSpace(dsn))
	if strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://") {
		if _, err := pgconn.ParseConfig(dsn); err != nil {
			return 0, fmt.Errorf("the PostgreSQL URL is not valid: %s", pgReason(dsn, err))
		}
		return DSNPostgres, nil
	}
	if m := kvStart.FindStringSubmatch(dsn); m != nil {
		if !pgKeys[strings.ToLower(m[1])] {
			return 0, fmt.Errorf("the database %s looks like a key=value connection string, but %s is not a PostgreSQL connection parameter; give a SQLite file path or a PostgreSQL connection string", api.Quote(redact.DSN(dsn)), api.Quote(m[1]))
		}
		if _, err := pgconn.ParseConfig(dsn); err != nil {
			return 0, fmt.Errorf("the PostgreSQL connection string is not valid: %s", pgReason(dsn, err))
		}
		return DSNPostgres, nil
	}
	if m := almostURL.FindStringSubmatch(dsn); m != nil && !strings.Contains(dsn, "://") {
		// A typo of a URL (postgresql:/u:pw@host/db) would be a SQLite
		// path with the password in a directory's name. Only the scheme
		// is shown: what follows may be a password.
		hint := "a URL starts with its scheme and two slashes"
		if l := strings.ToLower(m[1]); l == "postgres" || l == "postgresql" {
			hint = "a PostgreSQL URL starts with postgres:// (two slashes)"
		}
		return 0, fmt.Errorf("the database %s looks like a URL but is not one: %s; give a SQLite file path or a PostgreSQL URL", api.Quote(m[1]+":…"), hint)
	}
	if i := strings.Index(dsn, "://"); i > 0 {
		return 0, fmt.Errorf("the database %s is a %s URL; shush opens only SQLite file paths and PostgreSQL (postgres:// URL or key=value string)", api.Quote(redact.DSN(dsn)), api.Quote(dsn[:i]))
	}
	for _, r := range dsn {
		if unicode.IsControl(r) {
			return 0, fmt.Errorf("the database path %s holds a control character; give a plain file path", api.Quote(redact.DSN(dsn)))
		}
	}
	if strings.HasSuffix(dsn, "/") || strings.HasSuffix(dsn, string([]byte{'\\'})) {
		return 0, fmt.Errorf("the database path %s names a directory; give the path of a file, e.g. %s", api.Quote(dsn), api.Quote(dsn+"shush.db"))
	}
	if strings.HasPrefix(lower, "file:") {
		return 0, fmt.Errorf("the database %s is a SQLite URI; give a plain file path instead", api.Quote(redact.DSN(dsn)))
	}
	return DSNSQLite, nil
}

// pgReason is pgx's complaint about dsn without the string itself, which
// may hold a password in a form pgx cannot recognise.
func pgReason(dsn string, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "cannot parse `") {
		if i := strings.Index(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		}
	}
	msg = strings.ReplaceAll(msg, dsn, "…")
	return redact.DSN(msg)
}

var (
	// almostURL is a scheme of two or more letters and a colon, then a
	// slash or an at sign before any other slash: a URL with a slash
	// missing, or userinfo without slashes ("postgres:u:pw@host"). One
	// letter is a Windows drive (C:/data/shush.db).
	almostURL = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9+.-]+):(?:/|[^/]*@)`)
)
