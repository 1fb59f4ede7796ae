// Command shush curates an email suppression list: run it without
// arguments for the terminal UI, or see "shush --help" for the CLI and the
// service.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/shushlist/shush/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
