// Package cli is the composition root of shush: the cobra commands, and the
// wiring of config, the API client, the batch engine, the service and the
// terminal UI behind them.
package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/internal/termprobe"
	"github.com/shushlist/shush/safe"
)

// Exit statuses of the command surface.
const (
	ExitOK        = 0
	ExitFailed    = 1 // the service refused, or some batch failed
	ExitUsage     = 2 // bad usage or unreadable input
	ExitNotListed = 3 // get or a single remove: the entry is not on the list
	ExitRefused   = 4 // the service refused the key (401, 403)
)

// IO is where shush reads and writes: main gives the process's own.
type IO struct {
	In       io.Reader
	Out, Err io.Writer
}

// IOStreams are a command's streams and whether each is a terminal, probed
// once in Main. Output decisions (human text or JSON, progress lines,
// questions) read the flags, never the writers, so a test hands in buffers
// and says what they stand for.
type IOStreams struct {
	In          io.Reader
	Out, ErrOut io.Writer
	StdinTTY    bool
	StdoutTTY   bool
	StderrTTY   bool
}

// streamsOf probes the terminals of stdio.
func streamsOf(stdio IO) *IOStreams {
	return &IOStreams{In: stdio.In, Out: stdio.Out, ErrOut: stdio.Err,
		StdinTTY: isTerminal(stdio.In), StdoutTTY: isTerminal(stdio.Out), StderrTTY: isTerminal(stdio.Err)}
}

// globals are the flags every command takes.
type globals struct {
	profile     string
	baseURL     string
	apiKey      string
	apiKeyFile  string
	apiKeyStdin bool
	jq          string
	// json asks for JSON output; quiet for JSON and no notes or progress
	// on stderr (errors still go there).
	json, quiet bool
}

// app carries what the commands share.
type app struct {
	io      *IOStreams
	globals globals
	// resolved holds the settings once resolved (see settings).
	resolved *resolved
	// trace receives the trace of every request (SHUSH_DEBUG=api), on
	// stderr even under --quiet; nil for none.
	trace io.Writer
}

// Main runs shush with the arguments (without the program name) and returns
// the exit status. Errors are written to stderr as one sentence.
func Main(ctx context.Context, args []string, stdio IO) int {
	termprobe.Restore()
	a := &app{io: streamsOf(stdio)}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdio.In)
	root.SetErr(stdio.Err)
	// With --jq the command's JSON is gathered, then filtered.
	var gathered *bytes.Buffer
	if jq := jqArg(args); jq != "" {
		gathered = &bytes.Buffer{}
		a.io.Out, a.io.StdoutTTY = gathered, false
	}
	root.SetOut(a.io.Out)
	err := root.ExecuteContext(ctx)
	if err == nil && gathered != nil {
		err = runJQ(a.globals.jq, gathered.Bytes(), stdio.Out)
	}
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	var logged loggedError
	if errors.As(err, &logged) {
		return code
	}
	if wantsJSON(args) || !isTerminal(stdio.Out) {
		_ = writeJSON(stdio.Err, errorDoc(err))
	} else {
		// An error may carry the service's message or a file's text.
		fmt.Fprintf(stdio.Err, "shush: %s\n", safe.Text(err.Error()))
	}
	return code
}

func (a *app) rootCommand() *cobra.Command {
	uiOpts := &uiOptions{app: a}
	root := command(uiOpts, "shush", "Curate an email suppression list", noArgs, runUI)
	root.Long = "shush curates an email suppression list: a terminal UI for support staff, a CLI for scripts, and the Suppression List Batch API service itself."
	root.Version = version()
	root.SilenceUsage, root.SilenceErrors = true, true
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageErr{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.globals.profile, "profile", "", "config profile to use (env SHUSH_PROFILE)")
	pf.StringVar(&a.globals.baseURL, "base-url", "", "base URL of the suppression service (env SHUSH_BASE_URL); empty means the local list")
	pf.StringVar(&a.globals.apiKey, "api-key", "", "API key; other users can read it in the process list, so prefer SHUSH_API_KEY, --api-key-file or --api-key-stdin")
	pf.StringVar(&a.globals.apiKeyFile, "api-key-file", "", "read the API key from this file (only its owner may read it: chmod 600)")
	pf.BoolVar(&a.globals.apiKeyStdin, "api-key-stdin", false, "read the API key from the first line of stdin")
	pf.StringVar(&a.globals.jq, "jq", "", "filter the JSON output with a jq expression (implies --json); strings print raw, as jq -r and gh print them, e.g. --jq '.data[] | [.email, .id] | @tsv'")
	pf.BoolVar(&a.globals.json, "json", false, "print JSON (the shape each command's help gives under Output); on by itself when stdout is a pipe or a file")
	pf.BoolVarP(&a.globals.quiet, "quiet", "q", false, "print JSON and nothing on stderr but errors (no progress, notes or questions: a removal needs --yes)")

	// A key from stdin is read before anything else reads stdin (the
	// input of --file -): it is its first line.
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if debugAPI(os.Getenv(envDebug)) {
			a.trace = a.io.ErrOut
		}
		// serve's stderr is its log, errors included: -q leaves it alone.
		if a.globals.quiet && cmd.Name() != "serve" {
			a.io.ErrOut, a.io.StderrTTY = io.Discard, false
		}
		if a.globals.apiKeyStdin || a.globals.apiKeyFile != "" {
			_, err := a.flagKey()
			return err
		}
		return nil
	}
	root.AddCommand(
		a.suppressionsCommand(),
		a.configCommand(),
		a.doctorCommand(),
		a.serveCommand(),
		a.keysCommand(),
		a.agentsCommand(),
		a.teamCommand(),
		a.auditCommand(),
		a.webhooksCommand(),
		a.intakeCommand(),
		a.bouncesCommand(),
		a.dbCommand(),
		a.syncCommand(),
		a.runsCommand(),
		a.ticketCommand(),
		a.unsubscribeKeyCommand(),
		a.unsubscribeLinkCommand(),
		a.versionCommand(),
		a.manCommand(),
		a.exitCodesCommand(),
		a.environmentCommand(),
	)
	registerCompletions(root)
	usageArgs(root)
	addOutputs(root)
	return root
}

