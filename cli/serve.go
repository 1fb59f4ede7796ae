package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/internal/redact"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/outbox"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/sshui"
)

// dbFlag adds --db to a command; empty means config.DefaultDB().
func dbFlag(cmd *cobra.Command, dsn *string) {
	cmd.Flags().StringVar(dsn, "db", "", "database: a SQLite file path, a postgres:// URL or a key=value PostgreSQL string (default: shush.db in the data directory; env SHUSH_DB)")
}

// openStore opens the database the --db flag names.
func openStore(ctx context.Context, dsn string) (store.Store, string, error) {
	if dsn == "" {
		var err error
		if dsn, err = config.DefaultDB(); err != nil {
			return nil, "", fmt.Errorf("find the default database: %w", err)
		}
	}
	where := redact.DSN(dsn)
	st, err := server.OpenStore(ctx, dsn)
	if err != nil {
		return nil, "", fmt.Errorf("open the database %s: %w", api.Quote(where), err)
	}
	return st, where, nil
}

// serveFlags are the settings of serve.
type serveFlags struct {
	addr, dsn, logFormat, logLevel string
	metricsAddr, tlsCert, tlsKey   string
	rate                           float64
	timeout                        time.Duration
	maxBodyHeld                    int64
	capacity                       server.Options
	webhooks                       outbox.DelivererConfig
	webhookAllowCIDRs              []string
	webhookProxy, denyPrivate      bool
	auditRetention, eventRetention retention
	ssh                            sshFlags
	drain                          time.Duration
}

// sshFlags are serve's settings of the terminal UI served over SSH.
type sshFlags struct {
	addr, hostKey                     string
	idleTimeout, loginTimeout         time.Duration
	maxSessions                       int
	maxStartups, maxStartupsPerSource int
	failedLoginsPerMinute             int
}

// serveOptions are serve's: the app and the settings of its flags.
type serveOptions struct {
	*app
	serveFlags
}

func (a *app) serveCommand() *cobra.Command {
	o := &serveOptions{app: a}
	cmd := command(o, "serve", "Run the suppression list service", noArgs, runServe)
	cmd.Long = `Run the Suppression List Batch API service over a database, until SIGINT or
SIGTERM; then /readyz answers 503 for --shutdown-drain (5 seconds) while
requests are still served, the listeners close, and requests in flight
finish (up to 30 seconds). A second SIGINT or SIGTERM exits at once.

Every request but GET /livez, /readyz, /healthz and /openapi.json needs an API
key: create one with "shush keys create --team NAME" on the same database.
Logs go to stderr as slog records (--log-format text or json); they never
hold keys, addresses, bodies or database passwords.

With --ssh-addr the terminal UI is served over SSH to the agents of "shush
agents add" (public keys only); the host key's fingerprint is logged at
start for them to check.

Every flag can also come from the environment as SHUSH_<FLAG> (SHUSH_ADDR,
SHUSH_DB, SHUSH_RATE, SHUSH_LOG_FORMAT, SHUSH_METRICS_ADDR, ...); a flag on
the command line wins over its variable.`
	cmd.Example = `  shush keys create --team support --db ./shush.db
  shush serve --addr 127.0.0.1:8080 --db ./shush.db --rate 20
  SHUSH_DB='host=db user=shush dbname=shush' shush serve --addr :8443 --tls-cert cert.pem --tls-key key.pem
  shush serve --metrics-addr 127.0.0.1:9090 --log-format json --log-level debug
  shush serve --ssh-addr :2222 --db ./shush.db   # the terminal UI over SSH for the agents of shush agents add`
	o.addFlags(cmd)
	before(cmd, func(cmd *cobra.Command) error { return flagsFromEnv(cmd, os.LookupEnv) })
	envHelp(cmd)
	return cmd
}

