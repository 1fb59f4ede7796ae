package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// eraseJSON is what `suppressions erase --json` prints: the service's
// items, and the local files rewritten.
type eraseJSON struct {
	Object string           `json:"object"`
	Data   []api.ErasedItem `json:"data"`
	Local  []string         `json:"local_files_rewritten"`
}

// eraseCommand is `shush suppressions erase ADDR… | --file F`
// (docs/erasure.md).
func (a *app) eraseCommand() *cobra.Command {
	var (
		file, reference string
		yes             bool
	)
	cmd := &cobra.Command{
		Use:   "erase ADDR... | --file F",
		Short: "Forget addresses but keep them blocked (GDPR erasure)",
		Long: `Erase addresses whose person asked to be forgotten (GDPR Art. 17), and keep
them blocked. The service keeps each entry only as a keyed hash of the
address (HMAC-SHA256 under the team's erasure secret) with its ID, origin
and dates; the note, source ID and evidence go, and every trail entry,
stored webhook payload, delivery answer and intake row of the team that
named the address names the hash instead, in the same transaction. An
address that is not listed is listed as an erased entry, so that it stays
blocked. Check, add and look-ups still find it by hashing the address: they
answer "listed — erased entry".

shush then rewrites its own records on this computer the same way: every
run journal, the UI's history and drafts in the state directory that name
an erased address name its hash instead. Files you exported elsewhere are
yours to delete.

Up to 100 addresses go in one request; more are sent in several. On a
terminal shush asks first; elsewhere it needs --yes. See docs/erasure.md.`,
		Example: `  shush suppressions erase jane@example.com --reference GDPR-2231
  shush suppressions erase --file forget.txt --yes --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			emails, err := a.eraseInput(cmd.Context(), file, args)
			if err != nil {
				return err
			}
			ctx, err := withReference(cmd.Context(), reference)
			if err != nil {
				return err
			}
			s, err := a.settings()
			if err != nil {
				return err
			}
			question := fmt.Sprintf("Erase %s from %s? The addresses are kept only as hashes, still blocked; this cannot be undone.",
				plural(len(emails), "address", "addresses"), s.Target())
			if ok, err := a.confirmAfter(ctx, yes, file == "-", question, func(int) string {
				return strings.Join(emails, "\n") + "\n"
			}); !ok {
				return err
			}
			return a.onService(ctx, func(conn *connection) error {
				return a.erase(ctx, conn, emails)
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&file, "file", "", "file of addresses (any input format); - reads stdin")
	fl.BoolVar(&yes, "yes", false, "erase without asking")
	referenceFlag(cmd, &reference)
	return cmd
}

// eraseInput is the addresses to erase: the arguments, or the valid
// addresses of --file; an invalid argument is a usage error naming it.
func (a *app) eraseInput(ctx context.Context, file string, args []string) ([]string, error) {
	switch {
	case file != "" && len(args) > 0:
		return nil, usagef("give addresses or --file, not both")
	case file == "" && len(args) == 0:
		return nil, usagef("suppressions erase needs addresses or --file F")
	}
	var emails []string
	seen := map[string]bool{}
	if file != "" {
		items, _, err := a.readTicket(ctx, file, batch.RemoveEmails)
		if err != nil {
			return nil, err
		}
		// A removal takes domain entries too; an erasure names addresses.
		for i, it := range items {
			if it.Valid() && api.IsDomainEntry(it.Value) {
				items[i].Problem = "a domain entry, not an address"
			}
		}
		in := batch.NewInput(batch.RemoveEmails, items)
		if len(in.Invalid) > 0 {
			return nil, usagef("%s holds entries that are not addresses (%s); erase names each address exactly", inputName(file), describeInvalid(in.Invalid, 3))
		}
		return slices.Collect(in.Values()), nil
	}
	for i, arg := range args {
		e, err := api.NormalizeEmail(arg)
		if err != nil {
			return nil, usagef("argument %d (%s) is not a valid email address: %v", i+1, api.Quote(arg), err)
		}
		if !seen[e] {
			seen[e] = true
			emails = append(emails, e)
		}
	}
	return emails, nil
}

// erase sends the erasure in requests of api.MaxBatch, rewrites the
// local records of what it erased, and says what it did.
func (a *app) erase(ctx context.Context, conn *connection, emails []string) error {
	out := eraseJSON{Object: "list", Data: []api.ErasedItem{}, Local: []string{}}
	var done []batch.Erasure
	var sendErr error
	for lo := 0; lo < len(emails); lo += api.MaxBatch {
		part := emails[lo:min(lo+api.MaxBatch, len(emails))]
		items, err := conn.Client.Erase(ctx, part)
		if err != nil {
			sendErr = err
			break
		}
		out.Data = append(out.Data, items...)
		for _, it := range items {
			done = append(done, batch.Erasure{Email: it.Email, Marker: it.Erased})
		}
	}
	// What the service erased is rewritten here too, even when a later
	// request failed.
	state, err := config.StateDir()
	if err == nil {
		var files []string
		files, err = batch.EraseLocal(state, done)
		out.Local = append(out.Local, files...)
	}
	if err != nil {
		err = fmt.Errorf("the service erased %s, but rewriting this computer's records failed: %w", plural(len(done), "address", "addresses"), err)
	}
	if sendErr != nil {
		if client.IsNotFound(sendErr) || client.IsUnsupported(sendErr) {
			sendErr = fmt.Errorf("%s cannot erase addresses (it has no POST /suppressions/erase): %w", conn.Target, sendErr)
		}
		if len(done) > 0 {
			sendErr = fmt.Errorf("%s erased, then: %w", plural(len(done), "address was", "addresses were"), sendErr)
		}
		if err != nil {
			sendErr = fmt.Errorf("%w; and %v", sendErr, err)
		}
		return sendErr
	}
	if a.output().json {
		if werr := writeJSON(a.io.Out, out); werr != nil {
			return werr
		}
		return err
	}
	for _, it := range out.Data {
		what := "erased"
		switch {
		case it.Already:
			what = "already erased"
		case !it.Listed:
			what = "was not listed; listed as erased, so it stays blocked"
		}
		fmt.Fprintf(a.io.Out, "%s: %s (ID %s, now %s)\n", safeText(it.Email), what, safeText(it.ID), safeText(it.Erased))
	}
	fmt.Fprintf(a.io.Out, "Rewrote %s on this computer.\n", plural(len(out.Local), "file", "files"))
	return err
}

// teamErasureCommand is `shush team erasure-secret`: the versions of a
// team's erasure secret, and their rotation.
func (a *app) teamErasureCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "erasure-secret",
		Short: "Show or rotate a team's erasure secret (docs/erasure.md)",
		Long: `A team's erasure secret keys the hashes its erased entries are kept as. It
lives in the service's database only, made on the team's first erasure, and
is never shown. A rotation adds a new version that new erasures use; the
old versions stay, because an erased entry cannot be hashed again without
its address: a look-up hashes the address with every version. Rotating
after a leak keeps the new erasures safe from the old secret; the entries
hashed with it stay matched by it.`,
		Args: groupArgs,
		RunE: showHelp,
	}
	cmd.AddCommand(a.erasureShowCommand(), a.erasureRotateCommand())
	return cmd
}

// erasureOptions are the options of the erasure secret's show and
// rotate: the team, and the database of --db.
type erasureOptions struct {
	*app
	Team, DB string
}

// erasureCommand is the skeleton of show and rotate: --team, --db, and
// the run function.
func (a *app) erasureCommand(use, short string, run func(context.Context, *erasureOptions) error) *cobra.Command {
	o := &erasureOptions{app: a}
	cmd := command(o, use, short, noArgs, run)
	teamFlag(cmd, &o.Team)
	dbFlag(cmd, &o.DB)
	return cmd
}

func (a *app) erasureShowCommand() *cobra.Command {
	return a.erasureCommand("show --team T", "List the versions of a team's erasure secret and their entries", runErasureShow)
}

func (a *app) erasureRotateCommand() *cobra.Command {
	return a.erasureCommand("rotate --team T", "Add a new version of a team's erasure secret for new erasures", runErasureRotate)
}

// runErasureShow prints the versions of the team's erasure secret.
func runErasureShow(ctx context.Context, o *erasureOptions) error {
	return o.onEraser(ctx, "shush team erasure-secret show", func(er store.Eraser) error {
		vs, err := er.ErasureVersions(ctx, o.Team)
		if err != nil {
			return fmt.Errorf("read the erasure secret's versions: %w", err)
		}
		if o.output().json {
			type version struct {
				Version   int    `json:"version"`
				CreatedAt string `json:"created_at"`
				Entries   int64  `json:"entries"`
			}
			out := []version{}
			for _, v := range vs {
				out = append(out, version{v.Version, v.CreatedAt.UTC().Format(api.TimestampLayout), v.Entries})
			}
			return writeJSON(o.io.Out, out)
		}
		if len(vs) == 0 {
			_, err := fmt.Fprintf(o.io.Out, "Team %s has no erasure secret yet: its first erasure makes one.\n", safeText(o.Team))
			return err
		}
		for _, v := range vs {
			fmt.Fprintf(o.io.Out, "v%d  made %s  %s\n", v.Version, v.CreatedAt.UTC().Format(api.TimestampLayout), plural(int(v.Entries), "erased entry", "erased entries"))
		}
		return nil
	})
}

// runErasureRotate adds a version to the team's erasure secret.
func runErasureRotate(ctx context.Context, o *erasureOptions) error {
	return o.onEraser(ctx, "shush team erasure-secret rotate", func(er store.Eraser) error {
		v, err := er.RotateErasureSecret(ctx, o.Team)
		if err != nil {
			return fmt.Errorf("rotate the erasure secret: %w", err)
		}
		return o.printDone(map[string]any{"team": o.Team, "version": v},
			"Team %s erases with version %d of its secret from now on; the older versions stay, to match the entries hashed with them.", safeText(o.Team), v)
	})
}

// onEraser opens the service's database (onStore) for the team's erasure
// secret and runs fn on it; command names the command for its errors.
func (o *erasureOptions) onEraser(ctx context.Context, command string, fn func(er store.Eraser) error) error {
	if err := server.ValidateTeam(o.Team); err != nil {
		return usagef("%s needs --team T: %v", command, err)
	}
	return onStore(ctx, o.DB, func(st store.Store) error {
		er, ok := st.(store.Eraser)
		if !ok {
			return fmt.Errorf("this database cannot erase")
		}
		return fn(er)
	})
}
