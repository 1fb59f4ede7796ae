package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// caller is who makes a request: a key, over HTTP, or an agent, whose
// session's UI reaches the service in process (AgentTransport) and so
// has no key.
type caller struct {
	key   store.Key
	agent *store.Agent
}

func (c caller) known() bool { return c.agent != nil || c.key.ID != "" }

func (c caller) team() string {
	if c.agent != nil {
		return c.agent.Team
	}
	return c.key.Team
}

func (c caller) readOnly() bool {
	if c.agent != nil {
		return c.agent.ReadOnly
	}
	return c.key.ReadOnly
}

// override is the permission to remove complaints where the team asks
// for it (contract: agents and team rules).
func (c caller) override() bool {
	if c.agent != nil {
		return c.agent.Override
	}
	return c.key.Override
}

// mayImport is the permission to keep entries' own IDs and creation
// times: a key's import right (an agent works by hand, never imports).
func (c caller) mayImport() bool { return c.agent == nil && c.key.Import }

// kind names the caller in a refusal's sentence.
func (c caller) kind() string {
	if c.agent != nil {
		return "agent"
	}
	return "API key"
}

// author is the caller as the trail names it.
func (c caller) author() store.Change {
	if c.agent != nil {
		return store.Change{AgentID: c.agent.ID, AgentName: c.agent.Name}
	}
	return store.Change{KeyID: c.key.ID, KeyName: c.key.Name}
}

// agentCtx carries the ID of the agent an in-process request is made for.
// Only AgentTransport sets it: a request from the network cannot carry a
// context value, so it cannot claim to be an agent.
type agentCtx struct{}

// identify authenticates the request: an agent named by AgentTransport,
// read afresh each request so that a removal takes effect at once, or
// else the request's key.
func (s *Server) identify(r *http.Request) (caller, error) {
	id, ok := r.Context().Value(agentCtx{}).(string)
	if !ok {
		k, err := s.authenticate(r)
		return caller{key: k}, err
	}
	a, err := s.store.AgentByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) || err == nil && a.RemovedAt != nil {
		return caller{}, newProblem(http.StatusForbidden, api.ErrInvalidAPIKey, "This agent was removed; an admin can add it again (shush agents add).")
	}
	if err != nil {
		return caller{}, err
	}
	return caller{agent: &a}, nil
}

// Transport answers requests by calling the service directly: the
// embedded default's client reaches its service in the same process, so
// a request costs no socket, port or network. Requests are authenticated
// by their key, as over HTTP.
func (s *Server) Transport() http.RoundTripper { return inProcess{handler: s} }

// AgentTransport is Transport for an agent's session: every request it
// carries is the agent's, with no key (the trail names the agent), and is
// refused once the agent is removed.
func (s *Server) AgentTransport(agentID string) http.RoundTripper {
	return inProcess{handler: s, agent: agentID}
}

// inProcess is the http.RoundTripper of Transport and AgentTransport.
type inProcess struct {
	handler http.Handler
	agent   string // "" for a key's requests
}

// RoundTrip serves req with the handler and returns its recorded answer.
func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	ctx := req.Context()
	if t.agent != "" {
		ctx = context.WithValue(ctx, agentCtx{}, t.agent)
	}
	in := req.Clone(ctx)
	in.RequestURI = req.URL.RequestURI()
	in.RemoteAddr = "127.0.0.1:0"
	in.Host = req.URL.Host
	if in.Body == nil {
		in.Body = http.NoBody
	}
	w := &recordedResponse{header: http.Header{}}
	t.handler.ServeHTTP(w, in)
	in.Body.Close()
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.header.Set("Content-Length", strconv.Itoa(w.body.Len()))
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)),
		StatusCode:    w.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        w.header,
		Body:          io.NopCloser(bytes.NewReader(w.body.Bytes())),
		ContentLength: int64(w.body.Len()),
		Request:       req,
	}, nil
}

// recordedResponse is the http.ResponseWriter of inProcess: it keeps the
// status, headers and body for the *http.Response.
type recordedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *recordedResponse) Header() http.Header { return w.header }

func (w *recordedResponse) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
		// Later changes to the header map must not show, as on the wire.
		w.header = w.header.Clone()
	}
}

func (w *recordedResponse) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

// Flush commits the status, as on the wire; the body is all kept until
// the handler returns. An export flushes as it goes and stops when a
// flush fails: without it, every in-process export was cut off.
func (w *recordedResponse) Flush() { w.WriteHeader(http.StatusOK) }
