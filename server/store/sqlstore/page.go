package sqlstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Window is the rows a page reads, in ID order (IDs are UUIDv7, so that is
// creation order): those below Cursor newest first, or with Ascending
// those above it oldest first; at most Limit. An empty Cursor starts at
// the newest row. A cursor is a position, not a row: it need not name a
// row that exists, so a page whose cursor row was removed meanwhile still
// works.
type Window struct {
	Cursor    string
	Ascending bool
	Limit     int
}

// window turns a page query into the window to read: one row more than the
// page, to learn whether more lie beyond it.
func window(p store.Page) (Window, int, error) {
	limit := p.Limit
	if limit < 1 || limit > api.MaxBatch {
		// The page size when the query names none (or one out of range),
		// for every page of every store.
		limit = 20
	}
	w := Window{Limit: limit + 1}
	switch {
	case p.After != "":
		w.Cursor = p.After
	case p.Before != "":
		w.Cursor, w.Ascending = p.Before, true
	}
	if w.Cursor != "" {
		c, ok := canonicalID(w.Cursor)
		if !ok {
			return w, 0, fmt.Errorf("the page cursor %s is not an ID", api.Quote(w.Cursor))
		}
		w.Cursor = c
	}
	return w, limit, nil
}

// readPage reads a page through read and cuts it to the page: at most
// limit rows, newest first, and whether more lie beyond in the direction of
// the query.
func readPage[T any](ctx context.Context, c *Core, what string, p store.Page, read func(ctx context.Context, w Window) ([]T, error)) ([]T, bool, error) {
	w, limit, err := window(p)
	if err != nil {
		return nil, false, err
	}
	rows, err := read(ctx, w)
	if err != nil {
		return nil, false, c.readErr(what, err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	if w.Ascending {
		slices.Reverse(rows)
	}
	if rows == nil {
		rows = []T{}
	}
	return rows, more, nil
}
