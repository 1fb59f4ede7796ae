// Command floor times an import of N new addresses two ways on the same
// input, machine and database, in one invocation, and prints both times
// and their ratio:
//
//   - the floor: the database's own work for the same rows, 100 rows per
//     durable transaction through the same driver (modernc.org/sqlite with
//     WAL and synchronous=FULL, or pgx), into the schema a shush store
//     creates, with plain prepared INSERT statements and no HTTP;
//   - shush: `shush serve` on 127.0.0.1 over a fresh database of the same
//     kind, and `shush suppressions batch add --file F` with its default
//     settings (only the service's rate limit is raised out of the way).
//
// The floor is run twice: the suppressions' rows alone, and with what
// shush's trail writes too (one row per transaction in changes, which
// each new entry names), so that the ratio says what shush costs on top
// of the rows it must store. Two more floors do the same work the way
// shush can: on PostgreSQL (-conns 16) the floor with the trail's rows
// over 16 connections at once, as many as the CLI's batches in flight; on
// SQLite (-shell) the sqlite3 shell's script run twice, each batch its
// own commit and -group 16 batches to a commit, as shush's store commits
// the batches in flight together. The summary gives shush's ratio to
// each.
//
//	go run ./bench/floor -store sqlite -n 1000000 -order sorted
//	go run ./bench/floor -store postgres -dsn postgres://postgres@127.0.0.1:5432/test?sslmode=disable -n 1000000 -order shuffled -rounds 3
//
// Each database is fresh: a new SQLite file, or a new PostgreSQL schema
// (dropped at the end). The shush binary is built from this module unless
// -shush names one. With -server inprocess the service runs inside this
// process instead of as `shush serve` (same store, options and HTTP
// server settings), which lets -cpuprofile profile it during the import.
// -concurrency N gives the CLI --concurrency N. On PostgreSQL,
// -analyze-every 5s runs ANALYZE during shush's import as autovacuum would
// on a server where it is on: without fresh statistics a statement first
// planned on the empty table can keep a plan that reads the whole list.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}
