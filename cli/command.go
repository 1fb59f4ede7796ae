package cli

// Every command has one shape (gh's): an options struct, a run function,
// and a cobra command that only fills the one and calls the other.
//
//   - The options struct embeds *app — the command's streams (app.io, an
//     *IOStreams: In, Out, ErrOut and whether each is a terminal), the
//     output mode (app.output: JSON or human text), the settings (profile,
//     config file, environment, flags) and the client factory
//     (app.onService, app.connect) — and has a field per flag and argument.
//   - The run function, runX(ctx, *xOptions) error, does the work: it
//     checks its fields (a mistake of the caller is usagef: exit 2), reaches
//     the service with onService or callService (or the database of --db
//     with onStore), and prints with printOut (the API's JSON, or the text
//     for a person; say for a sentence) or a listing. Other exit statuses
//     are exitErr; Main turns every error into one sentence (or the JSON
//     error document) and its status, once, for all.
//   - The cobra command (xCommand) is made by command(o, use, short, args,
//     runX, &o.Arg…): the use line, the summary, the arguments' check, the
//     run function and the fields the arguments go in; commandPaging for a
//     paged list. The constructor adds only what is its own (Aliases, Long,
//     Example, the flags into the options); it holds no logic.
//
// A test builds the options with the app of a real service in process
// (newTestService and newTestApp in harness_test.go: buffers for the
// streams, human() for a terminal, the server package's handler over
// httptest on a temporary SQLite database) and calls the run function: no
// binary, no mock of shush's own code.
//
// Adding a command (say "suppressions erase"): a new file with
// eraseOptions{*app; fields}, runErase(ctx, *eraseOptions), and
// (a *app) eraseCommand() built like getCommand (command(o, "erase
// ADDR", short, oneArg("an address"), runErase, &o.Arg), flags into the
// options; a flag whose being given matters is passed as a field, set by
// flagGiven, as keys create's TeamGiven); add it to its group's
// list (group "suppressions" in suppressions.go); test runErase as
// suppressions_test.go tests runGet.

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/server/store"
)

// group is a command that only holds others: run alone it shows its help,
// with an unknown word it says so and suggests (usageArgs does both).
func group(use, short, long string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Long: long}
	cmd.AddCommand(subs...)
	return cmd
}

// groupArgs refuses an unknown subcommand of a command group with a usage
// error.
func groupArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	return nil
}

func showHelp(cmd *cobra.Command, _ []string) error { return cmd.Help() }

// oneArg wants exactly one argument named what.
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch len(args) {
		case 1:
			return nil
		case 0:
			return usagef("%s needs %s", cmd.CommandPath(), what)
		}
		return usagef("%s takes one argument (%s), got %d", cmd.CommandPath(), what, len(args))
	}
}

// printOut prints a command's answer: v as JSON when JSON is asked for or
// stdout is no terminal, else what human writes to stdout.
func (a *app) printOut(v any, human func(w io.Writer) error) error {
	if a.output().json {
		return writeJSON(a.io.Out, v)
	}
	return human(a.io.Out)
}

// printDone is printOut for a sentence: v as JSON, or the sentence (say).
func (a *app) printDone(v any, format string, args ...any) error {
	return a.printOut(v, func(io.Writer) error { return a.say(format, args...) })
}

// say tells a person what a command did: the sentence (its arguments made
// safe by the caller) on a line of its own on stdout. Its error is the
// write's (a closed pipe).
func (a *app) say(format string, args ...any) error {
	_, err := fmt.Fprintf(a.io.Out, format+"\n", args...)
	return err
}

// onStore opens the database --db names (the default one when dsn is
// empty) for a command that works on it directly (keys, agents, team,
// audit prune) and closes it after fn.
func onStore(ctx context.Context, dsn string, fn func(st store.Store) error) error {
	st, _, err := openStore(ctx, dsn)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}

// listStored prints what list reads from the database dsn names (onStore):
// each item as asJSON makes it with --json, else the listing's table. what
// names the items for an error ("list the keys: …").
func listStored[T, J any](ctx context.Context, o *app, dsn, what string, list func(store.Store, context.Context) ([]T, error),
	asJSON func(T) J, l listing[T]) error {
	return onStore(ctx, dsn, func(st store.Store) error {
		items, err := list(st, ctx)
		if err != nil {
			return fmt.Errorf("list the %s: %w", what, err)
		}
		out := make([]J, len(items))
		for i, it := range items {
			out[i] = asJSON(it)
		}
		return l.print(o, o.output().json, out, items, false)
	})
}

// idArg wants exactly one argument, what (an ID, a NAME), with where to
// find one when it is missing: "keys revoke needs one KEY_ID (see shush keys
// list), got 0 arguments".
func idArg(what, see string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usagef("%s needs one %s (see %s), got %d arguments", commandName(cmd), what, see, len(args))
		}
		return nil
	}
}

// commandName is the command's path without the program's name: "keys
// revoke".
func commandName(cmd *cobra.Command) string {
	if cmd.HasParent() && cmd.Parent().HasParent() {
		return commandName(cmd.Parent()) + " " + cmd.Name()
	}
	return cmd.Name()
}

// command is the cobra command of a run function: its use line and
// one-line summary, its arguments' check, and RunE, which puts the
// arguments in the fields dst of the options o, in order (args checks that
// there are that many), and calls run with o. The constructor then adds
// what else is its own: Aliases, Long, Example, the flags into o.
func command[O any](o *O, use, short string, args cobra.PositionalArgs, run func(context.Context, *O) error, dst ...*string) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Args: args, RunE: func(cmd *cobra.Command, args []string) error {
		for i, p := range dst {
			*p = args[i]
		}
		return run(cmd.Context(), o)
	}}
}

// commandPaging is command for a command that reads a list in pages: its
// paging flags (p, a field of o) are checked first (see paging.check).
func commandPaging[O any](o *O, p *paging, use, short string, args cobra.PositionalArgs, run func(context.Context, *O) error, dst ...*string) *cobra.Command {
	cmd := command(o, use, short, args, run, dst...)
	before(cmd, p.check)
	return cmd
}

// before has cmd take step before its run function, once the command line
// is parsed; an error of step ends the command.
func before(cmd *cobra.Command, step func(*cobra.Command) error) {
	run := cmd.RunE
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if err := step(cmd); err != nil {
			return err
		}
		return run(cmd, args)
	}
}

// flagGiven sets *given, before cmd's run function, to whether the flag
// name was given on the command line: for a flag whose leaving out means
// something else than its default.
func flagGiven(cmd *cobra.Command, name string, given *bool) {
	before(cmd, func(cmd *cobra.Command) error {
		*given = cmd.Flags().Changed(name)
		return nil
	})
}
