package client

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Answer records what the service said about itself when it answered a
// request: its clock (the Date header). A caller that must judge the
// service's data by the service's own time (never the local clock) passes
// a context from Observe and reads the Answer after the call.
type Answer struct {
	mu   sync.Mutex
	date time.Time
}

// Date is the Date header of the last answer, zero when the service sent
// none (or no answer came).
func (a *Answer) Date() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.date
}

type answerKey struct{}

// Observe returns a context whose requests record their answer's Date in
// the returned Answer.
func Observe(ctx context.Context) (context.Context, *Answer) {
	a := &Answer{}
	return context.WithValue(ctx, answerKey{}, a), a
}

func observe(ctx context.Context, h http.Header) {
	a, ok := ctx.Value(answerKey{}).(*Answer)
	if !ok || h == nil {
		return
	}
	d, err := http.ParseTime(h.Get("Date"))
	if err != nil {
		return
	}
	a.mu.Lock()
	a.date = d.UTC()
	a.mu.Unlock()
}

type referenceKey struct{}

// WithReference returns a context whose requests that change the list
// carry ref (a ticket number or URL) in the Shush-Reference header. Check
// it first with ValidReference.
func WithReference(ctx context.Context, ref string) context.Context {
	if ref == "" {
		return ctx
	}
	return context.WithValue(ctx, referenceKey{}, ref)
}

// ReferenceOf returns the reference ctx carries, or "".
func ReferenceOf(ctx context.Context) string {
	ref, _ := ctx.Value(referenceKey{}).(string)
	return ref
}
