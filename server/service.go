package server

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/shushlist/shush/server/outbox"
	"github.com/shushlist/shush/server/store"
)

// DefaultShutdownGrace is how long requests in flight may finish once a
// Service is asked to stop.
const DefaultShutdownGrace = 30 * time.Second

// Config is how a Service runs: where it listens and with what TLS, and
// the settings of the API and of its background work.
type Config struct {
	// Addr is the API's listen address (host:port).
	Addr string
	// TLS, when set, serves HTTPS with its certificates, over HTTP/1.1
	// only: the framing guard reads HTTP/1.1 request heads, and must see
	// them decrypted.
	TLS *tls.Config
	// MetricsAddr serves Prometheus metrics at /metrics on a listener of
	// its own; "" serves none.
	MetricsAddr string
	// API tunes the handler. Its Logger is also the runtime's. Deliveries
	// is set by the Service; Metrics is made when MetricsAddr asks for
	// them.
	API Options
	// Deliveries tunes the webhook deliverer.
	Deliveries outbox.DelivererConfig
	// Retention tunes the pruner; its zero value prunes nothing.
	Retention outbox.PrunerConfig
	// Expiry tunes the sweeper of expired entries. Its clock is the
	// API's (API.Now) unless it has its own.
	Expiry outbox.SweeperConfig
	// ShutdownGrace bounds how long requests in flight may finish after
	// Serve's context ends; <= 0 means DefaultShutdownGrace.
	ShutdownGrace time.Duration
	// ShutdownHint ends the log record that says the service is stopping,
	// to tell an operator how to stop at once (the process decides that).
	ShutdownHint string
	// DrainPeriod is how long, once Serve's context ends, the service
	// goes on serving with GET /readyz (and /healthz) answering 503, so
	// that a load balancer stops sending it requests before its listeners
	// close; 0 closes them at once. `shush serve` drains for
	// DefaultDrainPeriod.
	DrainPeriod time.Duration
}

// DefaultDrainPeriod is `shush serve`'s drain period: a few of a load
// balancer's health checks.
const DefaultDrainPeriod = 5 * time.Second

// Service is the service as a process runs it: the API behind the framing
// guard on its listener, with its http.Server timeouts, the metrics
// listener, the webhook deliverer, the retention pruner and the sweeper of
// expired entries, and a graceful shutdown. `shush serve` and the
// benchmarks' floor both run it.
type Service struct {
	cfg     Config
	log     *slog.Logger
	handler *Server
	api     *http.Server
	ln      net.Listener
	metrics *http.Server
	metLn   net.Listener

	deliverer *outbox.Deliverer
	pruner    *outbox.Pruner
	sweeper   *outbox.Sweeper
}

// Listen makes the service over st and opens its listeners; it serves once
// Serve is called. The caller keeps ownership of st and closes it after
// Serve returns.
func Listen(st store.Store, cfg Config) (*Service, error) {
	cfg = cfg.withDefaults()
	s := &Service{cfg: cfg, log: cfg.API.Logger,
		deliverer: outbox.NewDeliverer(st, cfg.Deliveries),
		pruner:    outbox.NewPruner(st, cfg.Retention),
		sweeper:   outbox.NewSweeper(st, cfg.Expiry),
	}
	if cfg.API.Metrics != nil {
		if err := cfg.API.Metrics.Register(s.deliverer.Collectors()...); err != nil {
			return nil, err
		}
	}
	opts := cfg.API
	opts.Deliveries = s.deliverer
	handler := New(st, opts)
	s.handler = handler
	errorLog := slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)
	s.api = httpServer(handler, handler.opts.RequestTimeout, errorLog)
	s.api.ConnContext = ConnContext
	if err := s.listenAPI(); err != nil {
		return nil, err
	}
	if cfg.MetricsAddr != "" {
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", cfg.API.Metrics.Handler())
		s.metrics = httpServer(mux, handler.opts.RequestTimeout, errorLog)
		if err := s.listenMetrics(); err != nil {
			s.ln.Close()
			return nil, err
		}
	}
	return s, nil
}

