package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

func (a *app) intakeCommand() *cobra.Command {
	return group("intake", "Take in every provider's bounces and complaints; decide the doubtful ones", `The list fills itself: an intake endpoint takes a provider's signed webhook
events (Resend, SendGrid, Postmark, Mailgun, Amazon SES through SNS), checks
the provider's own signature before it trusts a byte, and lists permanent
bounces (origin bounce) and complaints (origin complaint), each with its
evidence: the provider, the event's ID, the message, the status code, the
remote server's words. Temporary failures are counted: the team's policy
(shush team set --soft-bounce-*, default 3 within 7 days) lists the address
for a while. Auto-replies are ignored. What the rules cannot place (a 5.7.x
policy block, an undetermined bounce, a protected address, a group
unsubscribe) waits in the review queue for an agent: shush intake review,
shush intake decide, or the Intake screen of the terminal UI.

A provider posts to the endpoint's URL without an API key; give it the URL
that create prints (shush serve --public-url sets its host). Raw bounce mail
goes in with shush bounces ingest.`,
		a.intakeCreateCommand(), a.intakeListCommand(), a.intakeDeleteCommand(),
		a.intakeReviewCommand(), a.intakeDecideCommand())
}

// intakeErr says what a refusal means for an intake command (nil stays
// nil).
func intakeErr(conn *connection, id string, err error) error {
	var ae *api.Error
	// shush's own answer names what it did not find ("Intake endpoint not
	// found", "Review item not found"): the ID is wrong, not the service.
	named := errors.As(err, &ae) && (strings.Contains(strings.ToLower(ae.Message), "intake") || strings.Contains(strings.ToLower(ae.Message), "review"))
	switch {
	case client.IsNotFound(err) && id != "" && named:
		return fmt.Errorf("no intake endpoint or review item has the ID %s on %s: %w", api.Quote(id), conn.Target, err)
	case client.IsUnsupported(err):
		return fmt.Errorf("%s has no intake (shush serve has): %w", conn.Target, err)
	case client.IsNotFound(err) && id != "":
		return fmt.Errorf("no intake endpoint or review item has the ID %s on %s: %w", api.Quote(id), conn.Target, err)
	}
	return err
}

// providerHelp says where a provider takes the endpoint's URL.
var providerHelp = map[string]string{
	api.ProviderResend:   "In Resend: Webhooks, Add Endpoint: this URL, events email.bounced, email.complained (email.delivery_delayed counts toward the soft-bounce threshold).",
	api.ProviderSendGrid: "In SendGrid: Settings, Mail Settings, Event Webhook: this URL, Signed Event Webhook on, events Bounced, Blocked, Dropped, Deferred, Spam Reports, Unsubscribes.",
	api.ProviderPostmark: "In Postmark: the stream's Webhooks: https://USER:PASSWORD@ and this URL without https:// (the basic auth given here), events Bounce, Spam Complaint, Subscription Change.",
	api.ProviderMailgun:  "In Mailgun: Sending, Webhooks: this URL for Permanent Failure, Temporary Failure, Spam Complaints, Unsubscribes.",
	api.ProviderSES:      "In Amazon SNS: subscribe this URL (HTTPS, raw message delivery off) to the topic SES sends bounces and complaints to; the subscription is confirmed by itself.",
}

// credentialFlag reads a credential flag's value; "-" reads it from the
// first line of stdin, out of the process list.
func (a *app) credentialFlag(name, v string) (string, error) {
	if v != "-" {
		return v, nil
	}
	line, err := a.stdinLine()
	if err != nil {
		return "", usagef("%s -: stdin could not be read: %v", name, err)
	}
	if line == "" {
		return "", usagef("%s -: the first line of stdin is empty", name)
	}
	return line, nil
}

type intakeCreateOptions struct {
	*app
	Request api.CreateIntakeRequest
}

