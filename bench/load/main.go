// Command load drives a running shush service with concurrent clients
// sending batch adds, batch removes and list requests for a fixed time, then
// prints requests per second, latency percentiles per operation and errors
// by status. It only targets loopback addresses: it is a tool for measuring
// a service on this machine, not for loading someone else's.
//
//	go run ./bench/load -url http://127.0.0.1:8080 -key-file key.txt -clients 8 -duration 30s
//
// The API key comes from -key-file, or the SHUSH_API_KEY environment
// variable (or -key, which other users of the machine can see in the
// process list).
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
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr, os.Getenv)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		os.Exit(exitCode(err))
	}
}
