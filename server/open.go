package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/sqlite"
)

// OpenStore opens the store a DSN names: a postgres:// or postgresql:// URL
// names a PostgreSQL database; anything else is the path of a SQLite file,
// created (with its parent directory, mode 0700) when missing.
func OpenStore(ctx context.Context, dsn string) (store.Store, error) {
	lower := strings.ToLower(dsn)
	if strings.HasPrefix(lower, "postgres://") || strings.HasPrefix(lower, "postgresql://") {
		st, err := postgres.Open(ctx, dsn)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	if strings.TrimSpace(dsn) == "" {
		return nil, errors.New("no database given: pass a SQLite file path or a postgres:// URL")
	}
	if dir := filepath.Dir(dsn); dir != "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create the database directory: %w", err)
		}
	}
	st, err := sqlite.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	return st, nil
}
