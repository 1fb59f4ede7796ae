package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/redact"
)

// Finding the run that --resume finishes, and the command line that
// finishes a run.

// interruptedRun finds the newest unfinished run of this mode that this
// profile and key started against the connection's service (Runs.Mine)
// whose plan is the one the file given now makes
// (resuming finishes the recorded plan, so a different file would
// silently not be sent). When unfinished runs exist but none is of this
// file, it refuses rather than guess; when there are none, a new run
// starts ("" is returned). Only the runs' headers are read.
func (a *app) interruptedRun(rs *batch.Runs, target string, in *batch.Input, file string) (string, error) {
	runs, err := rs.List()
	if err != nil {
		return "", err
	}
	sum := in.Sum()
	var newest *batch.RunInfo
	for i, ri := range runs {
		if !rs.Mine(ri) || ri.Mode != in.Mode || !ri.Resumable() {
			continue
		}
		if newest == nil {
			newest = &runs[i]
		}
		if ri.Entries == in.Len() && ri.Sum == sum {
			if exact, err := rs.Get(ri.ID); err == nil {
				ri = exact
			}
			a.sayResuming(ri)
			return ri.ID, nil
		}
	}
	if newest != nil {
		return "", usagef("the last interrupted %s run on %s was of other entries (%d) than %s holds (%d); resume it with the same file, or with: shush runs resume %s",
			in.Mode, target, newest.Entries, inputName(file), in.Len(), newest.ID)
	}
	fmt.Fprintf(a.io.ErrOut, "No interrupted %s run on %s; starting a new one.\n", in.Mode, target)
	return "", nil
}

// sayResuming tells what a resume picks up, by the run's exact header
// (batch.Runs.Get).
func (a *app) sayResuming(ri batch.RunInfo) {
	fmt.Fprintf(a.io.ErrOut, "Resuming the run of %s: %d of %d entries were sent.\n", ri.Created.Local().Format(time.DateTime), ri.Sent(), ri.Entries)
}

// resumeCommand is the command line that finishes this run: the same
// command with --resume, and the target flags that were given (never the
// key, nor a base URL's password: *** stands for it).
func (a *app) resumeCommand(mode batch.Mode, f batchFlags) string {
	parts := []string{"shush"}
	if a.globals.profile != "" {
		parts = append(parts, "--profile", shellQuote(a.globals.profile))
	}
	if a.globals.baseURL != "" {
		parts = append(parts, "--base-url", shellQuote(redact.URL(a.globals.baseURL)))
	}
	verb := "remove"
	if mode == batch.Add {
		verb = "add"
	}
	parts = append(parts, "suppressions", "batch", verb)
	parts = append(parts, "--file", shellQuote(f.file))
	if f.ids {
		parts = append(parts, "--ids")
	}
	if f.yes {
		parts = append(parts, "--yes")
	}
	// The run is found by its plan: the same overrides make the same one.
	if f.includeRequester {
		parts = append(parts, "--include-requester")
	}
	if f.excludeRequester {
		parts = append(parts, "--exclude-requester")
	}
	return strings.Join(append(parts, "--resume"), " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
