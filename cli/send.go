package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
)

// Sending a run, as batch add|remove, runs undo|resume and sync do: how
// many batches it has in flight, the garbage collector's target while it
// reads and while it sends, and how its end is told.

// localConcurrency is how many batches a run has in flight on the
// embedded local list unless --concurrency says otherwise: no network and
// nobody else's limit stand in the way, and the database commits
// concurrent batches together, so the most a run may have (a
// 1,000,000-address import on the local list: 8.6–8.8 s four at a time,
// 7.4–8.0 s sixteen at a time; docs/benchmarks.md).
const localConcurrency = batch.MaxConcurrency

// concurrencyHelp says how the batches in flight are chosen, for the
// commands' help.
const concurrencyHelp = `Without --concurrency, the number of batches in flight is chosen for the
target: 16 on the embedded local list; against a service, one until its
first answer, then, if its rate-limit headers allow more than 10 requests a
second (ratelimit-limit over ratelimit-reset), enough to use that at a
100 ms round trip (4 to 16: 16 from 160 a second), else still one (the
hosted service allows about 2 a second, shush serve 10 by default: one at a
time keeps up and keeps the order of the input). --concurrency N always
wins; the client keeps within the rate limit either way.`

// concurrencyFor is how many batches a run has in flight: --concurrency
// when given (n), else chosen for the target (see concurrencyHelp).
func (a *app) concurrencyFor(given bool, conn *connection, n int) int {
	switch {
	case given:
		return n
	case conn.Settings.Local():
		return localConcurrency
	}
	return batch.AutoConcurrency
}

// checkConcurrency refuses a --concurrency given outside
// 1–batch.MaxConcurrency.
func checkConcurrency(given bool, n int) error {
	if given && (n < 1 || n > batch.MaxConcurrency) {
		return usagef("--concurrency must be between 1 and %d, not %d", batch.MaxConcurrency, n)
	}
	return nil
}

// runsOf is the run service of the connection, with concurrency batches
// in flight (see concurrencyFor).
func (a *app) runsOf(given bool, conn *connection, concurrency int) *batch.Runs {
	return &batch.Runs{Dir: conn.JournalDir, Client: conn.Client, Source: "cli", Profile: conn.Profile, KeyPrint: conn.KeyPrint,
		Concurrency: a.concurrencyFor(given, conn, concurrency)}
}

// The garbage collector's target (GOGC) while a batch run reads and
// records its input, and while it sends. The default, 100, lets the heap
// grow to twice what is live before a collection. Reading and recording
// hold mostly the input's values and de-duplication table, which have no
// pointers: a collection costs little however large they are, so it can
// come at a quarter's growth. Sending holds a segment's values and the
// results of the batches in flight (some 8 MB live; the results are
// handed on in pieces): the default, since a lower target would only
// collect more often for a few megabytes (docs/benchmarks.md).
const (
	readingGC = 25
	sendingGC = 100
)

// startSending sets the garbage collector's target for sending, once the
// values read are let go (recorded, or in the journals already). It
// collects first: the collector's next goal is then a multiple of what
// sending holds, not of what reading held (at 100 %, twice the 1M
// import's values would otherwise be allowed before the first collection,
// the run's peak). One collection of what is left is a few milliseconds.
func startSending() {
	runtime.GC()
	collectAt(sendingGC)
}

// collectAt sets the garbage collector's target to percent, unless GOGC
// says otherwise, and returns what puts the former one back.
func collectAt(percent int) (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(percent)
	return func() { debug.SetGCPercent(old) }
}