func runIntakeCreate(ctx context.Context, o *intakeCreateOptions) error {
	o.Request.Provider = strings.ToLower(strings.TrimSpace(o.Request.Provider))
	if _, ok := providerHelp[o.Request.Provider]; !ok {
		return usagef("--provider must be one of %s, not %s", strings.Join(api.Providers(), ", "), safeText(api.Quote(o.Request.Provider)))
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"--secret", &o.Request.Secret}, {"--public-key", &o.Request.PublicKey}, {"--basic-auth", &o.Request.BasicAuth}} {
		v, err := o.credentialFlag(f.name, *f.dst)
		if err != nil {
			return err
		}
		*f.dst = v
	}
	if err := api.ValidIntakeName(o.Request.Name); err != nil {
		return usagef("--name: %v", err)
	}
	return callService(ctx, o.app, func(c *client.Client) (api.Intake, error) { return c.CreateIntake(ctx, o.Request) },
		func(conn *connection, err error) error { return intakeErr(conn, "", err) },
		func(conn *connection, in api.Intake) error {
			t := newTable(o.io.Out)
			t.row("id", in.ID)
			t.row("provider", in.Provider)
			if in.Name != "" {
				t.row("name", in.Name)
			}
			t.row("url", in.URL)
			if in.TopicArn != "" {
				t.row("topic", in.TopicArn)
			}
			if err := t.flush(); err != nil {
				return err
			}
			fmt.Fprintln(o.io.ErrOut, providerHelp[in.Provider])
			if conn.Settings.Local() {
				fmt.Fprintf(o.io.ErrOut, "Providers reach this endpoint while a shush serve runs on %s's database, at its public address (serve --public-url).\n", conn.Target)
			}
			return nil
		})
}

func (a *app) intakeCreateCommand() *cobra.Command {
	o := &intakeCreateOptions{app: a}
	cmd := command(o, "create --provider P (--secret S | --public-key K | --basic-auth USER:PASS) [--name N] [--topic-arn ARN]", "Add an intake endpoint for a provider and print its URL",
		noArgs, runIntakeCreate)
	cmd.Aliases = []string{"add"}
	cmd.Long = `Add an intake endpoint for one provider of the team and print the URL to give
the provider. The credential is the provider's own:
  resend     --secret whsec_…       the endpoint's signing secret in Resend
  sendgrid   --public-key K         the Signed Event Webhook's verification key
  mailgun    --secret K             the HTTP webhook signing key
  postmark   --basic-auth USER:PASS credentials Postmark's webhook URL carries
  ses        (none)                 SNS signs with Amazon's certificate;
             --topic-arn ARN        accepts that topic only (else the first
                                    topic whose subscription it confirms)
The credential is never shown again. A value of - reads it from the first
line of stdin, out of the process list. --json prints the API's intake
object.`
	cmd.Example = `  shush intake create --provider resend --secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw --name prod
  shush intake create --provider postmark --basic-auth hook:$(openssl rand -hex 16)
  printf '%s\n' "$SENDGRID_KEY" | shush intake create --provider sendgrid --public-key -
  shush intake create --provider ses --topic-arn arn:aws:sns:us-east-1:123456789012:ses-bounces`
	f := cmd.Flags()
	f.StringVar(&o.Request.Provider, "provider", "", "resend, sendgrid, postmark, mailgun or ses")
	f.StringVar(&o.Request.Name, "name", "", "a name for the endpoint (shown in lists)")
	f.StringVar(&o.Request.Secret, "secret", "", "resend's signing secret or mailgun's signing key (- reads stdin)")
	f.StringVar(&o.Request.PublicKey, "public-key", "", "sendgrid's verification key (- reads stdin)")
	f.StringVar(&o.Request.BasicAuth, "basic-auth", "", "postmark's USER:PASSWORD (- reads stdin)")
	f.StringVar(&o.Request.TopicArn, "topic-arn", "", "ses: the only SNS topic to accept")
	_ = cmd.RegisterFlagCompletionFunc("provider", completeWords(api.Providers()...))
	return cmd
}

type intakeListOptions struct {
	*app
}

func runIntakeList(ctx context.Context, o *intakeListOptions) error {
	return o.onService(ctx, func(conn *connection) error {
		list, err := conn.Client.Intakes(ctx)
		if err != nil {
			return intakeErr(conn, "", err)
		}
		return listing[api.Intake]{
			columns: []string{"ID", "PROVIDER", "NAME", "URL", "CREATED (UTC)"},
			row: func(in api.Intake) []string {
				created := ""
				if in.CreatedAt != nil {
					created = in.CreatedAt.UTC().Format(utc)
				}
				return []string{in.ID, in.Provider, in.Name, in.URL, created}
			},
			noneHint: "No intake endpoints yet; add one with: shush intake create --provider P …",
		}.print(o.app, o.output().json, list, list.Data, false)
	})
}