// addFlags declares serve's flags into o, with their defaults.
func (o *serveOptions) addFlags(cmd *cobra.Command) {
	sf := &o.serveFlags
	f := cmd.Flags()
	f.StringVar(&sf.addr, "addr", "127.0.0.1:8080", "address to listen on (host:port)")
	dbFlag(cmd, &sf.dsn)
	f.Float64Var(&sf.rate, "rate", server.DefaultRate, "requests per second each team may make (token bucket; bursts up to the same number)")
	f.DurationVar(&sf.timeout, "timeout", server.DefaultRequestTimeout, "longest time one request may take")
	f.DurationVar(&sf.drain, "shutdown-drain", server.DefaultDrainPeriod, "on SIGINT or SIGTERM, answer /readyz with 503 for this long while still serving, before the listeners close (0: close at once)")
	f.StringVar(&sf.logFormat, "log-format", "text", "log format on stderr: text or json")
	f.StringVar(&sf.logLevel, "log-level", "info", "least severe log records shown: debug, info, warn or error")
	f.StringVar(&sf.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on this address at /metrics (host:port; off when empty)")
	f.StringVar(&sf.tlsCert, "tls-cert", "", "PEM certificate file: serve HTTPS (needs --tls-key)")
	f.StringVar(&sf.tlsKey, "tls-key", "", "PEM private key file of --tls-cert")
	f.Int64Var(&sf.maxBodyHeld, "max-body-bytes", server.DefaultMaxBodyBytesHeld, "most bytes of request bodies held at once across requests; beyond it requests get 503 with Retry-After")
	f.Int64Var(&sf.capacity.MaxBodyBytesPerTeam, "max-body-bytes-per-team", 0, "one team's share of --max-body-bytes; beyond it the team's requests get 429 with Retry-After (0: a quarter of --max-body-bytes)")
	f.IntVar(&sf.capacity.MaxInFlightPerTeam, "max-in-flight-per-team", server.DefaultMaxInFlightPerTeam, "most requests one team may have under way at once; beyond it 429 with Retry-After")
	f.DurationVar(&sf.capacity.ReadBudget, "read-budget", server.DefaultReadBudget, "work a team's searches, narrowed pages, bulk checks and exports may take per second on average (measured; up to 4 seconds' worth at once); beyond it 429 with Retry-After")
	f.IntVar(&sf.capacity.MaxWebhooksPerTeam, "max-webhooks-per-team", server.DefaultMaxWebhooksPerTeam, "most webhooks one team may have; creating one more is a 422")
	f.IntVar(&sf.capacity.MaxExports, "max-exports", 0, "most exports streaming at once across teams, each holding a database connection; beyond it 503 with Retry-After (0: 4, at most half the database pool)")
	f.IntVar(&sf.capacity.MaxExportsPerTeam, "max-exports-per-team", server.DefaultMaxExportsPerTeam, "most exports one team may stream at once; beyond it 429 with Retry-After")
	f.DurationVar(&sf.capacity.ExportStallTimeout, "export-stall-timeout", server.DefaultExportStallTimeout, "cut an export whose client has taken nothing of it for this long")
	f.DurationVar(&sf.capacity.ExportTimeout, "export-timeout", server.DefaultExportTimeout, "longest time one export may stream")
	f.DurationVar(&sf.webhooks.RetryMin, "webhook-retry-min", outbox.DefaultRetryMin, "delay before a failed webhook delivery's first retry; each next one waits twice as long (with jitter)")
	f.DurationVar(&sf.webhooks.RetryMax, "webhook-retry-max", outbox.DefaultRetryMax, "longest delay between two webhook delivery attempts")
	f.DurationVar(&sf.webhooks.RetryFor, "webhook-retry-for", outbox.DefaultRetryFor, "how long a webhook event is retried before it is given up")
	f.DurationVar(&sf.webhooks.Timeout, "webhook-timeout", outbox.DefaultWebhookTimeout, "longest time one webhook delivery attempt may take")
	f.IntVar(&sf.webhooks.PerEndpoint, "webhook-concurrency-per-endpoint", 2, "most delivery attempts under way at once to one webhook (of the 8 at once)")
	f.IntVar(&sf.webhooks.PerTeam, "webhook-concurrency-per-team", 4, "most delivery attempts under way at once to one team's webhooks (of the 8 at once)")
	f.BoolVar(&sf.webhooks.Addresses.AllowPrivate, "webhook-allow-private", false, "let webhooks reach loopback, private (RFC 1918), CGNAT and unique-local addresses; link-local and cloud metadata addresses stay refused")
	f.StringSliceVar(&sf.webhookAllowCIDRs, "webhook-allow-cidr", nil, "let webhooks reach every address in these ranges (CIDR, repeat or separate with commas), whatever kind they are")
	f.BoolVar(&sf.webhookProxy, "webhook-proxy", false, "send webhooks through the proxy HTTP_PROXY/HTTPS_PROXY/NO_PROXY name; each endpoint is resolved and its addresses checked first (off: the environment's proxy is ignored)")
	f.BoolVar(&sf.denyPrivate, "webhook-deny-private", false, "no effect: private addresses are refused by default")
	_ = f.MarkDeprecated("webhook-deny-private", "private addresses are refused by default now; --webhook-allow-private or --webhook-allow-cidr opens them")
	f.Var(&sf.auditRetention, "audit-retention", "delete the trail's entries once they are this old, checked every hour (365d, 72h, ...; off keeps them for shush audit prune)")
	f.Var(&sf.eventRetention, "webhook-event-retention", "delete delivered and given-up webhook events, with their attempts, once they are this old, checked every hour (30d, 72h, ...; off keeps them)")
	f.StringVar(&sf.capacity.PublicURL, "public-url", "", "the service's address as providers reach it (https://shush.example.com): the base of the intake endpoints' URLs (empty: the address each request came to)")
	f.StringVar(&sf.ssh.addr, "ssh-addr", "", "serve the terminal UI over SSH on this address (host:port; off when empty) to the agents of shush agents add")
	f.StringVar(&sf.ssh.hostKey, "ssh-host-key", "", "the SSH host's private key file, made (ed25519, 0600) when missing (default: ssh_host_ed25519_key beside the SQLite database, or in the data directory)")
	f.DurationVar(&sf.ssh.idleTimeout, "ssh-idle-timeout", sshui.DefaultIdleTimeout, "end an SSH session after this long without a key pressed (its draft is kept)")
	f.IntVar(&sf.ssh.maxSessions, "ssh-max-sessions", sshui.DefaultMaxSessions, "most SSH sessions one agent may have open at once")
	f.DurationVar(&sf.ssh.loginTimeout, "ssh-login-timeout", sshui.DefaultLoginTimeout, "close an SSH connection that has not logged in within this time")
	f.IntVar(&sf.ssh.maxStartups, "ssh-max-startups", sshui.DefaultMaxStartups, "most SSH connections logging in at once, from everywhere; more are closed at once")
	f.IntVar(&sf.ssh.maxStartupsPerSource, "ssh-max-startups-per-source", sshui.DefaultMaxStartupsPerSource, "most SSH connections logging in at once from one address; more are closed at once")
	f.IntVar(&sf.ssh.failedLoginsPerMinute, "ssh-failed-logins-per-minute", int(time.Minute/sshui.DefaultFailedLoginEvery), "failed SSH logins one address may make a minute (and at once); past them its connections are closed at once until it earns one back")
}

// retention is a flag's age after which something is pruned: days (365d)
// or a Go duration; "off" (or 0) keeps it for ever.
type retention time.Duration

func (r *retention) String() string {
	if *r == 0 {
		return "off"
	}
	return time.Duration(*r).String()
}

func (r *retention) Set(s string) error {
	if s == "off" || s == "0" {
		*r = 0
		return nil
	}
	d, err := parseAge(s)
	if err != nil {
		return err
	}
	*r = retention(d)
	return nil
}

func (r *retention) Type() string { return "age" }

// envName is the environment variable of a serve flag: SHUSH_ and the
// flag's name in capitals with - as _.
func envName(flag string) string {
	return "SHUSH_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// envHelp notes each flag's variable in its help, where it does not yet.
func envHelp(cmd *cobra.Command) {
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Name == "help" || strings.Contains(fl.Usage, "env "+envName(fl.Name)) {
			return
		}
		fl.Usage += " (env " + envName(fl.Name) + ")"
	})
}

