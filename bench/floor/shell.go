package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/shushlist/shush/server/store/sqlite"
)

// floorShell is the sqlite3 shell's floor: the same durable transactions
// as the floor with the trail's rows (a changes row, then the 100 rows
// naming it, ON CONFLICT … DO NOTHING as the store writes them), group
// batches to a transaction (1: each batch commits on its own; shush's
// store commits the batches in flight together, so the grouped floor
// commits as many at once as the CLI has in flight), written
// beforehand as one SQL script with the IDs made, and run by the sqlite3
// command with WAL, synchronous=FULL and a 64 MiB page cache into the
// schema a shush store creates. Only the shell's run is timed; its CPU is
// the child's.
func floorShell(ctx context.Context, db string, emails []string, group int) (result, error) {
	st, err := sqlite.Open(ctx, db)
	if err != nil {
		return result{}, err
	}
	if err := st.Close(); err != nil {
		return result{}, err
	}
	script := filepath.Join(filepath.Dir(db), "floor.sql")
	f, err := os.OpenFile(script, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return result{}, err
	}
	var b strings.Builder
	b.WriteString(".output /dev/null\nPRAGMA journal_mode=WAL;\nPRAGMA synchronous=FULL;\nPRAGMA cache_size=-65536;\n")
	for lo, k := 0, 0; lo < len(emails); lo, k = lo+batchSize, k+1 {
		rows, err := makeRows(emails[lo:min(lo+batchSize, len(emails))])
		if err != nil {
			f.Close()
			return result{}, err
		}
		first, last := span(rows)
		at := rows[0].at.UnixMilli()
		if k%group == 0 {
			b.WriteString("BEGIN;\n")
		}
		fmt.Fprintf(&b, "INSERT INTO changes (team, created_at, key_id, key_name, reference, request_id, first_id, last_id) VALUES ('%s', %d, '%s', '', NULL, '%s', '%s', '%s');\n",
			team, at, keyID, requestID, first, last)
		b.WriteString("INSERT INTO suppressions (team, id, email, origin, source_id, created_at, change_id) VALUES ")
		for i, r := range rows {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "('%s','%s','%s','manual',NULL,%d,last_insert_rowid())", team, r.id, r.email, at)
		}
		b.WriteString(" ON CONFLICT (team, email) DO NOTHING;\n")
		if k%group == group-1 || lo+batchSize >= len(emails) {
			b.WriteString("COMMIT;\n")
		}
		if b.Len() > 1<<20 {
			if _, err := f.WriteString(b.String()); err != nil {
				f.Close()
				return result{}, err
			}
			b.Reset()
		}
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		return result{}, err
	}
	if err := f.Close(); err != nil {
		return result{}, err
	}
	in, err := os.Open(script)
	if err != nil {
		return result{}, err
	}
	defer in.Close()
	cmd := exec.CommandContext(ctx, "sqlite3", "-batch", "-bail", db)
	cmd.Stdin, cmd.Stderr = in, os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("sqlite3: %w", err)
	}
	wall := time.Since(start)
	return result{wall: wall, serverCPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}, nil
}
