package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// shutdownGrace is how long serve lets requests in flight finish after
// SIGINT or SIGTERM.
const shutdownGrace = 30 * time.Second

// dbFlag adds --db to a command; empty means config.DefaultDB().
func dbFlag(cmd *cobra.Command, dsn *string) {
	cmd.Flags().StringVar(dsn, "db", "", "database: a SQLite file path or a postgres:// URL (default: shush.db in the data directory; env SHUSH_DB)")
}

// openStore opens the database the --db flag names.
func openStore(ctx context.Context, dsn string) (store.Store, string, error) {
	if dsn == "" {
		var err error
		if dsn, err = config.DefaultDB(); err != nil {
			return nil, "", fmt.Errorf("find the default database: %w", err)
		}
	}
	st, err := server.OpenStore(ctx, dsn)
	if err != nil {
		return nil, "", fmt.Errorf("open the database: %w", err)
	}
	return st, describeDSN(dsn), nil
}

// describeDSN names a database for a message without the password a
// postgres:// URL may carry.
func describeDSN(dsn string) string {
	if i := strings.Index(dsn, "://"); i >= 0 {
		if at := strings.LastIndex(dsn, "@"); at > i {
			return dsn[:i+3] + "…@" + dsn[at+1:]
		}
	}
	return dsn
}