// withDefaults fills in what the caller left out; the background loops
// log where the API does unless told otherwise.
func (c Config) withDefaults() Config {
	if c.API.Logger == nil {
		c.API.Logger = slog.New(slog.DiscardHandler)
	}
	if c.ShutdownGrace <= 0 {
		c.ShutdownGrace = DefaultShutdownGrace
	}
	if c.API.Metrics == nil && c.MetricsAddr != "" {
		c.API.Metrics = NewMetrics()
	}
	c.Deliveries.Logger = cmp.Or(c.Deliveries.Logger, c.API.Logger)
	c.Retention.Logger = cmp.Or(c.Retention.Logger, c.API.Logger)
	c.Expiry.Logger = cmp.Or(c.Expiry.Logger, c.API.Logger)
	if c.Expiry.Now == nil {
		c.Expiry.Now = c.API.Now
	}
	return c
}

// listenAPI opens the API's listener: TLS when configured, and the
// framing guard, which must read the request heads decrypted.
func (s *Service) listenAPI() error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s: %w", s.cfg.Addr, err)
	}
	if s.cfg.TLS != nil {
		tc := s.cfg.TLS.Clone()
		tc.NextProtos = []string{"http/1.1"}
		ln = tls.NewListener(ln, tc)
	} else if !loopback(s.cfg.Addr) {
		s.log.Warn("serving plain HTTP on a non-loopback address: API keys and addresses cross the network unencrypted; use --tls-cert and --tls-key, or a TLS proxy in front",
			slog.String("addr", s.cfg.Addr))
	}
	s.ln = GuardFraming(ln)
	return nil
}

func (s *Service) listenMetrics() error {
	ln, err := net.Listen("tcp", s.cfg.MetricsAddr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s for metrics: %w", s.cfg.MetricsAddr, err)
	}
	s.metLn = ln
	s.log.Info(fmt.Sprintf("metrics on http://%s/metrics", ln.Addr()), slog.String("metrics_addr", ln.Addr().String()))
	return nil
}

// httpServer is the http.Server of a listener: timeouts that keep a slow
// or silent client from holding a connection, a request's whole time
// (with room to write its answer), and bounded headers.
func httpServer(h http.Handler, requestTimeout time.Duration, errorLog *log.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      requestTimeout + 10*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          errorLog,
	}
}

// Handler is the service's API, for what reaches it in process (the
// sessions served over SSH, through AgentTransport).
func (s *Service) Handler() *Server { return s.handler }

// Addr is the address the API listens on (with the port chosen, when the
// configured one was 0).
func (s *Service) Addr() net.Addr { return s.ln.Addr() }

// Serve serves until ctx ends or the listener fails, then stops: requests
// in flight get ShutdownGrace to finish, and webhook attempts under way
// finish and are recorded (each within the deliverer's timeout). It closes
// the listeners. A stop asked for by ctx returns nil.
func (s *Service) Serve(ctx context.Context) error {
	if s.metrics != nil {
		go func() { _ = s.metrics.Serve(s.metLn) }()
		defer s.metrics.Close()
	}
	served := make(chan error, 1)
	go func() { served <- s.api.Serve(s.ln) }()
	loops, stopLoops := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { s.deliverer.Run(loops) })
	wg.Go(func() { s.pruner.Run(loops) })
	wg.Go(func() { s.sweeper.Run(loops) })
	defer func() { stopLoops(); wg.Wait() }()

	select {
	case err := <-served:
		return fmt.Errorf("the service stopped: %w", err)
	case <-ctx.Done():
	}
	if d := s.cfg.DrainPeriod; d > 0 {
		s.handler.readiness.drain()
		s.log.Info(strings.TrimSpace(fmt.Sprintf("shutting down: /readyz answers 503 for %v while requests are still served, then the listeners close %s", d, s.cfg.ShutdownHint)))
		select {
		case err := <-served:
			return fmt.Errorf("the service stopped: %w", err)
		case <-time.After(d):
		}
	}
	s.log.Info(strings.TrimSpace("shutting down; finishing requests in flight " + s.cfg.ShutdownHint))
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownGrace)
	defer cancel()
	if err := s.api.Shutdown(sctx); err != nil {
		return fmt.Errorf("shut down: %w", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	s.log.Info("stopped")
	return nil
}

// loopback reports whether a listen address only takes connections from
// this machine.
func loopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
