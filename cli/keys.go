package cli

import (
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
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Manage the service's API keys",
		Long: `Create, list and revoke the API keys of the service's database. A key belongs
to one team and sees only that team's list; a read-only key may read but not
change it. Only a hash of each key is stored: a key is shown once, when it is
created.`,
		Args: noArgs,
	}
	cmd.AddCommand(a.keysCreateCommand(), a.keysListCommand(), a.keysRevokeCommand())
	return cmd
}

// keyJSON is how --json shows a key; Key is only set when it is created.
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

func (a *app) keysCreateCommand() *cobra.Command {
	var (
		team, name, dsn             string
		readOnly, override, import_ bool
	)
	cmd := &cobra.Command{
		Use:   "create --team NAME",
		Short: "Create an API key for a team and print it once",
		Long: `Create an API key for a team. The key alone is printed on stdout, so that
KEY=$(shush keys create --team support) captures it; it is not stored and
cannot be shown again. --name says whose key it is: the audit trail shows
it as who made each change. --override lets the key remove complaints where
the team's rule asks for that permission (shush team set --complaint-removal
override). --json prints {"id","key","team","name","read_only","override"}.`,
		Example: `  shush keys create --team support --name jane
  shush keys create --team support --name lead --override
  shush keys create --team auditors --name soc-review --read-only --json`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("team") {
				return usagef("keys create needs --team NAME")
			}
			if err := server.ValidateTeam(team); err != nil {
				return usagef("--team: %v", err)
			}
			if err := server.ValidateKeyName(name); err != nil {
				return usagef("--name: %v", err)
			}
			st, _, err := openStore(cmd.Context(), dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			if readOnly && override {
				return usagef("--read-only and --override do not go together: a read-only key removes nothing")
			}
			if readOnly && import_ {
				return usagef("--read-only and --import do not go together: a read-only key adds nothing")
			}
			k, text, err := server.CreateNamedKeyWith(cmd.Context(), st, team, name, server.KeyPermissions{ReadOnly: readOnly, Override: override, Import: import_})
			if err != nil {
				return err
			}
			if a.jsonAsked() {
				return writeJSON(a.io.Out, keyJSON{ID: k.ID, Key: text, Team: k.Team, Name: k.Name, ReadOnly: k.ReadOnly, Override: k.Override, Import: k.Import})
			}
			fmt.Fprintln(a.io.Out, text)
			fmt.Fprintf(a.io.Err, "Created %s API key %s for team %s. Store it now: it will not be shown again.\n",
				access(k.ReadOnly), k.ID, safeText(k.Team))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&team, "team", "", "team the key belongs to (1-64 printable characters, no spaces)")
	f.StringVar(&name, "name", "", "whose key it is (up to 64 printable characters), shown in the audit trail")
	f.BoolVar(&readOnly, "read-only", false, "the key may read the list but not change it")
	f.BoolVar(&override, "override", false, "the key may remove complaints where the team's rule asks for this permission")
	f.BoolVar(&import_, "import", false, "the key's additions may keep their entries' own IDs and creation times (batch add --keep-ids: a list moved whole)")
	dbFlag(cmd, &dsn)
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

func (a *app) keysListCommand() *cobra.Command {
	var (
		dsn string
	)
	cmd := &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the API keys (never the keys themselves)",
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, _, err := openStore(cmd.Context(), dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			keys, err := st.ListKeys(cmd.Context())
			if err != nil {
				return fmt.Errorf("list the keys: %w", err)
			}
			if a.output().json {
				out := make([]keyJSON, len(keys))
				for i, k := range keys {
					out[i] = keyJSON{ID: k.ID, Team: k.Team, Name: k.Name, ReadOnly: k.ReadOnly, Override: k.Override, Import: k.Import, CreatedAt: k.CreatedAt.UTC().Format(api.TimestampLayout)}
					if k.RevokedAt != nil {
						r := k.RevokedAt.UTC().Format(api.TimestampLayout)
						out[i].RevokedAt = &r
					}
				}
				return writeJSON(a.io.Out, out)
			}
			if len(keys) == 0 {
				fmt.Fprintln(a.io.Err, "No API keys yet; create one with: shush keys create --team NAME")
				return nil
			}
			t := newTable(a.io.Out)
			t.row("ID", "TEAM", "NAME", "ACCESS", "CREATED", "REVOKED")
			for _, k := range keys {
				revoked := "-"
				if k.RevokedAt != nil {
					revoked = k.RevokedAt.UTC().Format(time.RFC3339)
				}
				name := k.Name
				if name == "" {
					name = "-"
				}
				perms := permissions(k.ReadOnly, k.Override)
				if k.Import {
					perms += "+import"
				}
				t.row(k.ID, k.Team, name, perms, k.CreatedAt.UTC().Format(time.RFC3339), revoked)
			}
			return t.flush()
		},
	}
	dbFlag(cmd, &dsn)
	return cmd
}

func (a *app) keysRevokeCommand() *cobra.Command {
	var dsn string
	cmd := &cobra.Command{
		Use:     "revoke KEY_ID",
		Aliases: []string{"delete", "rm"},
		Short:   "Revoke an API key; requests with it are refused from then on",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("keys revoke needs one KEY_ID (see shush keys list), got %d arguments", len(args))
			}
			return nil
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return completeKeyIDs(cmd, dsn, prefix), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			id := args[0]
			if strings.HasPrefix(id, server.KeyPrefix) {
				return usagef("give the key's ID (see shush keys list), not the key itself")
			}
			st, _, err := openStore(cmd.Context(), dsn)
			if err != nil {
				return err
			}
			defer st.Close()
			if err := st.RevokeKey(cmd.Context(), id); err != nil {
				if errors.Is(err, store.ErrNotFound) {
					return fmt.Errorf("no API key has the ID %s (see shush keys list)", api.Quote(id))
				}
				return fmt.Errorf("revoke the key: %w", err)
			}
			if a.output().json {
				return writeJSON(a.io.Out, map[string]any{"id": id, "revoked": true})
			}
			fmt.Fprintf(a.io.Out, "Revoked API key %s.\n", id)
			return nil
		},
	}
	dbFlag(cmd, &dsn)
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
