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