// sendRun runs send, which starts or resumes a run with the Observer it
// is given, reports its progress and adds its segments into sum, prints
// the run's report (or its --json document) and says how it ended: the
// exit status and, for a run with entries left, the command that finishes
// it.
func (a *app) sendRun(ctx context.Context, target string, sum *summary, resume string, send func(batch.Observer) error) error {
	progress := a.progress(sum.batches, sum.entries)
	var merged *mergedWriter
	if a.output().json {
		merged = newMergedWriter(a.io.Out)
		// JSON on a terminal is what the terminal shows: a progress
		// line redrawn beside it would cut its lines.
		progress.on = progress.on && !a.io.StdoutTTY
	}
	// The run's results are taken in pieces as they come, added up and
	// (for --json) printed: the run holds no segment's results.
	runErr := send(batch.Observer{Event: progress.event, Pieces: true, Segment: func(rep batch.Report) {
		sum.add(rep)
		if merged != nil {
			merged.add(sum.plan.Mode, rep)
		}
	}})
	progress.clear()

	// What the run left out (invalid, our own, the requester's) is told
	// with its reasons, as what was sent is.
	plan := sum.plan
	if merged != nil {
		if err := merged.close(plan.Invalid, plan.LeftOut); err != nil {
			return err
		}
		if len(plan.Invalid) > 0 {
			fmt.Fprintf(a.io.ErrOut, "shush: left out %s: %s\n", plural(len(plan.Invalid), "invalid entry", "invalid entries"), describeInvalid(plan.Invalid, 3))
		}
		var notes strings.Builder
		a.listReading(&notes, sum.preset, sum.warnings, sum.ownIDsNew(), "")
		a.listKept(&notes, sum)
		for line := range strings.Lines(notes.String()) {
			fmt.Fprint(a.io.ErrOut, "shush: "+line)
		}
	} else {
		a.printReport(sum, target)
		a.listLeftOut(a.io.Out, plan.LeftOut)
	}

	var paused *batch.PausedError
	switch {
	case errors.As(runErr, &paused):
		return exitErr{ExitFailed, fmt.Errorf("%v; %s of %s not sent; when the service is back, finish the run with: %s",
			paused, plural(sum.unsent()+len(sum.failed), "batch", "batches"), plural(sum.batches, "batch", "batches"), resume)}
	case runErr != nil && ctx.Err() != nil:
		return exitErr{ExitInterrupted, fmt.Errorf("interrupted with %s of %s not sent; finish the run with: %s",
			plural(sum.unsent()+len(sum.failed), "batch", "batches"), plural(sum.batches, "batch", "batches"), resume)}
	case runErr != nil:
		return runErr
	case !sum.complete():
		return exitErr{ExitFailed, incompleteError(sum, resume)}
	case sum.unverified != nil:
		// Sent, but what became of them is not known: a script must not
		// take the run as done.
		u := sum.unverified
		return exitErr{ExitFailed, fmt.Errorf("%s could not be verified, the first %s: %s (the service's answer did not establish its outcome; look them up with shush suppressions check)",
			plural(sum.counts[batch.Unverified], "entry", "entries"), api.Quote(u.Input), u.Message)}
	}
	return nil
}

// incompleteError says how a run with failed batches ended and what sends
// them: --resume for those that may pass another time, a corrected file
// for those the service refused as they were.
func incompleteError(sum *summary, resume string) error {
	left, refused := len(sum.failed)+sum.unsent(), sum.refused()
	all := plural(sum.batches, "batch", "batches")
	switch {
	case refused == 0:
		return fmt.Errorf("%s of %s failed%s; send them again with: %s", plural(left, "batch", "batches"), all, sum.firstFailure(), resume)
	case refused == left:
		verb := "were"
		if left == 1 {
			verb = "was"
		}
		return fmt.Errorf("%s of %s %s refused as sent%s; the same entries would be refused again: take out what the service names and send the corrected file as a new run",
			plural(left, "batch", "batches"), all, verb, sum.firstFailure())
	}
	return fmt.Errorf("%s of %s failed%s, %d of them refused as sent, which the same entries would meet again; send them again with: %s",
		plural(left, "batch", "batches"), all, sum.firstFailure(), refused, resume)
}