func (a *app) intakeListCommand() *cobra.Command {
	o := &intakeListOptions{app: a}
	cmd := command(o, "list", "List the team's intake endpoints", noArgs, runIntakeList)
	cmd.Aliases = []string{"ls"}
	cmd.Long = `List the team's intake endpoints, oldest first: ID, provider, name, URL. Never their credentials.`
	return cmd
}

type intakeDeleteOptions struct {
	*app
	Arg string
}

func runIntakeDelete(ctx context.Context, o *intakeDeleteOptions) error {
	id, err := api.NormalizeID(o.Arg)
	if err != nil {
		return usagef("%s is not an intake endpoint ID (see shush intake list)", safeText(api.Quote(o.Arg)))
	}
	return callService(ctx, o.app, func(c *client.Client) (api.Intake, error) { return c.DeleteIntake(ctx, id) },
		func(conn *connection, err error) error { return intakeErr(conn, id, err) },
		func(_ *connection, in api.Intake) error { return o.say("Deleted intake endpoint %s.", safeText(in.ID)) })
}

func (a *app) intakeDeleteCommand() *cobra.Command {
	o := &intakeDeleteOptions{app: a}
	cmd := command(o, "delete ID", "Delete an intake endpoint",
		oneArg("an intake endpoint ID"), runIntakeDelete, &o.Arg)
	cmd.Aliases = []string{"remove", "rm"}
	cmd.Long = `Delete an intake endpoint: its provider's events are refused (404) from now on. The entries and review items it brought stay.`
	return cmd
}

type intakeReviewOptions struct {
	*app
	Paging  paging
	Decided bool
}

func runIntakeReview(ctx context.Context, o *intakeReviewOptions) error {
	return o.onService(ctx, func(conn *connection) error {
		items, more, err := collectPages(o.Paging.after, o.Paging.all, func(after string) ([]api.ReviewItem, bool, error) {
			page, err := conn.Client.Review(ctx, client.ReviewParams{WebhookParams: client.WebhookParams{Limit: o.Paging.limit, After: after, Before: o.Paging.before}, Decided: o.Decided})
			return page.Data, page.HasMore, intakeErr(conn, "", err)
		}, func(it api.ReviewItem) string { return it.ID })
		if err != nil {
			return err
		}
		hint := "No events wait for a decision."
		if o.Decided {
			hint = "No events were decided yet."
		}
		err = listing[api.ReviewItem]{
			columns: []string{"ID", "RECEIVED (UTC)", "PROVIDER", "EMAIL", "STATUS", reviewLastColumn(o.Decided)},
			row: func(it api.ReviewItem) []string {
				last := it.Reason
				if o.Decided {
					last = it.Decision + " by " + it.DecidedBy
				}
				return []string{it.ID, it.ReceivedAt.UTC().Format(utc), it.Provider, it.Email, orDash(it.Evidence.Status), last}
			},
			noneHint: hint,
			more:     func(shown []api.ReviewItem) string { return readOn("events", shown[len(shown)-1].ID) },
		}.print(o.app, o.output().json, api.ReviewList{Object: api.ObjectList, HasMore: more, Data: items}, items, more)
		if err == nil && !o.output().json && len(items) > 0 && !o.Decided {
			fmt.Fprintln(o.io.ErrOut, "Decide with: shush intake decide ID suppress|ignore")
		}
		return err
	})
}

func (a *app) intakeReviewCommand() *cobra.Command {
	o := &intakeReviewOptions{app: a}
	cmd := commandPaging(o, &o.Paging, "review", "List the events waiting for an agent's decision",
		noArgs, runIntakeReview)
	cmd.Long = `List the events the rules could not place, newest first: the address, the
provider, the status code and the reason it waits, with the remote server's
words. Decide each with shush intake decide ID suppress|ignore, or in the
terminal UI's Intake screen. --decided lists those decided, by whom. --json
prints the API's list.`
	cmd.Example = "  shush intake review\n  shush intake review --json --jq '.data[] | [.id, .email, .evidence.status] | @tsv'"
	o.Paging.flags(cmd.Flags(), "review item", "events", true)
	cmd.Flags().BoolVar(&o.Decided, "decided", false, "list the events decided, not those waiting")
	return cmd
}