// flagsFromEnv sets each flag not given on the command line from its
// SHUSH_<FLAG> variable, when that is set. A bad value is a usage error
// naming the variable (a database string is shown redacted).
func flagsFromEnv(cmd *cobra.Command, lookup func(string) (string, bool)) error {
	var errs []error
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Name == "help" || fl.Changed {
			return
		}
		v, ok := lookup(envName(fl.Name))
		if !ok {
			return
		}
		if err := fl.Value.Set(v); err != nil {
			shown := v
			if fl.Name == "db" {
				shown = redact.DSN(v)
			}
			errs = append(errs, usagef("%s=%s is not a valid value for --%s (%s)", envName(fl.Name), api.Quote(shown), fl.Name, fl.Value.Type()))
		}
	})
	return errors.Join(errs...)
}

// runServe checks the settings and serves until ctx is cancelled.
func runServe(ctx context.Context, o *serveOptions) error {
	sf := o.serveFlags
	if err := checkServeFlags(sf); err != nil {
		return err
	}
	for _, c := range sf.webhookAllowCIDRs {
		p, err := netip.ParsePrefix(strings.TrimSpace(c))
		if err != nil {
			return usagef("--webhook-allow-cidr takes ranges such as 10.0.0.0/8 or fd00::/8, not %s", api.Quote(c))
		}
		sf.webhooks.Addresses.Allow = append(sf.webhooks.Addresses.Allow, p.Masked())
	}
	if sf.webhookProxy {
		sf.webhooks.Proxy = http.ProxyFromEnvironment
	}
	log, err := serveLogger(sf, o.io.ErrOut)
	if err != nil {
		return err
	}
	tlsConfig, err := serveTLS(sf, log)
	if err != nil {
		return err
	}
	if err := checkListenerFlags(sf); err != nil {
		return err
	}
	opts := serverOptions(sf, log)
	if err := o.serve(ctx, sf, tlsConfig, opts); err != nil {
		// Once the log is set up, the failure is a record like every
		// other line (one JSON object under --log-format json).
		log.Error(err.Error())
		return loggedError{err}
	}
	return nil
}

