package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

func (a *app) suppressionsCommand() *cobra.Command {
	batch := group("batch", "Add or remove many entries from a file (or stdin)", "",
		a.batchAddCommand(), a.batchRemoveCommand())
	return group("suppressions", "Read and change the suppression list",
		`Read and change the suppression list of the configured service (see
"shush config"), or the local list when no service is configured.

On a terminal the commands print tables and sentences; with --json, or when
stdout is a pipe or a file, they print the API's JSON. Exit status: 0 done;
1 the service refused, some batch failed or some entry's outcome could not
be established (unverified); 2 bad usage or unreadable input; 3 not on the
list (get, a single remove); 4 the service refused the key; 130 interrupted
(shush help exit-codes).`,
		batch, a.listCommand(), a.getCommand(), a.addCommand(), a.removeCommand(), a.checkCommand(), a.exportCommand(), a.eraseCommand())
}

// normalizeRef checks an argument that names an entry by ID or address (as
// mail writes it too: "Jane <jane@example.com>", mailto:) and returns it in
// the service's normal form.
func normalizeRef(s string) (string, error) {
	v, err := batch.Ref(s)
	if err != nil {
		return "", usageErr{err}
	}
	return v, nil
}

// notListed turns the service's 404 for one entry into a sentence naming it.
func notListed(conn *connection, ref string, err error) error {
	if client.IsNotFound(err) && !client.IsUnsupported(err) {
		return exitErr{ExitNotListed, fmt.Errorf("%s is not on the list: %w", ref, err)}
	}
	return unsupported(conn, err)
}

// unsupported explains the answer of a service that offers only the two
// batch endpoints, which the single-entry commands need more than.
func unsupported(conn *connection, err error) error {
	if client.IsUnsupported(err) {
		return fmt.Errorf("%s offers only the batch endpoints, not this command; use shush suppressions batch add|remove: %w", conn.Target, err)
	}
	return err
}

type getOptions struct {
	*app
	Ref string
}

func runGet(ctx context.Context, o *getOptions) error {
	ref, err := normalizeRef(o.Ref)
	if err != nil {
		return err
	}
	return callService(ctx, o.app, func(c *client.Client) (api.Entry, error) {
		e, err := c.Get(ctx, ref)
		if e.Object == "" {
			e.Object = api.ObjectSuppression
		}
		return e, err
	}, func(conn *connection, err error) error { return notListed(conn, ref, err) },
		func(_ *connection, e api.Entry) error {
			t := newTable(o.io.Out)
			t.row("Email:", e.Email)
			t.row("ID:", e.ID)
			t.row("Origin:", string(e.Origin))
			if e.SourceID != nil {
				t.row("Source:", *e.SourceID)
			}
			t.row("Created:", e.CreatedAt.UTC().Format("2006-01-02 15:04:05.000 UTC"))
			if e.ExpiresAt != nil {
				t.row("Expires:", e.ExpiresAt.UTC().Format("2006-01-02 15:04:05.000 UTC"))
			}
			if e.Note != nil {
				t.row("Note:", *e.Note)
			}
			evidenceRows(t, e.Evidence)
			if e.Erased {
				t.row("Erased:", erasedCell(e.ErasedDomain))
			}
			return t.flush()
		})
}

func (a *app) getCommand() *cobra.Command {
	o := &getOptions{app: a}
	cmd := command(o, "get ID_OR_EMAIL", "Show one suppression", oneArg("an ID or an email address"), runGet, &o.Ref)
	cmd.Example = "  shush suppressions get bob@example.com\n  shush suppressions get 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a --json"
	return cmd
}

type addOptions struct {
	*app
	Email     string
	Reference string
	Note      noteFlags
}

func runAdd(ctx context.Context, o *addOptions) error {
	email, err := api.NormalizeEntry(o.Email)
	if err != nil {
		return usagef("%s is not a valid email address, @domain or *.domain: %v", api.Quote(o.Email), err)
	}
	exp, err := o.Note.parse()
	if err != nil {
		return err
	}
	ctx, err = withReference(ctx, o.Reference)
	if err != nil {
		return err
	}
	return callService(ctx, o.app, func(c *client.Client) (api.Suppression, error) {
		req := api.AddRequest{Email: email}
		if o.Note.note != "" {
			req.Note = &o.Note.note
		}
		at, err := expiresAt(ctx, c, exp)
		if err != nil {
			return api.Suppression{}, err
		}
		if !at.IsZero() {
			req.ExpiresAt = &api.Timestamp{Time: at}
		}
		return c.AddEntry(ctx, req)
	}, unsupported,
		func(_ *connection, s api.Suppression) error {
			_, err := fmt.Fprintln(o.io.Out, addedSentence(email, s))
			return err
		})
}

