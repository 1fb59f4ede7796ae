// Package sshui serves the terminal UI over SSH: an agent of a team types
// ssh and is at work, in a session of their own that reaches the service
// in process with the agent's identity (no API key, no network hop).
//
// The concerns are middlewares, outermost first: the log of each session,
// the admission of the agent (known, not removed, within the cap of
// sessions), and the UI itself. Authentication happens before any of
// them, by public key only.
package sshui

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	"github.com/prometheus/client_golang/prometheus"
	gossh "golang.org/x/crypto/ssh"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// Defaults of Config.
const (
	DefaultIdleTimeout = 30 * time.Minute
	DefaultMaxSessions = 4
)

// The largest window a session draws: a client may claim any size, and a
// frame costs its area.
const (
	maxWidth  = 500
	maxHeight = 200
)

// watchEvery is how often the agents of open sessions are looked up, so
// that a removal ends its agent's sessions.
const watchEvery = 2 * time.Second

// Config is how the SSH listener runs.
type Config struct {
	// Addr is the listen address (host:port).
	Addr string
	// HostKey is the host's private key file (OpenSSH PEM); an ed25519
	// key is made there, 0600, when the file does not exist.
	HostKey string
	// Service is the API the sessions reach in process (AgentTransport).
	Service *server.Server
	// Agents finds an agent by their key.
	Agents store.Agents
	// BaseURL names the service in the sessions' clients and run
	// journals: stable across restarts, so that runs resume.
	BaseURL string
	// DataDir holds each agent's history, drafts and journals, a
	// directory per agent (0700).
	DataDir string
	// IdleTimeout ends a session that had no input for this long; <= 0
	// means DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxSessions is how many sessions one agent may have open at once;
	// <= 0 means DefaultMaxSessions.
	MaxSessions int
	// LoginTimeout closes a connection that has not logged in by then;
	// <= 0 means DefaultLoginTimeout.
	LoginTimeout time.Duration
	// MaxStartups caps the connections logging in at once, in all, and
	// MaxStartupsPerSource those of one address; more are closed at
	// once. <= 0 means DefaultMaxStartups, DefaultMaxStartupsPerSource.
	MaxStartups, MaxStartupsPerSource int
	// FailedLogins is how many failed logins one address may make at
	// once, FailedLoginEvery how often it earns one back; past them its
	// connections are closed at once. <= 0 means DefaultFailedLogins,
	// DefaultFailedLoginEvery.
	FailedLogins     int
	FailedLoginEvery time.Duration
	// Logger gets a record per session and per refused login.
	Logger *slog.Logger
	// Metrics, when set, gets the listener's gauges and counters.
	Metrics *server.Metrics
	// Version is the client's user agent version.
	Version string
}

// Server is the SSH listener.
type Server struct {
	cfg         Config
	log         *slog.Logger
	ssh         *ssh.Server
	ln          net.Listener
	fingerprint string

	// base is every session's parent: Serve's end ends them all.
	base context.Context
	stop context.CancelFunc

	mu       sync.Mutex
	sessions map[string]map[*open]struct{} // by agent ID
	watching bool

	authFailures prometheus.Counter
	opened       prometheus.Counter
	door         *door
}

// open is one session in progress.
type open struct {
	ctx context.Context
	end context.CancelCauseFunc
}

// errRemoved ends the sessions of a removed agent.
var errRemoved = errors.New("this agent was removed; ask an admin of the team")

// Listen opens the listener with the host key (made when missing).
func Listen(cfg Config) (*Server, error) {
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	doorDefaults(&cfg)
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	signer, err := hostKey(cfg.HostKey)
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(cfg.HostKey); err == nil && fi.Mode().Perm()&0o077 != 0 {
		// Whoever reads it can pose as this service to the agents.
		cfg.Logger.Warn(fmt.Sprintf("the SSH host key %s is readable by other users (mode %04o); run: chmod 600 %s",
			api.Quote(cfg.HostKey), fi.Mode().Perm(), cfg.HostKey))
	}
	s := &Server{cfg: cfg, log: cfg.Logger, fingerprint: gossh.FingerprintSHA256(signer.PublicKey()),
		sessions: map[string]map[*open]struct{}{},
		authFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "shush_ssh_auth_failures_total",
			Help: "SSH connections refused before a session: an unknown or removed agent's key, another method than a public key, or a failed handshake.",
		}),
		opened: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "shush_ssh_sessions_total",
			Help: "SSH sessions admitted since start.",
		}),
		door: newDoor(cfg),
	}
	s.base, s.stop = context.WithCancel(context.Background())
	if m := cfg.Metrics; m != nil {
		if err := m.Register(append(s.door.collectors(), s.authFailures, s.opened)...); err != nil {
			return nil, err
		}
		if err := m.GaugeFunc("shush_ssh_sessions_open", "SSH sessions open now.", func() float64 { return float64(s.open()) }); err != nil {
			return nil, err
		}
		if err := m.GaugeFunc("shush_ssh_logging_in", "SSH connections logging in now (not yet authenticated).", func() float64 { return float64(s.door.unauthenticated()) }); err != nil {
			return nil, err
		}
	}
	s.ssh, err = wish.NewServer(
		func(srv *ssh.Server) error { srv.AddHostKey(signer); return nil },
		wish.WithPublicKeyAuth(s.knownKey),
		func(srv *ssh.Server) error { srv.ConnectionFailedCallback = s.refused; return nil },
		func(srv *ssh.Server) error {
			srv.ConnCallback = s.door.enter
			srv.ServerConfigCallback = func(ctx ssh.Context) *gossh.ServerConfig {
				return &gossh.ServerConfig{AuthLogCallback: authLog(ctx)}
			}
			return nil
		},
		// Composed first to last; the last runs first.
		wish.WithMiddleware(s.serveUI, s.admit, s.logSession),
	)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s for SSH: %w", cfg.Addr, err)
	}
	s.ln = ln
	return s, nil
}

