// Command shush curates an email suppression list: run it without
// arguments for the terminal UI, or see "shush --help" for the CLI and the
// service.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/shushlist/shush/cli"
)

// exitInterrupted is the status of a run cut short by a second interrupt.
const exitInterrupted = 130

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal asks for a graceful stop (serve finishes requests in
	// flight, a batch run journals its batch); a second one means now.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		<-signals
		fmt.Fprintln(os.Stderr, "shush: interrupted again; exiting now")
		os.Exit(exitInterrupted)
	}()
	code := cli.Main(ctx, os.Args[1:], cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr})
	stop()
	os.Exit(code)
}