// checkServeFlags refuses the rate, the timeout and the capacities out of
// range.
func checkServeFlags(sf serveFlags) error {
	if !(sf.rate > 0) || math.IsInf(sf.rate, 0) {
		return usagef("--rate must be a positive number of requests per second, not %v", sf.rate)
	}
	if sf.timeout <= 0 {
		return usagef("--timeout must be positive, not %v", sf.timeout)
	}
	if sf.maxBodyHeld < server.MaxBody {
		return usagef("--max-body-bytes must be at least %d (one request's largest body), not %d", server.MaxBody, sf.maxBodyHeld)
	}
	c := sf.capacity
	switch {
	case c.MaxBodyBytesPerTeam != 0 && (c.MaxBodyBytesPerTeam < server.MaxBody || c.MaxBodyBytesPerTeam > sf.maxBodyHeld):
		return usagef("--max-body-bytes-per-team must be between %d (one request's largest body) and --max-body-bytes (%d), or 0, not %d", server.MaxBody, sf.maxBodyHeld, c.MaxBodyBytesPerTeam)
	case c.MaxInFlightPerTeam < 1:
		return usagef("--max-in-flight-per-team must be at least 1, not %d", c.MaxInFlightPerTeam)
	case sf.webhooks.PerEndpoint < 1 || sf.webhooks.PerTeam < 1:
		return usagef("--webhook-concurrency-per-endpoint and --webhook-concurrency-per-team must be at least 1")
	case c.MaxWebhooksPerTeam < 1:
		return usagef("--max-webhooks-per-team must be at least 1, not %d", c.MaxWebhooksPerTeam)
	case c.MaxExports < 0:
		return usagef("--max-exports must be at least 1, or 0 for the default, not %d", c.MaxExports)
	case c.MaxExportsPerTeam < 1:
		return usagef("--max-exports-per-team must be at least 1, not %d", c.MaxExportsPerTeam)
	case c.ExportStallTimeout <= 0:
		return usagef("--export-stall-timeout must be positive, not %v", c.ExportStallTimeout)
	case c.ExportTimeout <= 0:
		return usagef("--export-timeout must be positive, not %v", c.ExportTimeout)
	}
	return nil
}

// serveLogger is the log of --log-level and --log-format, on w.
func serveLogger(sf serveFlags, w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(sf.logLevel)); err != nil {
		return nil, usagef("--log-level must be debug, info, warn or error, not %s", api.Quote(sf.logLevel))
	}
	hopts := &slog.HandlerOptions{Level: level}
	switch sf.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, hopts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, hopts)), nil
	}
	return nil, usagef("--log-format must be text or json, not %s", api.Quote(sf.logFormat))
}

