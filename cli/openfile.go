package cli

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// pipeNotice is how long opening a named pipe may wait for a writer
// before shush says what it waits for.
const pipeNotice = time.Second

// openInput opens --file so that an interrupt (SIGINT, SIGTERM) ends the
// wait: opening a named pipe blocks until a program opens it for writing,
// and reading one blocks until that program writes, neither of which
// would otherwise see the signal. A named pipe nobody opens is named on
// stderr after a second. The file closes when ctx ends, which ends a read
// in progress.
func (a *app) openInput(ctx context.Context, file string) (*os.File, error) {
	info, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(file)
		done <- opened{f, err}
	}()
	var notice <-chan time.Time
	if info.Mode()&fs.ModeNamedPipe != 0 {
		t := time.NewTimer(pipeNotice)
		defer t.Stop()
		notice = t.C
	}
	for {
		select {
		case o := <-done:
			if o.err != nil {
				return nil, o.err
			}
			go func() {
				<-ctx.Done()
				o.f.Close()
			}()
			return o.f, nil
		case <-notice:
			fmt.Fprintf(a.io.ErrOut, "Waiting for a program to write to the named pipe %s (Ctrl-C stops).\n", safeText(file))
		case <-ctx.Done():
			// The open goes on in its goroutine until a writer comes or
			// the process ends; the file it may yet return is closed.
			go func() {
				if o := <-done; o.f != nil {
					o.f.Close()
				}
			}()
			return nil, ctx.Err()
		}
	}
}