func reviewLastColumn(decided bool) string {
	if decided {
		return "DECISION"
	}
	return "WHY IT WAITS"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

type intakeDecideOptions struct {
	*app
	Arg, Decision, Note, Reference string
}

func runIntakeDecide(ctx context.Context, o *intakeDecideOptions) error {
	id, err := api.NormalizeID(o.Arg)
	if err != nil {
		return usagef("%s is not a review item ID (see shush intake review)", safeText(api.Quote(o.Arg)))
	}
	if err := api.ValidNote(o.Note); err != nil {
		return usagef("--note: %v", err)
	}
	ctx, err = withReference(ctx, o.Reference)
	if err != nil {
		return err
	}
	return callService(ctx, o.app, func(c *client.Client) (api.ReviewItem, error) { return c.Decide(ctx, id, o.Decision, o.Note) },
		func(conn *connection, err error) error { return decideErr(conn, id, err) },
		func(_ *connection, it api.ReviewItem) error {
			if it.Decision == api.ReviewSuppress {
				fmt.Fprintf(o.io.Out, "Suppressed %s (entry %s), by %s.\n", safeText(it.Email), safeText(it.EntryID), safeText(it.DecidedBy))
			} else {
				fmt.Fprintf(o.io.Out, "Ignored the event of %s, by %s; nothing was listed.\n", safeText(it.Email), safeText(it.DecidedBy))
			}
			return nil
		})
}

// decideArgs wants the two arguments of intake decide: an ID and the
// decision, suppress or ignore.
func decideArgs(_ *cobra.Command, args []string) error {
	if len(args) != 2 {
		return usagef("intake decide needs an ID and a decision (suppress or ignore)")
	}
	if args[1] != api.ReviewSuppress && args[1] != api.ReviewIgnore {
		return usagef("the decision must be suppress or ignore, not %s", safeText(api.Quote(args[1])))
	}
	return nil
}

func (a *app) intakeDecideCommand() *cobra.Command {
	o := &intakeDecideOptions{app: a}
	cmd := command(o, "decide ID suppress|ignore", "Decide an event of the review queue",
		decideArgs, runIntakeDecide, &o.Arg, &o.Decision)
	cmd.Long = `Decide an event the rules could not place: suppress lists its address with the
event's evidence (origin bounce, complaint or manual, as the event says),
ignore lists nothing. The decision names your key (or your agent over SSH)
and --reference in the trail. Deciding again the same way changes nothing;
the other way is refused. A protected address cannot be suppressed.`
	cmd.Example = "  shush intake decide 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a suppress --note 'checked: the mailbox is gone'\n  shush intake decide 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a ignore"
	cmd.Flags().StringVar(&o.Note, "note", "", "why, kept with the entry and the decision")
	referenceFlag(cmd, &o.Reference)
	return cmd
}

// decideErr says what a refused decision means.
func decideErr(conn *connection, id string, err error) error {
	var ae *api.Error
	if errors.As(err, &ae) && ae.StatusCode == http.StatusUnprocessableEntity {
		return fmt.Errorf("%s", ae.Message)
	}
	return intakeErr(conn, id, err)
}

// evidenceRows adds an entry's evidence to a table of its fields.
func evidenceRows(t *table, ev *api.Evidence) {
	if ev == nil {
		return
	}
	t.row("Evidence:", ev.Kind+" from "+ev.Provider)
	for _, f := range [][2]string{{"Event:", ev.EventID}, {"Message:", ev.MessageID}, {"Status:", ev.Status},
		{"Diagnostic:", ev.Diagnostic}, {"Reporting MTA:", ev.ReportingMTA}} {
		if f[1] != "" {
			t.row(f[0], f[1])
		}
	}
	if ev.ReportedAt != nil {
		t.row("Reported:", ev.ReportedAt.UTC().Format("2006-01-02 15:04:05.000 UTC"))
	}
}
