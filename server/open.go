package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/sqlite"
)

// OpenStore opens the store a DSN names (see ClassifyDSN): a PostgreSQL
// URL or key=value string names a PostgreSQL database; anything else is the
// path of a SQLite file, created (with its parent directory, mode 0700)
// when missing. An existing SQLite file, and its -wal and -shm files, must
// be readable by their owner only: looser modes are tightened to 0600 when
// the file belongs to this process's user, and refused otherwise.
func OpenStore(ctx context.Context, dsn string) (store.Store, error) {
	kind, err := ClassifyDSN(dsn)
	if err != nil {
		return nil, err
	}
	if kind == DSNPostgres {
		st, err := postgres.Open(ctx, dsn)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	if dir := filepath.Dir(dsn); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create the database directory: %w", err)
		}
	}
	for _, p := range []string{dsn, dsn + "-wal", dsn + "-shm"} {
		if err := tighten(p); err != nil {
			return nil, err
		}
	}
	st, err := sqlite.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// tighten makes an existing database file readable and writable by its
// owner only. A file of another user is refused, not changed: its owner
// decides who may read it.
func tighten(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the database file %s cannot be examined: %w", api.Quote(path), errors.Unwrap(err))
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("the database path %s is not a regular file", api.Quote(path))
	}
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return nil
	}
	if uid, ok := ownerUID(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("the database file %s is open to other users (mode %04o) and belongs to another user (uid %d); its owner must run: chmod 600 %s",
			api.Quote(path), perm, uid, path)
	}
	if err := os.Chmod(path, perm&0o700); err != nil {
		return fmt.Errorf("the database file %s is open to other users (mode %04o) and cannot be tightened (%v); run: chmod 600 %s",
			api.Quote(path), perm, errors.Unwrap(err), path)
	}
	return nil
}
