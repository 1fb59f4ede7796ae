package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// The deliveries of a webhook: where its events stand, one event's
// attempts, and a replay.

// eventDoc is what deliveries --event prints under --json: the API's
// event and the API's page of its attempts.
type eventDoc struct {
	Event    api.WebhookEvent       `json:"event"`
	Attempts api.WebhookAttemptList `json:"attempts"`
}

type deliveriesOptions struct {
	*app
	Webhook, Event string
	Paging         paging
}

// runDeliveries lists a webhook's events, or one event's attempts.
func runDeliveries(ctx context.Context, o *deliveriesOptions) error {
	var evID string
	if o.Event != "" {
		id, err := webhookID("event", o.Event)
		if err != nil {
			return err
		}
		evID = id
	}
	return o.withWebhook(ctx, o.Webhook, func(conn *connection, id string) error {
		if evID != "" {
			return o.printEvent(ctx, conn, id, evID, o.Paging)
		}
		return o.printEvents(ctx, conn, id, o.Paging)
	})
}

func (a *app) webhooksDeliveriesCommand() *cobra.Command {
	o := &deliveriesOptions{app: a}
	cmd := commandPaging(o, &o.Paging, "deliveries ID [--event EVENT_ID]", "Where a webhook's deliveries stand; one event's attempts",
		oneArg("a webhook ID"), runDeliveries, &o.Webhook)
	cmd.Aliases = []string{"events"}
	cmd.Long = `List a webhook's events, newest first, each with its status: pending (not
tried yet), attempting (failed so far, a retry is scheduled), success, or
failed (given up). --event shows one event: its payload, when it is next
tried, and every attempt with the endpoint's status code (0 when it could not
be reached) and the start of its answer.

--json prints the API's list of events; with --event,
{"event":{…},"attempts":{"object":"list","has_more","data":[…]}}.`
	cmd.Example = `  shush webhooks deliveries 0195f3c2-…
  shush webhooks deliveries 0195f3c2-… --jq '.data[] | select(.status == "failed") | .id'
  shush webhooks deliveries 0195f3c2-… --event 0195f3d0-…`
	f := cmd.Flags()
	f.StringVar(&o.Event, "event", "", "show this event with its attempts")
	o.Paging.flags(f, "event (or attempt)", "events (or attempts)", false)
	return cmd
}

func (a *app) printEvents(ctx context.Context, conn *connection, id string, pg paging) error {
	events, more, err := collectPages(pg.after, pg.all, func(after string) ([]api.WebhookEvent, bool, error) {
		page, err := conn.Client.WebhookEvents(ctx, id, pg.limit, after)
		return page.Data, page.HasMore, webhookErr(conn, id, err)
	}, func(e api.WebhookEvent) string { return e.ID })
	if err != nil {
		return err
	}
	return listing[api.WebhookEvent]{
		columns: []string{"EVENT ID", "TYPE", "STATUS", "CREATED (UTC)"},
		row: func(e api.WebhookEvent) []string {
			return []string{e.ID, e.Type, e.Status, e.CreatedAt.UTC().Format(utc)}
		},
		noneHint: "No deliveries yet: a change to the list makes one per enabled webhook that lists its event.",
		more:     func(shown []api.WebhookEvent) string { return readOn("events", shown[len(shown)-1].ID) },
	}.print(a, a.output().json, api.WebhookEventList{Object: api.ObjectList, HasMore: more, Data: events}, events, more)
}

func (a *app) printEvent(ctx context.Context, conn *connection, id, evID string, pg paging) error {
	ev, err := conn.Client.WebhookEvent(ctx, id, evID)
	if err != nil {
		return webhookErr(conn, id, err)
	}
	attempts, more, err := collectPages(pg.after, pg.all, func(after string) ([]api.WebhookAttempt, bool, error) {
		page, err := conn.Client.WebhookAttempts(ctx, id, evID, pg.limit, after)
		return page.Data, page.HasMore, webhookErr(conn, id, err)
	}, func(at api.WebhookAttempt) string { return at.ID })
	if err != nil {
		return err
	}
	doc := eventDoc{Event: ev, Attempts: api.WebhookAttemptList{Object: api.ObjectList, HasMore: more, Data: attempts}}
	if a.output().json {
		return writeJSON(a.io.Out, doc)
	}
	next := "-"
	if ev.NextAttemptAt != nil {
		next = ev.NextAttemptAt.UTC().Format(utc)
	}
	t := newTable(a.io.Out)
	t.row("event", ev.ID)
	t.row("type", ev.Type)
	t.row("status", ev.Status)
	t.row("created (UTC)", ev.CreatedAt.UTC().Format(utc))
	t.row("next attempt (UTC)", next)
	t.row("payload", compactJSON(ev.Payload))
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintln(a.io.Out)
	return listing[api.WebhookAttempt]{
		columns: []string{"SENT (UTC)", "STATUS", "RESPONSE"},
		row: func(at api.WebhookAttempt) []string {
			code := strconv.Itoa(at.HTTPStatusCode)
			if at.HTTPStatusCode == 0 {
				code = "no answer"
			}
			return []string{at.SentAt.UTC().Format(utc), code, oneLine(at.Response, 80)}
		},
		none: "(no attempts yet)",
		more: func(shown []api.WebhookAttempt) string { return readOn("attempts", shown[len(shown)-1].ID) },
	}.print(a, false, nil, attempts, more)
}

// compactJSON shows a payload on one line, its keys in the order sent;
// what is not JSON shows as it came (the table cleans it either way).
func compactJSON(b []byte) string {
	if len(b) == 0 {
		return "-"
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return string(b)
	}
	return buf.String()
}

// oneLine folds an endpoint's answer onto one line of at most max runes.
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "-"
	}
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

// replayArgs wants the two arguments of webhooks replay: a webhook ID and
// an event ID.
func replayArgs(cmd *cobra.Command, args []string) error {
	if len(args) != 2 {
		return usagef("%s needs a webhook ID and an event ID, got %d arguments", cmd.CommandPath(), len(args))
	}
	return nil
}

func (a *app) webhooksReplayCommand() *cobra.Command {
	o := &replayOptions{app: a}
	cmd := command(o, "replay ID EVENT_ID", "Send one event of a webhook once more",
		replayArgs, runReplay, &o.Webhook, &o.Event)
	cmd.Long = `Send one event of a webhook once more, with the same body and event ID (a
receiver that keeps the IDs it has seen skips a repeat), whatever its status.
It is one attempt: no retries follow if it fails. The webhook must be
enabled. See the result with: shush webhooks deliveries ID --event EVENT_ID`
	return cmd
}

type replayOptions struct {
	*app
	Webhook, Event string
}

// runReplay sends one event of a webhook once more.
func runReplay(ctx context.Context, o *replayOptions) error {
	evID, err := webhookID("event", o.Event)
	if err != nil {
		return err
	}
	replay := func(c *client.Client, id string) (api.WebhookEvent, error) {
		return c.ReplayWebhookEvent(ctx, id, evID)
	}
	return onWebhook(ctx, o.app, o.Webhook, replay, func(id string, _ api.WebhookEvent) error {
		return o.say("Event %s of webhook %s is queued for one more attempt.", safeText(evID), safeText(id))
	})
}
