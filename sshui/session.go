package sshui

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/safe"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/ui"
)

// The values admit leaves in a session's context for the UI.
type (
	agentKey   struct{}
	sessionKey struct{}
)

// maxPaste is the most one paste may hold in a session: 32 MiB is some
// 1.5 million addresses, far past a ticket, and bounds what one agent's
// paste costs the team's server.
const maxPaste = 32 << 20

// errIdle ends a session nobody typed in for the idle timeout.
var errIdle = errors.New("the session was idle too long")

// logSession logs each session's start and end, with its agent once
// admitted (a name is the database's text: slog quotes it).
func (s *Server) logSession(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		start := time.Now()
		next(sess)
		attrs := []any{slog.String("remote", sess.RemoteAddr().String()), slog.Duration("duration", time.Since(start).Round(time.Millisecond))}
		if a, ok := sess.Context().Value(agentKey{}).(store.Agent); ok {
			attrs = append(attrs, slog.String("agent", a.Name), slog.String("team", a.Team))
		}
		if o, ok := sess.Context().Value(sessionKey{}).(*open); ok {
			if cause := context.Cause(o.ctx); cause != nil && !errors.Is(cause, context.Canceled) {
				attrs = append(attrs, slog.String("ended", cause.Error()))
			}
		}
		s.log.Info("SSH session ended", attrs...)
	}
}

// admit finds the session's agent by the key it authenticated with (the
// one the handshake verified, not one it was offered first), refuses a
// removed agent, a command and a session beyond the agent's cap, and
// records the session so that a removal ends it.
func (s *Server) admit(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		key := sess.PublicKey()
		if key == nil {
			refuse(sess, "shush takes SSH public keys only.")
			return
		}
		a, err := s.cfg.Agents.AgentByFingerprint(sess.Context(), gossh.FingerprintSHA256(key))
		if err != nil {
			s.authFailures.Inc()
			s.log.Warn("refused an SSH session: no agent has this key (any more)", slog.String("remote", sess.RemoteAddr().String()))
			refuse(sess, "No agent of this service has this key; ask an admin of your team (shush agents add).")
			return
		}
		sess.Context().SetValue(agentKey{}, a)
		if len(sess.Command()) > 0 || sess.Subsystem() != "" {
			refuse(sess, "shush runs no commands: connect with ssh alone, in a terminal.")
			return
		}
		ctx, end := context.WithCancelCause(sess.Context())
		defer end(nil)
		stop := context.AfterFunc(s.base, func() { end(errors.New("the service is stopping")) })
		defer stop()
		o := &open{ctx: ctx, end: end}
		if err := s.hold(a.ID, o); err != nil {
			s.log.Warn("refused an SSH session: too many open", slog.String("agent", a.Name), slog.Int("max", s.cfg.MaxSessions))
			refuse(sess, capitalFirst(err.Error())+".")
			return
		}
		defer s.release(a.ID, o)
		s.opened.Inc()
		sess.Context().SetValue(sessionKey{}, o)
		s.log.Info("SSH session opened", slog.String("agent", a.Name), slog.String("team", a.Team), slog.String("remote", sess.RemoteAddr().String()))
		next(sess)
	}
}

// serveUI runs the terminal UI for the session's agent until the agent
// quits, the connection drops, the agent is removed, the session idles
// out or the service stops.
func (s *Server) serveUI(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		defer next(sess)
		a, _ := sess.Context().Value(agentKey{}).(store.Agent)
		o, ok := sess.Context().Value(sessionKey{}).(*open)
		if !ok {
			return
		}
		ctx := o.ctx
		pty, winch, ok := sess.Pty()
		if !ok {
			refuse(sess, "shush needs a terminal: connect with ssh -t.")
			return
		}
		dir, err := s.agentDir(a.ID)
		if err != nil {
			s.log.Error("cannot make an agent's directory", slog.String("agent", a.Name), slog.String("error", err.Error()))
			refuse(sess, "The service cannot keep this agent's work; an admin should look at its log.")
			return
		}
		in := newFeed(sess)
		r := renderer(sess, pty, in)
		svc := client.New(s.cfg.BaseURL, "", client.WithTransport(s.cfg.Service.AgentTransport(a.ID)), client.WithUserAgent(s.cfg.Version))
		// The team's protected addresses, greyed in the list; the service
		// refuses them whatever the UI knows.
		var protected []string
		if team, err := svc.Team(ctx); err == nil {
			protected = team.Protected
		}
		m := ui.New(ui.Options{
			Protected: protected,
			Service:   svc,
			Target:    ui.Target{Label: "shared list", Agent: a.Name, Team: a.Team},
			// The agent's own directory: history and drafts are theirs,
			// and survive a dropped connection.
			StateDir: dir,
			Runs: &batch.Runs{Dir: filepath.Join(dir, "journal"), Client: svc, Source: "ui", Profile: "ssh", KeyPrint: a.ID,
				Concurrency: 1},
			Clipboard: sess,
			Renderer:  r,
			Remote:    true,
		})
		pastes := ui.NewInput(in)
		pastes.MaxPaste = maxPaste
		p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(pastes), tea.WithOutput(sess),
			tea.WithoutSignalHandler())
		pastes.Start(p.Send)
		defer pastes.Close()
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case w, ok := <-winch:
					if !ok {
						return
					}
					p.Send(tea.WindowSizeMsg{Width: min(max(w.Width, 0), maxWidth), Height: min(max(w.Height, 0), maxHeight)})
				}
			}
		}()
		go s.idle(o, in)
		_, err = p.Run()
		// A dropped connection kills the program, not the send it began:
		// stop that before the agent can connect again and resume it.
		m.Close()
		cause := context.Cause(ctx)
		switch {
		case errors.Is(cause, errRemoved), errors.Is(cause, errIdle):
			refuse(sess, capitalFirst(cause.Error())+".")
		case err != nil && !errors.Is(err, tea.ErrProgramKilled):
			s.log.Error("the terminal UI stopped", slog.String("agent", a.Name), slog.String("error", err.Error()))
			refuse(sess, "The terminal UI stopped; an admin can find why in the service's log.")
		default:
			_ = sess.Exit(0)
		}
	}
}

// idle ends the session once no input came for the idle timeout.
func (s *Server) idle(o *open, in *feed) {
	every := min(s.cfg.IdleTimeout/4, time.Minute)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-o.ctx.Done():
			return
		case <-t.C:
			if time.Since(in.lastInput()) >= s.cfg.IdleTimeout {
				o.end(errIdle)
				return
			}
		}
	}
}

// agentDir is the agent's directory under DataDir, made 0700.
func (s *Server) agentDir(id string) (string, error) {
	dir := filepath.Join(s.cfg.DataDir, "agents", id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return dir, os.Chmod(dir, 0o700)
}

// refuse tells the agent why the session ends, on stderr, and ends it
// with status 1. The text is ours, never the client's.
func refuse(sess ssh.Session, msg string) {
	fmt.Fprintf(sess.Stderr(), "%s\r\n", safe.Text(msg))
	_ = sess.Exit(1)
}

func capitalFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
