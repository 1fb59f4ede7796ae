package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/internal/redact"
	"github.com/shushlist/shush/server"
)

// localTarget is the base URL of the in-process service on one database;
// no request to it ever leaves the process.
// Journals name their run's target by base URL, so each database gets its
// own: --resume must never finish a run of one local list on another.
func localTarget(db string) string {
	if abs, err := filepath.Abs(db); err == nil && !strings.Contains(db, "://") {
		db = abs
	}
	sum := sha256.Sum256([]byte(db))
	return client.LocalURL(hex.EncodeToString(sum[:4]))
}

// localTeam is the team of the embedded default's key.
const localTeam = "local"

// localRate is the embedded default's rate limit: high enough that a single
// user never meets it, since nobody else shares the list.
const localRate = 1e6

// openLocal starts the service in process on the database of s and returns
// a client that reaches it without a network, with the local key (made on
// first use, and again when the stored one no longer works, for example
// because the database was replaced). close releases the database.
func openLocal(ctx context.Context, s config.Settings, opts ...client.Option) (svc *client.Client, key string, closeFn func() error, err error) {
	keyPath, err := localKeyPath()
	if err != nil {
		return nil, "", nil, err
	}
	if err := config.CheckDirChain(filepath.Dir(keyPath), "the data directory"); err != nil {
		return nil, "", nil, usageErr{err}
	}
	if kind, err := server.ClassifyDSN(s.DB.Value); err == nil && kind == server.DSNSQLite {
		if err := config.CheckDirChain(filepath.Dir(s.DB.Value), "the local list's directory"); err != nil {
			return nil, "", nil, usageErr{err}
		}
	}
	st, err := server.OpenStore(ctx, s.DB.Value)
	if err != nil {
		return nil, "", nil, fmt.Errorf("cannot open the local list %s: %w", api.Quote(redact.DSN(s.DB.Value)), err)
	}
	defer func() {
		if err != nil {
			st.Close()
		}
	}()
	srv := server.New(st, server.Options{Rate: localRate, LocalImports: true})
	opts = append([]client.Option{client.WithTransport(srv.Transport())}, opts...)

	key, err = readLocalKey(keyPath)
	if err != nil {
		return nil, "", nil, err
	}
	if key != "" {
		svc = client.New(localTarget(s.DB.Value), key, opts...)
		_, err := svc.List(ctx, client.ListParams{Limit: 1})
		var ae *api.Error
		switch {
		case err == nil:
			return svc, key, st.Close, nil
		case errors.As(err, &ae) && (ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden):
			// The key is not in this database: make a new one below.
		default:
			return nil, "", nil, fmt.Errorf("cannot use the local list %s: %w", s.DB.Value, err)
		}
	}
	_, key, err = server.CreateKey(ctx, st, localTeam, false)
	if err != nil {
		return nil, "", nil, fmt.Errorf("cannot make a key for the local list %s: %w", s.DB.Value, err)
	}
	if err := config.WritePrivate(keyPath, []byte(key+"\n")); err != nil {
		return nil, "", nil, err
	}
	return client.New(localTarget(s.DB.Value), key, opts...), key, st.Close, nil
}

// readLocalKey returns the key text in path, or "" when there is none. A
// key file others can read is refused, like the config file.
func readLocalKey(path string) (string, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("cannot read the local key: %w", err)
	}
	if err := config.CheckPrivate(path); err != nil {
		return "", usageErr{err}
	}
	return strings.TrimSpace(string(b)), nil
}
