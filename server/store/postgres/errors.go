package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

	"github.com/shushlist/shush/server/store"
)

// maxAttempts bounds how often a transaction that lost a race (deadlock,
// serialization failure, unique violation) is run again.
const maxAttempts = 8

// retry runs fn, one statement (atomic on its own), and runs it again
// when it lost a race with another transaction (a deadlock, a
// serialization failure); any other error, and the last attempt's, is
// returned.
func (s *db) retry(ctx context.Context, fn func() error) error {
	var err error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return mapErr(ctx.Err())
			case <-time.After(time.Duration(attempt) * 2 * time.Millisecond):
			}
		}
		err = fn()
		if !retryable(err) {
			break
		}
	}
	err = mapErr(err)
	if errors.Is(err, store.ErrReadOnly) {
		s.dropReadOnly()
	}
	return err
}

// retryable reports errors a transaction may get from a concurrent one and
// that a fresh attempt resolves.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "40001", // serialization_failure
		"40P01", // deadlock_detected
		"23505": // unique_violation
		return true
	}
	return false
}

// mapErr wraps errors that mean the database cannot be reached, or is too
// busy, with store.ErrUnavailable. Other errors are returned unchanged.
func mapErr(err error) error {
	if err == nil || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrUnavailable) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "25006" { // read_only_sql_transaction
		return fmt.Errorf("%w: %w", store.ErrReadOnly, err)
	}
	if unavailable(err) {
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

func unavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, puddle.ErrClosedPool) || pgconn.Timeout(err) {
		return true
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), // connection exception
			strings.HasPrefix(pgErr.Code, "53"),                                 // insufficient resources
			pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03", // shutdown, cannot connect now
			pgErr.Code == "40001", pgErr.Code == "40P01", pgErr.Code == "55P03": // still losing races after retries, lock timeout
			return true
		}
		return false
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	// A connection that broke mid-query surfaces as an unexpected EOF or a
	// "conn closed" error from pgconn.
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "unexpected EOF") ||
		strings.Contains(msg, "connection reset") || strings.Contains(msg, "broken pipe")
}
