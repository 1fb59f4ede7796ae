package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
)

// What a command that takes entries off a list asks first, on a terminal
// (or refuses without --yes elsewhere): one removal, an undo, a batch or
// a sync that removes; and the line of stdin that answers it.

// confirm asks the question on a terminal and says whether the answer was
// "y" or "yes". Without a terminal to ask on (or when stdin carries the
// input) it refuses with a usage error unless --yes was given.
func (a *app) confirm(ctx context.Context, yes, stdinIsInput bool, question string) (bool, error) {
	return a.confirmAfter(ctx, yes, stdinIsInput, question, nil)
}

// confirmRemoval is confirm for taking what (one entry, a webhook) off the
// configured service: "Remove what from TARGET?".
func (a *app) confirmRemoval(ctx context.Context, yes bool, what string) (bool, error) {
	s, err := a.settings()
	if err != nil {
		return false, err
	}
	return a.confirm(ctx, yes, false, fmt.Sprintf("Remove %s from %s?", what, s.Target()))
}

// confirmAfter is confirm that first shows the person what show lists
// (every address to be touched, paged when long), when it asks at all.
func (a *app) confirmAfter(ctx context.Context, yes, stdinIsInput bool, question string, show func(width int) string) (bool, error) {
	if yes {
		return true, nil
	}
	if stdinIsInput {
		return false, usagef("refusing to remove without confirmation: the entries come from stdin, so there is no terminal to ask on; pass --yes")
	}
	if !a.io.StdinTTY || !a.io.StderrTTY {
		return false, usagef("refusing to remove without confirmation: pass --yes")
	}
	if show != nil {
		if err := a.page(a.io.ErrOut, show(widthOf(a.io.ErrOut))); err != nil {
			return false, err
		}
	}
	fmt.Fprintf(a.io.ErrOut, "%s [y/N] ", safeText(question))
	// Ctrl-C cancels ctx rather than killing the process, so the read must
	// not be what keeps the user waiting.
	type answer struct {
		line string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		line, err := a.stdinLine()
		got <- answer{line, err}
	}()
	var line string
	select {
	case <-ctx.Done():
		fmt.Fprintln(a.io.ErrOut)
		return false, exitErr{ExitInterrupted, errors.New("interrupted: nothing removed")}
	case ans := <-got:
		if ans.err != nil {
			return false, usagef("cannot read the answer: %v", ans.err)
		}
		line = ans.line
	}
	switch strings.ToLower(line) {
	case "y", "yes":
		return true, nil
	}
	fmt.Fprintln(a.io.ErrOut, "Nothing removed.")
	return false, nil
}

// stdinLine reads the first line of stdin (at most 4 KiB), trimmed: a
// person's answer, or a secret given on stdin to keep it out of the
// process list. Stdin ending without a newline is no error.
func (a *app) stdinLine() (string, error) {
	line, err := bufio.NewReader(io.LimitReader(a.io.In, 4096)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	return strings.TrimSpace(line), nil
}
