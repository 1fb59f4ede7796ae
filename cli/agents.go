package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

func (a *app) agentsCommand() *cobra.Command {
	return group("agents", "Manage the agents who work the list over SSH", `Add, list and remove the agents of the service's database: the people of a
team who reach the terminal UI with ssh (shush serve --ssh-addr), each with one
SSH public key and no API key. The trail names the agent of every change they
make. A removed agent cannot log in again, and their open sessions end.`,
		a.agentsAddCommand(), a.agentsListCommand(), a.agentsRemoveCommand())
}

// agentJSON is how --json shows an agent.
func agentJSON(ag store.Agent) api.Agent {
	return api.Agent{Object: api.ObjectAgent, ID: ag.ID, Name: ag.Name, Team: ag.Team, Fingerprint: ag.Fingerprint,
		ReadOnly: ag.ReadOnly, Override: ag.Override, CreatedAt: api.Timestamp{Time: ag.CreatedAt}}
}

type agentsAddOptions struct {
	*app
	Arg, Team, KeyFile, DB string
	ReadOnly, Override     bool
}

func runAgentsAdd(ctx context.Context, o *agentsAddOptions) error {
	if o.Team == "" || o.KeyFile == "" {
		return usagef("agents add needs --team T and --ssh-key FILE")
	}
	if o.ReadOnly && o.Override {
		return usagef("--read-only and --override do not go together: a read-only agent removes nothing")
	}
	text, err := o.readPublicKey(o.KeyFile)
	if err != nil {
		return err
	}
	return onStore(ctx, o.DB, func(st store.Store) error {
		ag, err := server.CreateAgent(ctx, st, o.Team, api.NewAgent{Name: o.Arg, PublicKey: text, ReadOnly: o.ReadOnly, Override: o.Override})
		if err != nil {
			return o.addRefused(err)
		}
		if o.jsonAsked() {
			return writeJSON(o.io.Out, agentJSON(ag))
		}
		fmt.Fprintf(o.io.Out, "Added agent %s to team %s (%s), key %s.\n", safeText(ag.Name), safeText(ag.Team), permissions(ag.ReadOnly, ag.Override), ag.Fingerprint)
		return nil
	})
}

// addRefused says why the agent was not added: a usage error when the
// name or key will not do.
func (o *agentsAddOptions) addRefused(err error) error {
	var ae *server.AgentError
	switch {
	case errors.As(err, &ae):
		return usagef("%v", err)
	case errors.Is(err, server.ErrKeyTaken):
		return usagef("this public key is another agent's already (see shush agents list); each agent logs in with a key of their own")
	case errors.Is(err, server.ErrKeyRefused):
		return usagef("%v", err)
	case errors.Is(err, store.ErrExists):
		return usagef("an agent named %s exists already (see shush agents list)", safeText(api.Quote(o.Arg)))
	}
	return fmt.Errorf("add the agent: %w", err)
}

// agentNameArg wants the one NAME of agents add: a name with spaces,
// unquoted, is several arguments.
func agentNameArg(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("agents add needs one NAME, got %d arguments (quote a name with spaces)", len(args))
	}
	return nil
}

func (a *app) agentsAddCommand() *cobra.Command {
	o := &agentsAddOptions{app: a}
	cmd := command(o, "add NAME --team T --ssh-key FILE", "Add an agent with their SSH public key",
		agentNameArg, runAgentsAdd, &o.Arg)
	cmd.Long = `Add an agent to a team. NAME is how the trail and the session's header show
them (up to 64 printable characters; unique). FILE is their public key, the
.pub file of their key pair (ssh-ed25519, ecdsa or rsa), or - for stdin; the
private key never leaves their machine. --read-only agents may look and
check but not send; --override agents may remove complaints where the team's
rule asks for that permission.`
	cmd.Example = `  shush agents add jane --team support --ssh-key jane.pub
  shush agents add "Bob Ray" --team support --ssh-key bob.pub --read-only`
	f := cmd.Flags()
	f.StringVar(&o.Team, "team", "", "team the agent works for (1-64 printable characters, no spaces)")
	f.StringVar(&o.KeyFile, "ssh-key", "", "the agent's SSH public key file (.pub), or - for stdin")
	f.BoolVar(&o.ReadOnly, "read-only", false, "the agent may look and check but not change the list")
	f.BoolVar(&o.Override, "override", false, "the agent may remove complaints where the team's rule asks for this permission")
	dbFlag(cmd, &o.DB)
	return cmd
}

// readPublicKey reads an agent's public key file. A private key is
// refused without a word of its content.
func (a *app) readPublicKey(file string) (string, error) {
	var b []byte
	var err error
	if file == "-" {
		b, err = io.ReadAll(io.LimitReader(a.io.In, 64<<10))
	} else {
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return "", usagef("cannot read the SSH key file %s: %v", safeText(api.Quote(file)), err)
	}
	if strings.Contains(string(b), "PRIVATE KEY") {
		return "", usagef("%s is a private key; give the agent's public key (the .pub file beside it), which is all the service needs", safeText(api.Quote(file)))
	}
	return string(b), nil
}

type agentsListOptions struct {
	*app
	DB string
}

func runAgentsList(ctx context.Context, o *agentsListOptions) error {
	return listStored(ctx, o.app, o.DB, "agents", store.Store.ListAgents, agentJSON, agentsListing)
}

// agentsListing is how agents list shows the agents to a person.
var agentsListing = listing[store.Agent]{
	columns: []string{"NAME", "TEAM", "ACCESS", "KEY", "ADDED"},
	row: func(ag store.Agent) []string {
		return []string{safeText(ag.Name), safeText(ag.Team), permissions(ag.ReadOnly, ag.Override), ag.Fingerprint, ag.CreatedAt.UTC().Format(time.RFC3339)}
	},
	noneHint: "No agents yet; add one with: shush agents add NAME --team T --ssh-key FILE",
}

func (a *app) agentsListCommand() *cobra.Command {
	o := &agentsListOptions{app: a}
	cmd := command(o, "list", "List the agents", noArgs, runAgentsList)
	cmd.Aliases = []string{"ls"}
	cmd.Long = `List the agents not removed, oldest first, with their team, access and key's fingerprint.`
	dbFlag(cmd, &o.DB)
	return cmd
}

type agentsRemoveOptions struct {
	*app
	Arg, DB string
}

func runAgentsRemove(ctx context.Context, o *agentsRemoveOptions) error {
	return onStore(ctx, o.DB, func(st store.Store) error {
		ag, err := server.FindAgent(ctx, st, o.Arg)
		if err == nil {
			ag, err = st.RemoveAgent(ctx, ag.ID)
		}
		switch {
		case errors.Is(err, store.ErrNotFound):
			return fmt.Errorf("no agent is named %s (see shush agents list)", safeText(api.Quote(o.Arg)))
		case err != nil:
			return fmt.Errorf("remove the agent: %w", err)
		}
		return o.printDone(api.DeletedAgent{Object: api.ObjectAgent, ID: ag.ID, Deleted: true},
			"Removed agent %s; a running shush serve ends their sessions within a few seconds.", safeText(ag.Name))
	})
}

func (a *app) agentsRemoveCommand() *cobra.Command {
	o := &agentsRemoveOptions{app: a}
	cmd := command(o, "remove NAME", "Remove an agent: they cannot log in again, and their open sessions end",
		idArg("NAME", "shush agents list"), runAgentsRemove, &o.Arg)
	cmd.Aliases = []string{"rm", "delete"}
	dbFlag(cmd, &o.DB)
	return cmd
}
