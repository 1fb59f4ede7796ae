package dbcopy

import (
	"context"
	"fmt"
)

// Sums reads the canonical rows of every table of a database and returns
// their counts and checksums, as a copy reports them: two databases that
// hold the same give the same sums.
func Sums(ctx context.Context, db Endpoint) ([]TableReport, error) {
	d, err := open(ctx, db, true)
	if err != nil {
		return nil, err
	}
	defer d.close()
	rd, err := d.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	defer rd.end()
	out := make([]TableReport, 0, len(Tables))
	for _, t := range Tables {
		var s sum
		if err := rd.each(ctx, t, d.kind(), func(r row) error { s.add(r); return nil }); err != nil {
			return nil, fmt.Errorf("read %s: %w", t.Name, err)
		}
		out = append(out, TableReport{Name: t.Name, Rows: s.rows, Sum: s.String()})
	}
	return out, nil
}
