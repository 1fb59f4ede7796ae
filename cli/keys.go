package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

func (a *app) keysCommand() *cobra.Command {
	return group("keys", "Manage the service's API keys",
		`Create, list and revoke the API keys of the service's database. A key belongs
to one team and sees only that team's list; a read-only key may read but not
change it. Only a hash of each key is stored: a key is shown once, when it is
created.`,
		a.keysCreateCommand(), a.keysListCommand(), a.keysRevokeCommand())
}

// keyJSON is a key as keys create and keys list print it (the key itself
// only when it is created).
type keyJSON struct {
	ID        string  `json:"id"`
	Key       string  `json:"key,omitempty"`
	Team      string  `json:"team"`
	Name      string  `json:"name,omitempty"`
	ReadOnly  bool    `json:"read_only"`
	Override  bool    `json:"override"`
	Import    bool    `json:"import"`
	CreatedAt string  `json:"created_at,omitempty"`
	RevokedAt *string `json:"revoked_at,omitempty"`
}

type keysCreateOptions struct {
	*app
	DB, Team, Name             string
	TeamGiven                  bool
	ReadOnly, Override, Import bool
}

func runKeysCreate(ctx context.Context, o *keysCreateOptions) error {
	if !o.TeamGiven {
		return usagef("keys create needs --team NAME")
	}
	if err := server.ValidateTeam(o.Team); err != nil {
		return usagef("--team: %v", err)
	}
	if err := server.ValidateKeyName(o.Name); err != nil {
		return usagef("--name: %v", err)
	}
	return onStore(ctx, o.DB, func(st store.Store) error {
		if o.ReadOnly && o.Override {
			return usagef("--read-only and --override do not go together: a read-only key removes nothing")
		}
		if o.ReadOnly && o.Import {
			return usagef("--read-only and --import do not go together: a read-only key adds nothing")
		}
		k, text, err := server.CreateNamedKeyWith(ctx, st, o.Team, o.Name, server.KeyPermissions{ReadOnly: o.ReadOnly, Override: o.Override, Import: o.Import})
		if err != nil {
			return err
		}
		if o.jsonAsked() {
			return writeJSON(o.io.Out, keyJSON{ID: k.ID, Key: text, Team: k.Team, Name: k.Name, ReadOnly: k.ReadOnly, Override: k.Override, Import: k.Import})
		}
		fmt.Fprintln(o.io.Out, text)
		fmt.Fprintf(o.io.ErrOut, "Created %s API key %s for team %s. Store it now: it will not be shown again.\n",
			access(k.ReadOnly), k.ID, safeText(k.Team))
		return nil
	})
}

func (a *app) keysCreateCommand() *cobra.Command {
	o := &keysCreateOptions{app: a}
	cmd := command(o, "create --team NAME", "Create an API key for a team and print it once", noArgs, runKeysCreate)
	cmd.Long = `Create an API key for a team. The key alone is printed on stdout, so that
KEY=$(shush keys create --team support) captures it; it is not stored and
cannot be shown again. --name says whose key it is: the audit trail shows
it as who made each change. --override lets the key remove complaints where
the team's rule asks for that permission (shush team set --complaint-removal
override). --json prints {"id","key","team","name","read_only","override"}.`
	cmd.Example = `  shush keys create --team support --name jane
  shush keys create --team support --name lead --override
  shush keys create --team auditors --name soc-review --read-only --json`
	f := cmd.Flags()
	f.StringVar(&o.Team, "team", "", "team the key belongs to (1-64 printable characters, no spaces)")
	flagGiven(cmd, "team", &o.TeamGiven)
	f.StringVar(&o.Name, "name", "", "whose key it is (up to 64 printable characters), shown in the audit trail")
	f.BoolVar(&o.ReadOnly, "read-only", false, "the key may read the list but not change it")
	f.BoolVar(&o.Override, "override", false, "the key may remove complaints where the team's rule asks for this permission")
	f.BoolVar(&o.Import, "import", false, "the key's additions may keep their entries' own IDs and creation times (batch add --keep-ids: a list moved whole)")
	dbFlag(cmd, &o.DB)
	return cmd
}

func access(readOnly bool) string {
	if readOnly {
		return "read-only"
	}
	return "read-write"
}

