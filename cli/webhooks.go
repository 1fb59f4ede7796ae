package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

func (a *app) webhooksCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "webhooks",
		Aliases: []string{"webhook"},
		Short:   "Send suppression.added and suppression.removed to your endpoints",
		Long: `Manage the webhooks of the configured service: endpoints that get a signed
POST for every suppression put on the list (suppression.added) or taken off
it (suppression.removed), whatever made the change (the CLI, the UI, the API).

A delivery carries svix-id, svix-timestamp and svix-signature headers (and the
same values as webhook-id, webhook-timestamp, webhook-signature): "v1," and the
base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the webhook's
signing secret, as the hosted service signs them, so its SDKs' verify works
unchanged. A delivery that does not get a 2xx is retried with backoff for a
day; "shush webhooks deliveries" shows where each stands.

The same commands manage the webhooks of a Resend account (set the base URL
and a re_ key as for the list). Deliveries go out from "shush serve"; a
webhook of the local list is delivered while a "shush serve" runs on its
database.`,
		Args: groupArgs,
		RunE: showHelp,
	}
	cmd.AddCommand(
		a.webhooksAddCommand(),
		a.webhooksListCommand(),
		a.webhooksShowCommand(),
		a.webhooksUpdateCommand(),
		a.webhooksStatusCommand("enable", api.WebhookEnabled),
		a.webhooksStatusCommand("disable", api.WebhookDisabled),
		a.webhooksRotateCommand(),
		a.webhooksRemoveCommand(),
		a.webhooksDeliveriesCommand(),
		a.webhooksReplayCommand(),
	)
	return cmd
}

// endpointArg checks an endpoint before it is sent, by the contract's
// rule, so that a typo is a usage error here rather than a 422 later.
func endpointArg(s string) (string, error) {
	s = strings.TrimSpace(s)
	if err := api.ValidEndpoint(s); err != nil {
		return "", usagef("the endpoint %s is not an absolute http or https URL: %v", api.Quote(s), err)
	}
	return s, nil
}

// webhookEvents reads --events: comma-separated event names, where added
// and removed are short for the suppression events. Any name shaped
// resource.action is passed on (the hosted service has many more events);
// shush's own service delivers only the suppression ones.
func webhookEvents(list []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, e := range list {
		e = strings.ToLower(strings.TrimSpace(e))
		switch e {
		case "":
			continue
		case "added", "removed":
			e = "suppression." + e
		}
		if err := api.ValidEventName(e); err != nil {
			return nil, usagef("--events: %s is not an event name like suppression.added (%v)", api.Quote(e), err)
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	switch {
	case len(out) == 0:
		return nil, usagef("--events needs at least one event, e.g. suppression.added,suppression.removed")
	case len(out) > api.MaxEvents:
		return nil, usagef("--events lists %d events; a webhook takes at most %d", len(out), api.MaxEvents)
	}
	return out, nil
}

// webhookID checks an ID argument: a webhook or event ID is one token; a
// URL or a secret pasted by mistake is refused here, not sent in a path.
func webhookID(what, s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, api.WebhookSecretPrefix):
		return "", usagef("give the %s ID (see shush webhooks list), not the signing secret", what)
	case s == "" || len(s) > 200 || strings.ContainsAny(s, "/?# \t\r\n"):
		article := "a"
		if strings.ContainsRune("aeiou", rune(what[0])) {
			article = "an"
		}
		return "", usagef("%s is not %s %s ID (see shush webhooks list)", api.Quote(s), article, what)
	}
	return s, nil
}

// webhookErr says what a refusal means for a webhook command: a service
// without the webhooks API, or an ID it does not know. nil stays nil, so a
// call's answer and its refusal return together.
func webhookErr(conn *connection, id string, err error) error {
	var ae *api.Error
	switch {
	case client.IsWebhooksUnsupported(err):
		return fmt.Errorf("%s has no webhooks API (shush serve and the hosted service have one): %w", conn.Target, err)
	case errors.As(err, &ae) && ae.StatusCode == http.StatusNotFound && strings.Contains(strings.ToLower(ae.Message), "event"):
		return fmt.Errorf("webhook %s has no such event on %s (see shush webhooks deliveries %s): %w", safeText(id), conn.Target, safeText(id), err)
	case client.IsNotFound(err) && id != "":
		return fmt.Errorf("no webhook has the ID %s on %s (see shush webhooks list): %w", api.Quote(id), conn.Target, err)
	}
	return err
}