// serveTLS loads --tls-cert and --tls-key (nil for plain HTTP), warning
// when others may read the key.
func serveTLS(sf serveFlags, log *slog.Logger) (*tls.Config, error) {
	if (sf.tlsCert == "") != (sf.tlsKey == "") {
		return nil, usagef("--tls-cert and --tls-key go together; give both or neither")
	}
	if sf.tlsCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(sf.tlsCert, sf.tlsKey)
	if err != nil {
		return nil, usagef("cannot load the TLS certificate %s and key %s: %v", api.Quote(sf.tlsCert), api.Quote(sf.tlsKey), err)
	}
	if fi, err := os.Stat(sf.tlsKey); err == nil && fi.Mode().Perm()&0o077 != 0 {
		log.Warn(fmt.Sprintf("the TLS key file %s is readable by other users (mode %04o); run: chmod 600 %s",
			api.Quote(sf.tlsKey), fi.Mode().Perm(), sf.tlsKey))
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// checkListenerFlags refuses a bad --public-url and the SSH, read budget
// and drain settings out of range.
func checkListenerFlags(sf serveFlags) error {
	if u := sf.capacity.PublicURL; u != "" {
		if err := api.ValidEndpoint(u); err != nil {
			return usagef("--public-url %s is not an absolute http or https URL: %v", api.Quote(u), err)
		}
	}
	if sf.ssh.idleTimeout <= 0 {
		return usagef("--ssh-idle-timeout must be positive, not %v", sf.ssh.idleTimeout)
	}
	return errors.Join(checkSSHFlags(sf.ssh), checkIsolationFlags(sf))
}

// serverOptions are the service's options of the flags.
func serverOptions(sf serveFlags, log *slog.Logger) server.Options {
	c := sf.capacity
	return server.Options{
		Rate:             sf.rate,
		Logger:           log,
		RequestTimeout:   sf.timeout,
		MaxBodyBytesHeld: sf.maxBodyHeld,

		MaxBodyBytesPerTeam: c.MaxBodyBytesPerTeam,
		MaxInFlightPerTeam:  c.MaxInFlightPerTeam,
		ReadBudget:          c.ReadBudget,
		MaxExports:          c.MaxExports,
		MaxWebhooksPerTeam:  c.MaxWebhooksPerTeam,
		MaxExportsPerTeam:   c.MaxExportsPerTeam,
		ExportStallTimeout:  c.ExportStallTimeout,
		ExportTimeout:       c.ExportTimeout,
		PublicURL:           c.PublicURL,
	}
}

// loggedError is an error already written to the log: Main exits with its
// status without printing it again.
type loggedError struct{ error }

func (e loggedError) Unwrap() error { return e.error }

// serve runs the service until ctx is cancelled, then shuts it down
// gracefully.
func (a *app) serve(ctx context.Context, sf serveFlags, tlsConfig *tls.Config, opts server.Options) (err error) {
	log := opts.Logger
	if sf.dsn == "" {
		// Resolved here: the SSH listener keeps its files beside it.
		if sf.dsn, err = config.DefaultDB(); err != nil {
			return fmt.Errorf("find the default database: %w", err)
		}
	}
	st, where, err := openStore(ctx, sf.dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	if keys, err := st.ListKeys(ctx); err == nil && len(keys) == 0 {
		log.Warn("the database has no API keys yet; create one with: shush keys create --team NAME --db "+where, slog.String("database", where))
	}
	svc, err := server.Listen(st, server.Config{
		Addr:        sf.addr,
		TLS:         tlsConfig,
		MetricsAddr: sf.metricsAddr,
		API:         opts,
		Deliveries:  sf.webhooks,
		Retention: outbox.PrunerConfig{
			AuditRetention: time.Duration(sf.auditRetention),
			EventRetention: time.Duration(sf.eventRetention),
		},
		ShutdownHint: "(interrupt again to exit at once)",
		DrainPeriod:  sf.drain,
	})
	if err != nil {
		return err
	}
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	log.Info(fmt.Sprintf("serving on %s://%s (database %s)", scheme, svc.Addr(), where),
		slog.String("addr", svc.Addr().String()), slog.Bool("tls", tlsConfig != nil), slog.String("database", where),
		slog.Float64("rate", opts.Rate), slog.String("version", version()))
	if sf.ssh.addr == "" {
		return svc.Serve(ctx)
	}
	sshSrv, err := a.listenSSH(sf, svc, st, log)
	if err != nil {
		return err
	}
	log.Info(fmt.Sprintf("serving the terminal UI over SSH on %s; host key %s", sshSrv.Addr(), sshSrv.Fingerprint()),
		slog.String("ssh_addr", sshSrv.Addr().String()), slog.String("host_key", sshSrv.Fingerprint()))
	// Either listener failing stops both. The SSH listener closes with
	// the API's, after the drain period.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	sshCtx, stopSSH := context.WithCancel(context.WithoutCancel(ctx))
	defer stopSSH()
	sshDone := make(chan error, 1)
	go func() {
		err := sshSrv.Serve(sshCtx)
		stop()
		sshDone <- err
	}()
	go func() {
		<-ctx.Done()
		select {
		case <-time.After(sf.drain):
		case <-sshCtx.Done():
		}
		stopSSH()
	}()
	err = svc.Serve(ctx)
	stop()
	stopSSH()
	return errors.Join(err, <-sshDone)
}

// checkIsolationFlags refuses the read budget and the drain out of range.
func checkIsolationFlags(sf serveFlags) error {
	switch {
	case sf.capacity.ReadBudget <= 0 || sf.capacity.ReadBudget > time.Second:
		return usagef("--read-budget must be more than 0 and at most 1s (a second of work a second), not %v", sf.capacity.ReadBudget)
	case sf.drain < 0:
		return usagef("--shutdown-drain must be 0 or positive, not %v", sf.drain)
	}
	return nil
}

// checkSSHFlags refuses SSH settings out of range.
func checkSSHFlags(f sshFlags) error {
	switch {
	case f.maxSessions < 1:
		return usagef("--ssh-max-sessions must be at least 1, not %d", f.maxSessions)
	case f.loginTimeout <= 0:
		return usagef("--ssh-login-timeout must be positive, not %v", f.loginTimeout)
	case f.maxStartups < 1:
		return usagef("--ssh-max-startups must be at least 1, not %d", f.maxStartups)
	case f.maxStartupsPerSource < 1 || f.maxStartupsPerSource > f.maxStartups:
		return usagef("--ssh-max-startups-per-source must be from 1 to --ssh-max-startups (%d), not %d", f.maxStartups, f.maxStartupsPerSource)
	case f.failedLoginsPerMinute < 1:
		return usagef("--ssh-failed-logins-per-minute must be at least 1, not %d", f.failedLoginsPerMinute)
	}
	return nil
}

// listenSSH opens the SSH listener of the terminal UI: its files (the
// host key, the agents' directories) beside a SQLite database, else in the
// data directory.
func (a *app) listenSSH(sf serveFlags, svc *server.Service, st store.Store, log *slog.Logger) (*sshui.Server, error) {
	dir := ""
	if kind, err := server.ClassifyDSN(sf.dsn); err == nil && kind == server.DSNSQLite {
		dir = filepath.Dir(sf.dsn)
	} else if dir, err = config.DataDir(); err != nil {
		return nil, fmt.Errorf("find the data directory for the SSH listener's files: %w", err)
	}
	hostKey := sf.ssh.hostKey
	if hostKey == "" {
		hostKey = filepath.Join(dir, "ssh_host_ed25519_key")
	}
	return sshui.Listen(sshui.Config{
		Addr:        sf.ssh.addr,
		HostKey:     hostKey,
		Service:     svc.Handler(),
		Agents:      st,
		BaseURL:     localTarget(sf.dsn),
		DataDir:     dir,
		IdleTimeout: sf.ssh.idleTimeout,
		MaxSessions: sf.ssh.maxSessions,

		LoginTimeout:         sf.ssh.loginTimeout,
		MaxStartups:          sf.ssh.maxStartups,
		MaxStartupsPerSource: sf.ssh.maxStartupsPerSource,
		FailedLogins:         sf.ssh.failedLoginsPerMinute,
		FailedLoginEvery:     time.Minute / time.Duration(sf.ssh.failedLoginsPerMinute),

		Logger:  log,
		Metrics: svc.Handler().Metrics(),
		Version: version(),
	})
}
