package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/config"
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

// exitCodesCommand is the help topic "shush help exit-codes".
func exitCodesCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "exit-codes",
		Short: "Exit statuses and the JSON form of errors",
		Long:  exitCodesHelp,
	}
}

func (a *app) manCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "man DIR",
		Short: "Write the manual pages of every command to DIR",
		Long: `Write a manual page (section 1) for shush and for each of its commands to
DIR, made from the commands' own help. Install them with, for example:

  shush man ~/.local/share/man/man1 && man shush`,
		Args: oneArg("a directory"),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return usagef("cannot make %s: %v", dir, err)
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true
			hdr := &doc.GenManHeader{Title: "SHUSH", Section: "1", Source: "shush " + version(), Manual: "shush manual"}
			if err := doc.GenManTree(root, hdr, dir); err != nil {
				return fmt.Errorf("write the manual pages: %w", err)
			}
			n, _ := filepath.Glob(filepath.Join(dir, "shush*.1"))
			fmt.Fprintf(a.io.ErrOut, "Wrote %d manual pages to %s.\n", len(n), dir)
			return nil
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
	path, err := config.Path()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	f, err := config.Load(path)
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