// Addr is the address the listener listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Fingerprint is the host key's SHA256 fingerprint, as ssh shows it.
func (s *Server) Fingerprint() string { return s.fingerprint }

// Serve serves until ctx ends: then every session ends (its run, if any,
// stays resumable), and the listener closes.
func (s *Server) Serve(ctx context.Context) error {
	served := make(chan error, 1)
	go func() { served <- s.ssh.Serve(s.ln) }()
	select {
	case err := <-served:
		s.stop()
		return fmt.Errorf("the SSH listener stopped: %w", err)
	case <-ctx.Done():
	}
	s.stop()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.ssh.Shutdown(sctx); err != nil {
		s.ssh.Close()
	}
	<-served
	return nil
}

// knownKey lets in a key of an agent not removed, from an address its
// from= option allows (when it has one). The session looks the agent up
// again (admit): this only decides whether the login may go on.
func (s *Server) knownKey(ctx ssh.Context, key ssh.PublicKey) bool {
	a, err := s.cfg.Agents.AgentByFingerprint(ctx, gossh.FingerprintSHA256(key))
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.log.Error("cannot look up an agent's key", slog.String("error", err.Error()))
		}
		return false
	}
	rule, err := server.AgentFrom(a.PublicKey)
	if err != nil {
		s.log.Error("cannot read an agent's key options", slog.String("agent", a.Name), slog.String("error", err.Error()))
		return false
	}
	if !rule.Allows(addrOf(ctx.RemoteAddr())) {
		s.log.Warn("refused an SSH login: the agent's key allows other addresses (from=)",
			slog.String("agent", a.Name), slog.String("remote", ctx.RemoteAddr().String()))
		return false
	}
	return true
}

// doorDefaults fills the door's settings left at zero.
func doorDefaults(cfg *Config) {
	if cfg.LoginTimeout <= 0 {
		cfg.LoginTimeout = DefaultLoginTimeout
	}
	if cfg.MaxStartups <= 0 {
		cfg.MaxStartups = DefaultMaxStartups
	}
	if cfg.MaxStartupsPerSource <= 0 {
		cfg.MaxStartupsPerSource = DefaultMaxStartupsPerSource
	}
	cfg.MaxStartupsPerSource = min(cfg.MaxStartupsPerSource, cfg.MaxStartups)
	if cfg.FailedLogins <= 0 {
		cfg.FailedLogins = DefaultFailedLogins
	}
	if cfg.FailedLoginEvery <= 0 {
		cfg.FailedLoginEvery = DefaultFailedLoginEvery
	}
}

// refused logs a connection that did not get a session and counts it:
// never the key (nor its fingerprint), only where it came from and why.
func (s *Server) refused(conn net.Conn, err error) {
	s.authFailures.Inc()
	s.log.Warn("refused an SSH login", slog.String("remote", conn.RemoteAddr().String()), slog.String("reason", err.Error()))
}

// open is how many sessions are open.
func (s *Server) open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, set := range s.sessions {
		n += len(set)
	}
	return n
}

// hold records a session of the agent, within the cap; release forgets
// it.
func (s *Server) hold(agentID string, o *open) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sessions[agentID]) >= s.cfg.MaxSessions {
		return fmt.Errorf("this agent already has %d sessions open, the most allowed; close one first", s.cfg.MaxSessions)
	}
	if s.sessions[agentID] == nil {
		s.sessions[agentID] = map[*open]struct{}{}
	}
	s.sessions[agentID][o] = struct{}{}
	if !s.watching {
		s.watching = true
		go s.watch()
	}
	return nil
}

func (s *Server) release(agentID string, o *open) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.sessions[agentID], o)
	if len(s.sessions[agentID]) == 0 {
		delete(s.sessions, agentID)
	}
}

// watch ends the sessions of removed agents, looking every watchEvery
// while sessions are open (one query for all of them).
func (s *Server) watch() {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	for {
		select {
		case <-s.base.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		if len(s.sessions) == 0 {
			s.watching = false
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		agents, err := s.cfg.Agents.ListAgents(s.base)
		if err != nil {
			continue
		}
		present := make(map[string]bool, len(agents))
		for _, a := range agents {
			present[a.ID] = true
		}
		s.mu.Lock()
		for id, set := range s.sessions {
			if !present[id] {
				for o := range set {
					o.end(errRemoved)
				}
			}
		}
		s.mu.Unlock()
	}
}

// hostKey reads the host key at path, or makes an ed25519 one there
// (0600, its directory 0700 when made).
func hostKey(path string) (gossh.Signer, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		b, err = newHostKey(path)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the SSH host key %s: %w", api.Quote(path), err)
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("the SSH host key %s is not an unencrypted private key: %w", api.Quote(path), err)
	}
	return signer, nil
}

func newHostKey(path string) ([]byte, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := gossh.MarshalPrivateKey(priv, "shush host key")
	if err != nil {
		return nil, err
	}
	b := pem.EncodeToMemory(block)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	// O_EXCL: two services starting at once keep one key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return b, f.Close()
}