// secretNotice goes to stderr beside a printed secret: what it is for and
// how to see it again, never the secret itself.
func (a *app) secretNotice(id string) {
	fmt.Fprintf(a.io.ErrOut, "Give the signing secret to the receiver only: it verifies deliveries, and anyone holding it can forge them. A read-write key shows it again: shush webhooks show %s --secret\n", id)
}

type webhooksAddOptions struct {
	*app
	Endpoint string
	Events   []string
}

func runWebhooksAdd(ctx context.Context, o *webhooksAddOptions) error {
	ep, err := endpointArg(o.Endpoint)
	if err != nil {
		return err
	}
	evs, err := webhookEvents(o.Events)
	if err != nil {
		return err
	}
	return callService(ctx, o.app, func(c *client.Client) (api.Webhook, error) { return c.CreateWebhook(ctx, ep, evs) },
		func(conn *connection, err error) error { return webhookErr(conn, "", err) },
		func(conn *connection, w api.Webhook) error {
			t := newTable(o.io.Out)
			t.row("id", w.ID)
			t.row("endpoint", ep)
			t.row("events", strings.Join(evs, ", "))
			t.row("signing secret", w.SigningSecret)
			if err := t.flush(); err != nil {
				return err
			}
			o.secretNotice(w.ID)
			if conn.Settings.Local() {
				fmt.Fprintf(o.io.ErrOut, "Deliveries of %s go out while a shush serve runs on its database (--db).\n", conn.Target)
			}
			return nil
		})
}

