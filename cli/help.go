package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/shushlist/shush/api"
)

const exitCodesHelp = `Every command exits with one of these statuses:

  0    done
  1    failed: the service refused, some batch failed, some entry's outcome
       could not be established (unverified: the service's answer did not
       say which ID is whose), or the service could not be reached
  2    bad usage or unreadable input (a flag, an argument, a file)
  3    not on the list (suppressions get, and a single suppressions remove)
  4    the service refused the key (401 or 403)
  130  interrupted (Ctrl-C); a batch run journals the batch in flight

Under --json (or --jq), or when stdout is a pipe or a file, an error goes to
stderr as one JSON document:

  {"error": {"name": "not_found", "message": "…", "status": 404}}

name is the service's error name when the service answered (validation_error,
missing_required_field, not_found, invalid_api_key, restricted_api_key,
rate_limit_exceeded, application_error, …), else usage_error, network_error,
redirect_refused, interrupted or error; status is the service's HTTP status,
or null when no answer came. On a terminal the error is one sentence.`

// topicOptions are a help topic's: the app, and the root command (a
// topic may list what the commands take).
type topicOptions struct {
	*app
	Root *cobra.Command
}

// helpTopic is the command of a help topic, "shush help NAME": it has no
// run of its own (cobra lists it under the help topics), and its help is
// what run prints.
func (a *app) helpTopic(use, short string, run func(context.Context, *topicOptions) error) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short}
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		// A help has no error to return; what stdout refuses is lost.
		_ = run(c.Context(), &topicOptions{app: a, Root: c.Root()})
	})
	return cmd
}

// exitCodesCommand is the help topic "shush help exit-codes".
func (a *app) exitCodesCommand() *cobra.Command {
	return a.helpTopic("exit-codes", "Exit statuses and the JSON form of errors", runExitCodes)
}

// runExitCodes prints the exit statuses, with the blank line every help
// ends with.
func runExitCodes(_ context.Context, o *topicOptions) error {
	_, err := fmt.Fprintf(o.io.Out, "%s\n\n", exitCodesHelp)
	return err
}

type manOptions struct {
	*app
	Dir string
	// Root is the command whose pages, and its commands', are written.
	Root *cobra.Command
}

// runMan writes the manual pages of Root and its commands to Dir.
func runMan(_ context.Context, o *manOptions) error {
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return usagef("cannot make %s: %v", o.Dir, err)
	}
	o.Root.DisableAutoGenTag = true
	hdr := &doc.GenManHeader{Title: "SHUSH", Section: "1", Source: "shush " + version(), Manual: "shush manual"}
	if err := doc.GenManTree(o.Root, hdr, o.Dir); err != nil {
		return fmt.Errorf("write the manual pages: %w", err)
	}
	n, _ := filepath.Glob(filepath.Join(o.Dir, "shush*.1"))
	fmt.Fprintf(o.io.ErrOut, "Wrote %d manual pages to %s.\n", len(n), o.Dir)
	return nil
}

func (a *app) manCommand() *cobra.Command {
	o := &manOptions{app: a}
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the manual pages of every command to DIR",
		Long: `Write a manual page (section 1) for shush and for each of its commands to
DIR, made from the commands' own help. Install them with, for example:

  shush man ~/.local/share/man/man1 && man shush`,
		Args: oneArg("a directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Dir, o.Root = args[0], cmd.Root()
			return runMan(cmd.Context(), o)
		},
	}
}

// Completion of flag values and arguments.

func completeWords(words ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		var out []cobra.Completion
		for _, w := range words {
			if strings.HasPrefix(w, prefix) {
				out = append(out, w)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

var completeOrigin = completeWords(string(api.OriginBounce), string(api.OriginComplaint), string(api.OriginManual))

// completeProfiles offers the profiles of the config file.
func completeProfiles(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	f, err := loadConfigFile()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []cobra.Completion
	for _, n := range f.ProfileNames() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeInputFiles offers the files batch and check read.
func completeInputFiles(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return []cobra.Completion{"txt", "csv", "tsv", "json", "ndjson", "jsonl"}, cobra.ShellCompDirectiveFilterFileExt
}

// registerCompletions attaches value completion to every flag that has a
// fixed set of values or names something completable, wherever it is.
func registerCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for name, fn := range map[string]cobra.CompletionFunc{
			"origin":     completeOrigin,
			"file":       completeInputFiles,
			"log-format": completeWords("text", "json"),
			"log-level":  completeWords("debug", "info", "warn", "error"),
			"format":     completeWords("csv", "ndjson"),
		} {
			if c.LocalNonPersistentFlags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, fn)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	_ = root.RegisterFlagCompletionFunc("profile", completeProfiles)
	walk(root)
}