// addedSentence says what an add of email did: put it on the list, or
// found it there already (a service that says so: the hosted one does
// not, and then the sentence claims no more than that it is listed).
func addedSentence(email string, s api.Suppression) string {
	switch {
	case s.Erased:
		return fmt.Sprintf("%s was already on the list, as an erased entry (ID %s): nothing of it changed.", safeText(email), safeText(s.ID))
	case s.Created != nil && !*s.Created:
		return fmt.Sprintf("%s was already on the list (ID %s).", safeText(email), safeText(s.ID))
	}
	return fmt.Sprintf("%s is on the list (ID %s).", safeText(email), safeText(s.ID))
}

func (a *app) addCommand() *cobra.Command {
	o := &addOptions{app: a}
	cmd := command(o, "add EMAIL|@DOMAIN|*.DOMAIN", "Put one address (or a whole domain) on the list",
		oneArg("an email address, @domain or *.domain"), runAdd, &o.Email)
	cmd.Long = `Put one address on the list. An address already listed keeps its entry and ID.

During an incident a whole domain can be listed for a while: @evil.example
lists every address of evil.example, *.evil.example every address of its
subdomains. Check answers say "listed by @evil.example"; the team's
protected addresses are never listed by a domain entry; remove it as any
entry (shush suppressions remove @evil.example).

--note says why, kept with the entry ("mailbox full, asked on #48213");
--expires takes the entry off the list again after an age (30d) or at a date,
counted by the service's clock: the service removes it then, in its trail
as "expired". Re-adding a listed address with a later expiry or none extends
it, never shortens it, and gives a note only to an entry without one. Both
need shush's own service.`
	cmd.Example = "  shush suppressions add bob@example.com --reference T-5521\n  shush suppressions add full@example.com --note 'mailbox full, #48213' --expires 30d\n  shush suppressions add @evil.example --expires 24h --reference INC-7 --note 'phishing wave'"
	referenceFlag(cmd, &o.Reference)
	o.Note.flags(cmd.Flags())
	return cmd
}

type removeOptions struct {
	*app
	Ref       string
	Yes       bool
	Reference string
}

func runRemove(ctx context.Context, o *removeOptions) error {
	ref, err := normalizeRef(o.Ref)
	if err != nil {
		return err
	}
	ctx, err = withReference(ctx, o.Reference)
	if err != nil {
		return err
	}
	if ok, err := o.confirmRemoval(ctx, o.Yes, ref); !ok {
		return err
	}
	return callService(ctx, o.app, func(c *client.Client) (api.Suppression, error) { return c.Remove(ctx, ref) },
		func(conn *connection, err error) error { return notListed(conn, ref, err) },
		func(_ *connection, out api.Suppression) error {
			return o.say("Removed %s (ID %s).", safeText(ref), safeText(out.ID))
		})
}

func (a *app) removeCommand() *cobra.Command {
	o := &removeOptions{app: a}
	cmd := command(o, "remove ID_OR_EMAIL", "Take one entry off the list",
		oneArg("an ID or an email address"), runRemove, &o.Ref)
	cmd.Aliases = []string{"rm", "delete"}
	cmd.Long = `Take one entry, named by ID or address, off the list: mail may then be sent to
the address again. On a terminal shush asks first; elsewhere it needs --yes.`
	cmd.Example = "  shush suppressions remove bob@example.com --reference T-5521\n  shush suppressions remove 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a --yes --json"
	cmd.Flags().BoolVar(&o.Yes, "yes", false, "remove without asking")
	referenceFlag(cmd, &o.Reference)
	return cmd
}

// referenceFlag adds --reference, the ticket a change is for.
func referenceFlag(cmd *cobra.Command, ref *string) {
	cmd.Flags().StringVar(ref, "reference", "", "ticket number or URL sent with the request (Shush-Reference), kept in the service's audit trail")
}

// withReference checks a --reference and has every request of ctx carry
// it ("" carries none).
func withReference(ctx context.Context, ref string) (context.Context, error) {
	if ref == "" {
		return ctx, nil
	}
	if err := api.ValidReference(ref); err != nil {
		return ctx, usagef("--reference: %v", err)
	}
	return client.WithReference(ctx, ref), nil
}
