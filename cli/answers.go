package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

// The flags and cells of the list's answers: a search and a created range
// (list, export), a note and an expiry (add, batch add), and how they show
// in a table.

// selectFlags narrow what list and export read: --search and the created
// range.
type selectFlags struct {
	search, after, before string
}

func (s *selectFlags) flags(f *pflag.FlagSet) {
	f.StringVar(&s.search, "search", "", "only entries of a domain (@example.com, exactly that domain), addresses starting with a prefix (jane*, 3 characters at least) or one address; case does not matter")
	f.StringVar(&s.after, "created-after", "", "only entries created after this time (RFC 3339, or a date: 2026-01-31)")
	f.StringVar(&s.before, "created-before", "", "only entries created before this time (RFC 3339, or a date)")
}

// selection is what the flags ask for.
type selection struct {
	search        api.Search
	after, before time.Time
}

func (s selectFlags) parse() (selection, error) {
	var out selection
	if s.search != "" {
		q, err := api.ParseSearch(s.search)
		if err != nil {
			return out, usagef("--search %s: %v; give @domain, a prefix and * (jane*), or an address", api.Quote(s.search), err)
		}
		out.search = q
	}
	for _, f := range []struct {
		name, v string
		dst     *time.Time
	}{{"--created-after", s.after, &out.after}, {"--created-before", s.before, &out.before}} {
		if f.v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, f.v)
		if err != nil {
			t, err = time.Parse("2006-01-02", f.v)
		}
		if err != nil {
			return out, usagef("%s %s is not a time: give RFC 3339 (2026-01-31T12:00:00Z) or a date (2026-01-31)", f.name, api.Quote(f.v))
		}
		*f.dst = t.UTC()
	}
	return out, nil
}

// noSearch says that a service does not search its list (it ignored the
// search, or has no such endpoint), instead of reading the whole list.
func noSearch(conn *connection, err error) error {
	if errors.Is(err, client.ErrNoSearch) {
		return fmt.Errorf("%s does not search its list (only shush's own service does), so nothing is shown; "+
			"shush suppressions list --all reads the whole list: %w", conn.Target, err)
	}
	return err
}

// noteFlags are --note and --expires, what an addition says of each entry.
type noteFlags struct {
	note, expires string
}

func (n *noteFlags) flags(f *pflag.FlagSet) {
	f.StringVar(&n.note, "note", "", "why the addresses are listed, kept with each entry (at most 500 printable characters; shush's own service)")
	f.StringVar(&n.expires, "expires", "", "when the entries leave the list again: 30d, 12h, a date (2026-12-31, UTC) or never (default); counted by the service's clock")
}

// parse checks the flags before anything is read or sent.
func (n noteFlags) parse() (batch.Expiry, error) {
	if err := api.ValidNote(n.note); err != nil {
		return batch.Expiry{}, usagef("--note: %v", err)
	}
	e, err := batch.ParseExpiry(n.expires)
	if err != nil {
		return batch.Expiry{}, usagef("--expires: %v", err)
	}
	return e, nil
}

// expiresAt is the expiry asked for, as a time by the service's clock
// (zero for never).
func expiresAt(ctx context.Context, c *client.Client, e batch.Expiry) (time.Time, error) {
	at, err := batch.ExpiresAt(ctx, c, e)
	if err != nil {
		return time.Time{}, usagef("--expires: %v", err)
	}
	return at, nil
}

// maxNoteCell is how much of a note a table shows; --json has it whole.
const maxNoteCell = 60

// noteCell is a note in a table: cut to maxNoteCell characters.
func noteCell(note *string) string {
	if note == nil {
		return ""
	}
	return cut(*note, maxNoteCell)
}

// cut shortens s to n characters with an ellipsis.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// expiryCell is an expiry in a table: "" for never.
func expiryCell(t *api.Timestamp) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(utc)
}

// timeCell is expiryCell of a time (zero for never).
func timeCell(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(utc)
}