// debugAPI reports whether SHUSH_DEBUG asks for the trace of requests:
// "api", or 1/true as GH_DEBUG takes them (a comma-separated list may
// name more).
func debugAPI(v string) bool {
	for _, w := range strings.Split(v, ",") {
		switch strings.ToLower(strings.TrimSpace(w)) {
		case "api", "1", "true":
			return true
		}
	}
	return false
}

// usageErr marks an error of the caller's making: a bad flag, argument or
// unreadable input. It exits with status 2.
type usageErr struct{ err error }

func (e usageErr) Error() string { return e.err.Error() }
func (e usageErr) Unwrap() error { return e.err }

// usagef is fmt.Errorf for usage errors.
func usagef(format string, args ...any) error {
	return usageErr{fmt.Errorf(format, args...)}
}

// exitCode maps an error to the exit status of the command surface (see
// `shush help exit-codes`).
func exitCode(err error) int {
	var ue usageErr
	if errors.As(err, &ue) {
		return ExitUsage
	}
	var ce interface{ ExitCode() int }
	if errors.As(err, &ce) {
		return ce.ExitCode()
	}
	var ae *api.Error
	if errors.As(err, &ae) && (ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden) {
		return ExitRefused
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	return ExitFailed
}

// noArgs refuses arguments where a command takes none, with a usage error
// (exit 2); where the command has subcommands (the root, a group) an
// argument is a command shush does not have.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	if cmd.HasAvailableSubCommands() {
		return unknownCommand(cmd, args[0])
	}
	return usagef("%s takes no arguments, got %s", cmd.CommandPath(), api.Quote(strings.Join(args, " ")))
}

// unknownCommand says that cmd has no subcommand name, with the ones a
// typo may have meant: cobra's suggestions (close in spelling, or starting
// with it), and the same test on the aliases ("delet" is remove's alias
// delete).
func unknownCommand(cmd *cobra.Command, name string) error {
	s := cmd.SuggestionsFor(name)
	for _, sub := range cmd.Commands() {
		if !sub.IsAvailableCommand() || slices.Contains(s, sub.Name()) {
			continue
		}
		for _, alias := range sub.Aliases {
			// Two-letter aliases (rm, ls) are close to any short typo.
			if strings.HasPrefix(alias, strings.ToLower(name)) || len(alias) > 3 && editDistance(alias, strings.ToLower(name)) <= cmd.SuggestionsMinimumDistance {
				s = append(s, sub.Name())
				break
			}
		}
	}
	hint := ""
	if len(s) > 0 {
		hint = "; did you mean " + strings.Join(s, " or ") + "?"
	}
	return usagef("unknown command %s for %s%s (see %s --help)", api.Quote(name), cmd.CommandPath(), hint, cmd.CommandPath())
}

// editDistance is the Levenshtein distance of a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// usageArgs makes every command's argument check a usage error (exit 2),
// cobra's own (ExactArgs, NoArgs) included, and an unknown subcommand of a
// group the error above, with suggestions.
func usageArgs(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		// cobra suggests only at the root by default; every group should.
		c.SuggestionsMinimumDistance = 2
		// A group run alone shows its help; with an argument that is no
		// subcommand, it says so (cobra would show the help, exit 0).
		if c.HasAvailableSubCommands() && !c.Runnable() {
			c.RunE = showHelp
			if c.Args == nil {
				c.Args = groupArgs
			}
		}
		if check := c.Args; check != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				err := check(cmd, args)
				switch {
				case err == nil:
					return nil
				case len(args) > 0 && cmd.HasAvailableSubCommands():
					return unknownCommand(cmd, args[0])
				}
				var ue usageErr
				if !errors.As(err, &ue) {
					err = usageErr{err}
				}
				return err
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