func (a *app) webhooksAddCommand() *cobra.Command {
	o := &webhooksAddOptions{app: a}
	cmd := &cobra.Command{
		Use:     "add URL",
		Aliases: []string{"create"},
		Short:   "Register an endpoint and print its signing secret",
		Long: `Register an endpoint (an absolute http or https URL) for suppression events:
both of them unless --events says which. The new webhook's ID and signing
secret are printed on stdout; the secret verifies deliveries, so give it to
the receiver only. A read-write key can show it again later (show --secret).
--json prints the API's {"object":"webhook","id","signing_secret"}.`,
		Example: `  shush webhooks add https://hooks.example.com/suppressions
  shush webhooks add https://hooks.example.com/unlisted --events removed
  SECRET=$(shush webhooks add https://hooks.example.com/x --jq .signing_secret)`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 1 && o.Endpoint != "":
				return usagef("give the endpoint once: as the argument or as --endpoint")
			case len(args) == 0 && o.Endpoint == "":
				return usagef("webhooks add needs the endpoint URL")
			case len(args) > 1:
				return usagef("webhooks add takes one endpoint URL, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Endpoint = args[0]
			}
			return runWebhooksAdd(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Endpoint, "endpoint", "", "the endpoint URL (instead of the argument)")
	f.StringSliceVar(&o.Events, "events", api.SuppressionEvents(), "events to send, comma-separated: suppression.added (added), suppression.removed (removed)")
	_ = cmd.RegisterFlagCompletionFunc("events", completeWords(api.EventSuppressionAdded, api.EventSuppressionRemoved))
	return cmd
}

// webhookEventsText shortens a webhook's events for a table cell.
func webhookEventsText(evs []string) string {
	switch {
	case len(evs) == 0:
		return "-"
	case len(evs) > 3:
		return fmt.Sprintf("%d events", len(evs))
	}
	short := make([]string, len(evs))
	for i, e := range evs {
		short[i] = e
		if s, ok := strings.CutPrefix(e, "suppression."); ok {
			short[i] = s
		}
	}
	return strings.Join(short, ",")
}

type webhooksListOptions struct {
	*app
	Paging paging
}

func runWebhooksList(ctx context.Context, o *webhooksListOptions) error {
	return o.onService(ctx, func(conn *connection) error {
		hooks, more, err := collectPages(o.Paging.after, o.Paging.all, func(after string) ([]api.Webhook, bool, error) {
			page, err := conn.Client.ListWebhooks(ctx, client.WebhookParams{Limit: o.Paging.limit, After: after, Before: o.Paging.before})
			return page.Data, page.HasMore, webhookErr(conn, "", err)
		}, func(w api.Webhook) string { return w.ID })
		if err != nil {
			return err
		}
		return listing[api.Webhook]{
			columns: []string{"ID", "STATUS", "EVENTS", "ENDPOINT", "CREATED (UTC)"},
			row: func(w api.Webhook) []string {
				return []string{w.ID, w.Status, webhookEventsText(w.Events), w.Endpoint, w.CreatedAt.UTC().Format(utc)}
			},
			noneHint: "No webhooks yet; add one with: shush webhooks add URL",
			more:     func(shown []api.Webhook) string { return readOn("webhooks", shown[len(shown)-1].ID) },
		}.print(o.app, o.output().json, api.WebhookList{Object: api.ObjectList, HasMore: more, Data: hooks}, hooks, more)
	})
}

func (a *app) webhooksListCommand() *cobra.Command {
	o := &webhooksListOptions{app: a}
	cmd := commandPaging(o, &o.Paging, "list", "List the webhooks, newest first", noArgs, runWebhooksList)
	cmd.Aliases = []string{"ls"}
	cmd.Long = `List the team's webhooks, newest first: ID, status, events, endpoint. Never
the signing secrets (see show --secret). --all follows every page.`
	o.Paging.flags(cmd.Flags(), "webhook", "webhooks", true)
	return cmd
}

type webhooksShowOptions struct {
	*app
	Arg    string
	Secret bool
}

func runWebhooksShow(ctx context.Context, o *webhooksShowOptions) error {
	return o.withWebhook(ctx, o.Arg, func(conn *connection, id string) error {
		w, err := findWebhook(ctx, conn, id, o.Secret)
		if err != nil {
			return err
		}
		if !o.Secret {
			w.SigningSecret = ""
		}
		if o.output().json {
			return writeJSON(o.io.Out, w)
		}
		t := newTable(o.io.Out)
		t.row("id", w.ID)
		t.row("endpoint", w.Endpoint)
		t.row("status", w.Status)
		t.row("events", strings.Join(w.Events, ", "))
		t.row("created (UTC)", w.CreatedAt.UTC().Format(utc))
		if o.Secret {
			t.row("signing secret", w.SigningSecret)
		}
		return t.flush()
	})
}

func (a *app) webhooksShowCommand() *cobra.Command {
	o := &webhooksShowOptions{app: a}
	cmd := command(o, "show ID", "Show one webhook (its signing secret with --secret)",
		oneArg("a webhook ID"), runWebhooksShow, &o.Arg)
	cmd.Aliases = []string{"get"}
	cmd.Long = `Show one webhook: endpoint, status, events, creation time. --secret adds the
signing secret, which only a read-write key may read (the service refuses a
read-only one, since the secret forges deliveries); without --secret a
read-only key is enough. --json prints the API's webhook object.`
	cmd.Example = `  shush webhooks show 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a
  shush webhooks show 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a --secret --jq .signing_secret`
	cmd.Flags().BoolVar(&o.Secret, "secret", false, "also print the signing secret (needs a read-write key)")
	return cmd
}

// findWebhook reads one webhook. Reading it by ID needs a read-write key
// (the answer holds the secret); when the secret is not wanted and the key
// is read-only, the webhook is looked up in the list instead, which a
// read-only key may read.
func findWebhook(ctx context.Context, conn *connection, id string, secret bool) (api.Webhook, error) {
	w, err := conn.Client.GetWebhook(ctx, id)
	var ae *api.Error
	if err == nil || secret || !errors.As(err, &ae) || ae.Name != api.ErrRestrictedAPIKey {
		return w, webhookErr(conn, id, err)
	}
	found := false
	err = readPages("", true, func(after string) ([]api.Webhook, bool, error) {
		page, err := conn.Client.ListWebhooks(ctx, client.WebhookParams{Limit: api.MaxBatch, After: after})
		return page.Data, page.HasMore, webhookErr(conn, "", err)
	}, func(w api.Webhook) string { return w.ID }, func(page []api.Webhook, _ bool) error {
		for _, hook := range page {
			if hook.ID == id {
				w, found = hook, true
				w.Object = api.ObjectWebhook
				return errStopPaging
			}
		}
		return nil
	})
	if err != nil || found {
		return w, err
	}
	return api.Webhook{}, fmt.Errorf("no webhook has the ID %s on %s (see shush webhooks list)", api.Quote(id), conn.Target)
}

type webhooksUpdateOptions struct {
	*app
	Arg, Endpoint              string
	Events                     []string
	EndpointGiven, EventsGiven bool
}

func runWebhooksUpdate(ctx context.Context, o *webhooksUpdateOptions) error {
	var u api.UpdateWebhookRequest
	if o.EndpointGiven {
		ep, err := endpointArg(o.Endpoint)
		if err != nil {
			return err
		}
		u.Endpoint = &ep
	}
	if o.EventsGiven {
		evs, err := webhookEvents(o.Events)
		if err != nil {
			return err
		}
		u.Events = &evs
	}
	if u.Endpoint == nil && u.Events == nil {
		return usagef("webhooks update needs --endpoint or --events (enable and disable change the status)")
	}
	return o.updateWebhook(ctx, o.Arg, u, "Updated")
}

func (a *app) webhooksUpdateCommand() *cobra.Command {
	o := &webhooksUpdateOptions{app: a}
	cmd := command(o, "update ID [--endpoint URL] [--events LIST]", "Change a webhook's endpoint or events",
		oneArg("a webhook ID"), runWebhooksUpdate, &o.Arg)
	cmd.Long = `Change a webhook's endpoint, or its events (--events replaces the whole list;
added and removed are short for the suppression events). Pending deliveries
go to the new endpoint. See also enable and disable.`
	cmd.Example = `  shush webhooks update 0195f3c2-… --endpoint https://hooks.example.com/v2
  shush webhooks update 0195f3c2-… --events added`
	f := cmd.Flags()
	f.StringVar(&o.Endpoint, "endpoint", "", "the new endpoint URL")
	f.StringSliceVar(&o.Events, "events", nil, "the new events, comma-separated (replaces the list)")
	flagGiven(cmd, "endpoint", &o.EndpointGiven)
	flagGiven(cmd, "events", &o.EventsGiven)
	_ = cmd.RegisterFlagCompletionFunc("events", completeWords(api.EventSuppressionAdded, api.EventSuppressionRemoved))
	return cmd
}

func (a *app) webhooksStatusCommand(verb, status string) *cobra.Command {
	o := &webhooksStatusOptions{app: a, Status: status}
	cmd := command(o, verb+" ID", "Start sending a webhook's events again", oneArg("a webhook ID"), runWebhooksStatus, &o.Arg)
	cmd.Long = `Enable a webhook: changes from now on make deliveries again. The changes made
while it was disabled are not sent.`
	if status == api.WebhookDisabled {
		cmd.Short = "Stop sending a webhook's events, keeping it"
		cmd.Long = `Disable a webhook: changes make no deliveries until it is enabled again, and
its pending deliveries wait. The webhook, its secret and its deliveries are
kept.`
	}
	return cmd
}

type webhooksStatusOptions struct {
	*app
	Arg, Status string
}

// runWebhooksStatus enables or disables a webhook.
func runWebhooksStatus(ctx context.Context, o *webhooksStatusOptions) error {
	done := "Enabled"
	if o.Status == api.WebhookDisabled {
		done = "Disabled"
	}
	return o.updateWebhook(ctx, o.Arg, api.UpdateWebhookRequest{Status: &o.Status}, done)
}

// updateWebhook changes the webhook arg names as u says, and says so.
func (a *app) updateWebhook(ctx context.Context, arg string, u api.UpdateWebhookRequest, done string) error {
	return onWebhook(ctx, a, arg, func(c *client.Client, id string) (api.Webhook, error) { return c.UpdateWebhook(ctx, id, u) },
		func(id string, _ api.Webhook) error { return a.say("%s webhook %s.", done, safeText(id)) })
}

// withWebhook connects to the configured service for fn, a command about
// the webhook arg names. arg is checked first (webhookID), so that a URL
// or a secret given by mistake is never sent; fn gets the ID as checked.
func (a *app) withWebhook(ctx context.Context, arg string, fn func(conn *connection, id string) error) error {
	id, err := webhookID("webhook", arg)
	if err != nil {
		return err
	}
	return a.onService(ctx, func(conn *connection) error { return fn(conn, id) })
}

// onWebhook makes one call about the webhook arg names (withWebhook) and
// prints its answer: the API's JSON with --json (or off a terminal), else
// what human writes.
func onWebhook[T any](ctx context.Context, a *app, arg string, call func(c *client.Client, id string) (T, error), human func(id string, v T) error) error {
	return a.withWebhook(ctx, arg, func(conn *connection, id string) error {
		v, err := call(conn.Client, id)
		if err != nil {
			return webhookErr(conn, id, err)
		}
		return a.printOut(v, func(io.Writer) error { return human(id, v) })
	})
}

type webhooksRotateOptions struct {
	*app
	Arg string
}

func runWebhooksRotate(ctx context.Context, o *webhooksRotateOptions) error {
	return onWebhook(ctx, o.app, o.Arg, func(c *client.Client, id string) (api.Webhook, error) { return c.RotateWebhookSecret(ctx, id) },
		func(_ string, w api.Webhook) error {
			t := newTable(o.io.Out)
			t.row("id", w.ID)
			t.row("signing secret", w.SigningSecret)
			if err := t.flush(); err != nil {
				return err
			}
			fmt.Fprintln(o.io.ErrOut, "The old secret keeps signing deliveries beside the new one for 24 hours.")
			o.secretNotice(w.ID)
			return nil
		})
}

func (a *app) webhooksRotateCommand() *cobra.Command {
	o := &webhooksRotateOptions{app: a}
	cmd := command(o, "rotate ID", "Give a webhook a new signing secret and print it",
		oneArg("a webhook ID"), runWebhooksRotate, &o.Arg)
	cmd.Aliases = []string{"rotate-signing-secret"}
	cmd.Long = `Give a webhook a new signing secret and print it on stdout. For 24 hours
every delivery carries two signatures, by the new secret and by the old one,
so the receiver can take the new secret without missing a delivery.
--json prints the API's {"object":"webhook","id","signing_secret"}.`
	return cmd
}

type webhooksRemoveOptions struct {
	*app
	Arg string
	Yes bool
}

func runWebhooksRemove(ctx context.Context, o *webhooksRemoveOptions) error {
	// The ID is checked before the question names it (onWebhook's check
	// of it then passes).
	id, err := webhookID("webhook", o.Arg)
	if err != nil {
		return err
	}
	if ok, err := o.confirmRemoval(ctx, o.Yes, "webhook "+id); !ok {
		return err
	}
	return onWebhook(ctx, o.app, id, func(c *client.Client, id string) (api.Webhook, error) { return c.DeleteWebhook(ctx, id) },
		func(id string, _ api.Webhook) error { return o.say("Removed webhook %s.", safeText(id)) })
}

func (a *app) webhooksRemoveCommand() *cobra.Command {
	o := &webhooksRemoveOptions{app: a}
	cmd := command(o, "remove ID", "Delete a webhook and its pending deliveries",
		oneArg("a webhook ID"), runWebhooksRemove, &o.Arg)
	cmd.Aliases = []string{"rm", "delete"}
	cmd.Long = `Delete a webhook: its endpoint gets nothing more, and its deliveries (sent or
pending) are deleted with it. On a terminal shush asks first; elsewhere it
needs --yes. To pause it instead, use disable.`
	cmd.Flags().BoolVar(&o.Yes, "yes", false, "remove without asking")
	return cmd
}
