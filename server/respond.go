package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// problem is an error answer: the contract's status, name and message.
type problem struct {
	status  int
	name    string
	message string
	// cause is logged, never sent.
	cause error
	// retry, when set, is the answer's Retry-After (seconds).
	retry string
}

// retryAfter sets the problem's Retry-After seconds.
func (p *problem) retryAfter(seconds int) *problem {
	p.retry = strconv.Itoa(seconds)
	return p
}

func (p *problem) Error() string { return p.message }

func newProblem(status int, name, format string, args ...any) *problem {
	return &problem{status: status, name: name, message: fmt.Sprintf(format, args...)}
}

func invalid(format string, args ...any) *problem {
	return newProblem(http.StatusUnprocessableEntity, api.ErrValidation, format, args...)
}

func badRequest(format string, args ...any) *problem {
	return newProblem(http.StatusBadRequest, api.ErrValidation, format, args...)
}

func notFound() *problem {
	return newProblem(http.StatusNotFound, api.ErrNotFound, "Suppression not found")
}

// fromStore turns a store error into the answer the contract gives it.
func fromStore(err error) *problem {
	var p *problem
	switch {
	case errors.As(err, &p):
		return p
	case errors.Is(err, store.ErrNotFound):
		return notFound()
	case errors.Is(err, store.ErrReadOnly):
		p = newProblem(http.StatusServiceUnavailable, api.ErrServiceUnavailable, "The suppression list is read-only right now (its database does not accept writes); nothing was changed. Try again later.")
	case errors.Is(err, store.ErrUnavailable):
		p = newProblem(http.StatusServiceUnavailable, api.ErrServiceUnavailable, "The suppression list is unavailable right now; try again shortly.")
	case errors.Is(err, context.DeadlineExceeded):
		p = newProblem(http.StatusServiceUnavailable, api.ErrServiceUnavailable, "The request took too long and was stopped; nothing was changed. Try again shortly.")
	case errors.Is(err, context.Canceled):
		// The client went away; the answer is most likely never read.
		p = newProblem(http.StatusServiceUnavailable, api.ErrServiceUnavailable, "The request was cancelled; nothing was changed.")
	default:
		p = newProblem(http.StatusInternalServerError, api.ErrApplication, "Something went wrong on our side; nothing was changed. Try again later.")
	}
	p.cause = err
	return p
}

// appender is an answer that writes its own JSON (api.CheckResponse):
// the same bytes as encoding/json's, without its reflection.
type appender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// writeJSON sends v with the status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b []byte
	var err error
	if a, ok := v.(appender); ok {
		b, err = a.AppendJSON(nil)
	} else {
		b, err = json.Marshal(v)
	}
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"statusCode":500,"name":"application_error","message":"Something went wrong on our side."}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeProblem sends the contract's error body and logs what the caller
// cannot see.
func writeProblem(w http.ResponseWriter, r *http.Request, log *slog.Logger, p *problem) {
	if p.cause != nil {
		level := slog.LevelWarn
		if p.status == http.StatusInternalServerError {
			level = slog.LevelError
		}
		log.LogAttrs(r.Context(), level, "request failed",
			slog.String("request_id", w.Header().Get(requestIDHeader)),
			slog.Int("status", p.status),
			slog.String("error", p.cause.Error()))
	}
	if p.retry != "" {
		w.Header().Set("Retry-After", p.retry)
	}
	writeJSON(w, p.status, api.Error{StatusCode: p.status, Name: p.name, Message: p.message})
}
