package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/shushlist/shush/batch"
)

// The progress line of a run on a terminal.

// progressLine shows a run's progress on stderr, one line rewritten in
// place; it is silent unless stderr is a terminal. A run of one batch
// shows only its waits (a rate limit, a Retry-After, a retry): a wait of
// seconds says what it waits for rather than look like a hang.
type progressLine struct {
	w       io.Writer
	on      bool
	single  bool
	started time.Time
	// batches and total count the whole plan (events count across a
	// run's segments).
	batches, total int
}

func (a *app) progress(batches, total int) *progressLine {
	return &progressLine{w: a.io.ErrOut, on: a.io.StderrTTY, single: batches <= 1, started: time.Now(), batches: batches, total: total}
}

func (p *progressLine) event(e batch.Event) {
	if !p.on {
		return
	}
	if p.single && e.Kind != batch.Waiting {
		if e.Kind == batch.BatchDone || e.Kind == batch.BatchFailed {
			p.clear()
		}
		return
	}
	if e.Kind == batch.Listing {
		fmt.Fprintf(p.w, "\r\x1b[Kreading the list to find the IDs · %s", plural(e.Pages, "page", "pages"))
		return
	}
	done := e.Done
	line := fmt.Sprintf("batch %d/%d · %d/%d entries", e.Batch, p.batches, done, p.total)
	switch e.Kind {
	case batch.Waiting:
		line += fmt.Sprintf(" · waiting %s (%s)", e.Wait.Round(100*time.Millisecond), e.Reason)
	case batch.BatchFailed:
		line += " · batch failed"
	}
	if done > 0 {
		el := time.Since(p.started)
		left := time.Duration(float64(el) / float64(done) * float64(p.total-done))
		line += fmt.Sprintf(" · %s left", left.Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
}

func (p *progressLine) clear() {
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// entriesOf counts the entries of a mode: "3 addresses", "1 ID".
func entriesOf(mode batch.Mode, n int) string {
	if mode == batch.RemoveIDs {
		return plural(n, "ID", "IDs")
	}
	return plural(n, "address", "addresses")
}