// permissions says what a key or agent may do, for a table: its access,
// and the override permission when it has it.
func permissions(readOnly, override bool) string {
	if override {
		return access(readOnly) + "+override"
	}
	return access(readOnly)
}

type keysListOptions struct {
	*app
	DB string
}

func runKeysList(ctx context.Context, o *keysListOptions) error {
	return listStored(ctx, o.app, o.DB, "keys", store.Store.ListKeys, listedKeyJSON, keysListing)
}

// listedKeyJSON is how keys list --json shows a key.
func listedKeyJSON(k store.Key) keyJSON {
	j := keyJSON{ID: k.ID, Team: k.Team, Name: k.Name, ReadOnly: k.ReadOnly, Override: k.Override, Import: k.Import, CreatedAt: k.CreatedAt.UTC().Format(api.TimestampLayout)}
	if k.RevokedAt != nil {
		r := k.RevokedAt.UTC().Format(api.TimestampLayout)
		j.RevokedAt = &r
	}
	return j
}

// keysListing is how keys list shows the keys to a person.
var keysListing = listing[store.Key]{
	columns: []string{"ID", "TEAM", "NAME", "ACCESS", "CREATED", "REVOKED"},
	row: func(k store.Key) []string {
		revoked := "-"
		if k.RevokedAt != nil {
			revoked = k.RevokedAt.UTC().Format(time.RFC3339)
		}
		perms := permissions(k.ReadOnly, k.Override)
		if k.Import {
			perms += "+import"
		}
		return []string{k.ID, k.Team, cmp.Or(k.Name, "-"), perms, k.CreatedAt.UTC().Format(time.RFC3339), revoked}
	},
	noneHint: "No API keys yet; create one with: shush keys create --team NAME",
}

func (a *app) keysListCommand() *cobra.Command {
	o := &keysListOptions{app: a}
	cmd := command(o, "list", "List the API keys (never the keys themselves)", noArgs, runKeysList)
	cmd.Aliases = []string{"ls"}
	dbFlag(cmd, &o.DB)
	return cmd
}

type keysRevokeOptions struct {
	*app
	DB, ID string
}

func runKeysRevoke(ctx context.Context, o *keysRevokeOptions) error {
	if strings.HasPrefix(o.ID, server.KeyPrefix) {
		return usagef("give the key's ID (see shush keys list), not the key itself")
	}
	return onStore(ctx, o.DB, func(st store.Store) error {
		if err := st.RevokeKey(ctx, o.ID); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return fmt.Errorf("no API key has the ID %s (see shush keys list)", api.Quote(o.ID))
			}
			return fmt.Errorf("revoke the key: %w", err)
		}
		return o.printDone(map[string]any{"id": o.ID, "revoked": true}, "Revoked API key %s.", o.ID)
	})
}

func (a *app) keysRevokeCommand() *cobra.Command {
	o := &keysRevokeOptions{app: a}
	cmd := command(o, "revoke KEY_ID", "Revoke an API key; requests with it are refused from then on",
		idArg("KEY_ID", "shush keys list"), runKeysRevoke, &o.ID)
	cmd.Aliases = []string{"delete", "rm"}
	cmd.ValidArgsFunction = func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return completeKeyIDs(cmd, o.DB, prefix), cobra.ShellCompDirectiveNoFileComp
	}
	dbFlag(cmd, &o.DB)
	return cmd
}

// completeKeyIDs offers the IDs of the keys not yet revoked, with their
// team, from a database that already exists (completion never creates one).
func completeKeyIDs(cmd *cobra.Command, dsn, prefix string) []cobra.Completion {
	if dsn == "" {
		d, err := config.DefaultDB()
		if err != nil {
			return nil
		}
		if _, err := os.Stat(d); err != nil {
			return nil
		}
		dsn = d
	}
	st, _, err := openStore(cmd.Context(), dsn)
	if err != nil {
		return nil
	}
	defer st.Close()
	keys, err := st.ListKeys(cmd.Context())
	if err != nil {
		return nil
	}
	var out []cobra.Completion
	for _, k := range keys {
		if k.RevokedAt == nil && strings.HasPrefix(k.ID, prefix) {
			out = append(out, cobra.CompletionWithDesc(k.ID, "team "+safeText(k.Team)))
		}
	}
	return out
}