func (a *app) serveCommand() *cobra.Command {
	var (
		addr, dsn, logFormat string
		rate                 float64
		timeout              time.Duration
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the suppression list service",
		Long: `Run the Suppression List Batch API service over a database, until SIGINT or
SIGTERM; requests in flight then finish (up to 30 seconds).

Every request but GET /healthz needs an API key: create one with
"shush keys create --team NAME" on the same database. Request logs go to
stderr; they never hold keys, addresses or bodies.`,
		Example: `  shush keys create --team support --db ./shush.db
  shush serve --addr 127.0.0.1:8080 --db ./shush.db --rate 20`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !(rate > 0) || math.IsInf(rate, 0) {
				return usagef("--rate must be a positive number of requests per second, not %v", rate)
			}
			if timeout <= 0 {
				return usagef("--timeout must be positive, not %v", timeout)
			}
			var handler slog.Handler
			switch logFormat {
			case "text":
				handler = slog.NewTextHandler(a.io.Err, nil)
			case "json":
				handler = slog.NewJSONHandler(a.io.Err, nil)
			default:
				return usagef("--log-format must be text or json, not %s", api.Quote(logFormat))
			}
			return a.serve(cmd.Context(), addr, dsn, server.Options{
				Rate:           rate,
				Logger:         slog.New(handler),
				RequestTimeout: timeout,
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8080", "address to listen on (host:port)")
	dbFlag(cmd, &dsn)
	f.Float64Var(&rate, "rate", server.DefaultRate, "requests per second each team may make (token bucket; bursts up to the same number)")
	f.DurationVar(&timeout, "timeout", server.DefaultRequestTimeout, "longest time one request may take")
	f.StringVar(&logFormat, "log-format", "text", "request log format on stderr: text or json")
	return cmd
}

// serve runs the service until ctx is cancelled, then shuts it down
// gracefully.
func (a *app) serve(ctx context.Context, addr, dsn string, opts server.Options) error {
	st, where, err := openStore(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	if keys, err := st.ListKeys(ctx); err == nil && len(keys) == 0 {
		fmt.Fprintf(a.io.Err, "shush: the database has no API keys yet; create one with: shush keys create --team NAME --db %s\n", where)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", addr, err)
	}
	srv := &http.Server{
		Handler:           server.New(st, opts),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      opts.RequestTimeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(opts.Logger.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(a.io.Err, "shush: serving on http://%s (database %s)\n", ln.Addr(), where)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return fmt.Errorf("the service stopped: %w", err)
	case <-ctx.Done():
	}
	opts.Logger.Info("shutting down; finishing requests in flight")
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func (a *app) keysCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Manage the service's API keys",
		Long: `Create, list and revoke the API keys of the service's database. A key belongs
to one team and sees only that team's list; a read-only key may read but not
change it. Only a hash of each key is stored: a key is shown once, when it is
created.`,
		Args: noArgs,
	}
	cmd.AddCommand(a.keysCreateCommand(), a.keysListCommand(), a.keysRevokeCommand())
	return cmd
}

// keyJSON is how --json shows a key; Key is only set when it is created.
type keyJSON struct {
	ID        string  `json:"id"`
	Key       string  `json:"key,omitempty"`
	Team      string  `json:"team"`
	ReadOnly  bool    `json:"read_only"`
	CreatedAt string  `json:"created_at,omitempty"`
	RevokedAt *string `json:"revoked_at,omitempty"`
}

func (a *app) keysCreateCommand() *cobra.Command {
	var (
		team, dsn        string
		readOnly, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "create --team NAME",
		Short: "Create an API key for a team and print it once",
		Long: `Create an API key for a team. The key alone is printed on stdout, so that
KEY=$(shush keys create --team support) captures it; it is not stored and
cannot be shown again. --json prints {"id","key","team","read_only"}.`,
		Example: `  shush keys create --team support
  shush keys create --team auditors --read-only --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("team") {
				return usagef("keys create needs --team NAME")
			}
			if err := server.ValidateTeam(team); err != nil {
				return usagef("--team: %v", err)
			}
			st, _, err := openStore(cmd.Context(), dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			k, text, err := server.CreateKey(cmd.Context(), st, team, readOnly)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(a.io.Out, keyJSON{ID: k.ID, Key: text, Team: k.Team, ReadOnly: k.ReadOnly})
			}
			fmt.Fprintln(a.io.Out, text)
			fmt.Fprintf(a.io.Err, "Created %s API key %s for team %s. Store it now: it will not be shown again.\n",
				access(k.ReadOnly), k.ID, safeText(k.Team))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&team, "team", "", "team the key belongs to (1-64 printable characters, no spaces)")
	f.BoolVar(&readOnly, "read-only", false, "the key may read the list but not change it")
	f.BoolVar(&asJSON, "json", false, "print the key as JSON")
	dbFlag(cmd, &dsn)
	return cmd
}

func access(readOnly bool) string {
	if readOnly {
		return "read-only"
	}
	return "read-write"
}

func (a *app) keysListCommand() *cobra.Command {
	var (
		dsn    string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the API keys (never the keys themselves)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, _, err := openStore(cmd.Context(), dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			keys, err := st.ListKeys(cmd.Context())
			if err != nil {
				return fmt.Errorf("list the keys: %w", err)
			}
			if asJSON {
				out := make([]keyJSON, len(keys))
				for i, k := range keys {
					out[i] = keyJSON{ID: k.ID, Team: k.Team, ReadOnly: k.ReadOnly, CreatedAt: k.CreatedAt.UTC().Format(api.TimestampLayout)}
					if k.RevokedAt != nil {
						r := k.RevokedAt.UTC().Format(api.TimestampLayout)
						out[i].RevokedAt = &r
					}
				}
				return writeJSON(a.io.Out, out)
			}
			if len(keys) == 0 {
				fmt.Fprintln(a.io.Err, "No API keys yet; create one with: shush keys create --team NAME")
				return nil
			}
			t := newTable(a.io.Out)
			t.row("ID", "TEAM", "ACCESS", "CREATED", "REVOKED")
			for _, k := range keys {
				revoked := "-"
				if k.RevokedAt != nil {
					revoked = k.RevokedAt.UTC().Format(time.RFC3339)
				}
				t.row(k.ID, k.Team, access(k.ReadOnly), k.CreatedAt.UTC().Format(time.RFC3339), revoked)
			}
			return t.flush()
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the keys as a JSON array")
	dbFlag(cmd, &dsn)
	return cmd
}

func (a *app) keysRevokeCommand() *cobra.Command {
	var dsn string
	cmd := &cobra.Command{
		Use:   "revoke KEY_ID",
		Short: "Revoke an API key; requests with it are refused from then on",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("keys revoke needs one KEY_ID (see shush keys list), got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if strings.HasPrefix(id, server.KeyPrefix) {
				return usagef("give the key's ID (see shush keys list), not the key itself")
			}
			st, _, err := openStore(cmd.Context(), dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.RevokeKey(cmd.Context(), id); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("no API key has the ID %s (see shush keys list)", api.Quote(id))
				}
				return fmt.Errorf("revoke the key: %w", err)
			}
			fmt.Fprintf(a.io.Out, "Revoked API key %s.\n", id)
			return nil
		},
	}
	dbFlag(cmd, &dsn)
	return cmd
}
