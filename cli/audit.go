package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/server/store"
)

type auditOptions struct {
	*app
	Params client.AuditParams
	Paging paging
}

// runAudit prints a page of the trail (or all of it), narrowed by the
// flags.
func runAudit(ctx context.Context, o *auditOptions) error {
	p := o.Params
	if p.Email != "" {
		e, err := api.NormalizeEmail(p.Email)
		if err != nil {
			return usagef("--email: %s is not a valid email address: %v", api.Quote(p.Email), err)
		}
		p.Email = e
	}
	if p.Reference != "" {
		if err := api.ValidReference(p.Reference); err != nil {
			return usagef("--reference: %v", err)
		}
	}
	switch p.Type {
	case "", api.AuditAdded, api.AuditRemoved:
	case "added", "removed":
		p.Type = "suppression." + p.Type
	default:
		return usagef("--type must be added or removed (suppression.added, suppression.removed), not %s", api.Quote(p.Type))
	}
	return o.onService(ctx, func(conn *connection) error {
		return o.printAudit(ctx, conn, p, o.Paging)
	})
}

func (a *app) auditCommand() *cobra.Command {
	o := &auditOptions{app: a}
	cmd := commandPaging(o, &o.Paging, "audit", "Who changed the list, when, and under which reference",
		noArgs, runAudit)
	cmd.Long = `Read the service's audit trail, newest first: every suppression a change put
on or took off the list, who made it (the agent, in the UI over SSH, or the
key, by name) and the reference the change carried (a ticket number or URL,
from --reference or the UI's ticket field). Narrow it with --email, --reference or --type; --all follows
every page. The trail is kept by shush's own service; the hosted service
has none.

Keep it from growing for ever with "shush audit prune" on the service's
database.`
	cmd.Example = `  shush audit --email bob@example.com
  shush audit --reference '#48213' --json
  shush audit --type suppression.removed --all --jq '.data[].suppression.email'`
	f := cmd.Flags()
	f.StringVar(&o.Params.Email, "email", "", "only this address's changes (also after its removal)")
	f.StringVar(&o.Params.Reference, "reference", "", "only the changes made under this reference")
	f.StringVar(&o.Params.Type, "type", "", "only added or removed")
	o.Paging.flags(f, "audit entry", "entries", false)
	_ = cmd.RegisterFlagCompletionFunc("type", completeWords("added", "removed"))
	cmd.AddCommand(a.auditPruneCommand())
	return cmd
}

func (a *app) printAudit(ctx context.Context, conn *connection, p client.AuditParams, pg paging) error {
	p.Limit = pg.limit
	entries, more, err := collectPages(pg.after, pg.all, func(after string) ([]api.AuditEntry, bool, error) {
		p.After = after
		page, err := conn.Client.Audit(ctx, p)
		if err != nil {
			if client.IsNotFound(err) || client.IsUnsupported(err) {
				return nil, false, fmt.Errorf("%s keeps no audit trail (only shush's own service does): %w", conn.Target, err)
			}
			return nil, false, err
		}
		return page.Data, page.HasMore, nil
	}, func(e api.AuditEntry) string { return e.ID })
	if err != nil {
		return err
	}
	return listing[api.AuditEntry]{
		columns: []string{"WHEN (UTC)", "CHANGE", "EMAIL", "ORIGIN", "BY", "REFERENCE"},
		row: func(e api.AuditEntry) []string {
			by := e.By()
			ref := "-"
			if e.Reference != nil {
				ref = *e.Reference
			}
			return []string{e.CreatedAt.UTC().Format(utc), strings.TrimPrefix(e.Type, "suppression."),
				e.Suppression.Email, string(e.Suppression.Origin), by, ref}
		},
		none: "(no changes in the trail)",
		more: func(shown []api.AuditEntry) string { return readOn("entries", shown[len(shown)-1].ID) },
	}.print(a, a.output().json, api.AuditList{Object: api.ObjectList, HasMore: more, Data: entries}, entries, more)
}

type auditPruneOptions struct {
	*app
	DB, OlderThan, Before string
	Yes                   bool
}

// runAuditPrune deletes the trail (and the webhook events done with)
// older than the cut, on the database of --db.
func runAuditPrune(ctx context.Context, o *auditPruneOptions) error {
	cut, err := pruneCut(o.OlderThan, o.Before, time.Now())
	if err != nil {
		return err
	}
	if !o.Yes {
		q := fmt.Sprintf("Delete every audit entry older than %s?", cut.UTC().Format(time.RFC3339))
		if ok, err := o.confirm(ctx, false, false, q); !ok {
			return err
		}
	}
	st, where, err := openStore(ctx, o.DB)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := st.PruneAudit(ctx, cut)
	if err != nil {
		return fmt.Errorf("prune the trail of %s: %w", where, err)
	}
	m, err := st.PruneWebhookEvents(ctx, cut)
	if err != nil {
		return fmt.Errorf("prune the webhook deliveries of %s: %w", where, err)
	}
	var in int64
	if p, ok := st.(store.IntakePruner); ok {
		if in, err = p.PruneIntakeEvents(ctx, cut); err != nil {
			return fmt.Errorf("prune the intake's events of %s: %w", where, err)
		}
	}
	return o.printDone(map[string]any{"audit_entries": n, "webhook_events": m, "intake_events": in, "before": cut.UTC().Format(time.RFC3339)},
		"Deleted %s, %s and %s older than %s from %s.", plural(int(n), "audit entry", "audit entries"),
		plural(int(m), "delivered or given-up webhook event", "delivered or given-up webhook events"),
		plural(int(in), "event the intake took in", "events the intake took in"), cut.UTC().Format(time.RFC3339), where)
}

func (a *app) auditPruneCommand() *cobra.Command {
	o := &auditPruneOptions{app: a}
	cmd := command(o, "prune (--older-than DURATION | --before DATE)", "Delete the trail's entries older than a cut (on the service's database)",
		noArgs, runAuditPrune)
	cmd.Long = `Delete the audit trail's entries older than a cut, for every team, on the
service's database (--db, as for keys), with the webhook events of that age
that were delivered or given up (and their attempts); events still waiting
for delivery stay; and the provider events the intake took in before the
cut (a replay of one is then taken in again; a cut older than the teams'
soft-bounce windows changes no count). The list itself is untouched. Run it
from cron or a systemd timer to keep, say, a year:

  shush audit prune --older-than 365d --yes --db "$SHUSH_DB"

--older-than takes days (365d), hours (72h) or any Go duration; --before
takes a date (2026-01-31) or an RFC 3339 time. It deletes 10,000 rows per
transaction, so a long trail never holds the database for long.`
	f := cmd.Flags()
	f.StringVar(&o.OlderThan, "older-than", "", "age of the entries to delete: 365d, 72h, …")
	f.StringVar(&o.Before, "before", "", "delete the entries before this date (2026-01-31) or RFC 3339 time")
	f.BoolVar(&o.Yes, "yes", false, "delete without asking")
	dbFlag(cmd, &o.DB)
	return cmd
}

// pruneCut reads the cut of audit prune: exactly one of an age and a date.
func pruneCut(olderThan, before string, now time.Time) (time.Time, error) {
	switch {
	case olderThan != "" && before != "":
		return time.Time{}, usagef("give --older-than or --before, not both")
	case olderThan != "":
		d, err := parseAge(olderThan)
		if err != nil {
			return time.Time{}, usagef("--older-than: %v", err)
		}
		return now.Add(-d), nil
	case before != "":
		if t, err := time.Parse(time.RFC3339, before); err == nil {
			return t, nil
		}
		t, err := time.Parse("2006-01-02", before)
		if err != nil {
			return time.Time{}, usagef("--before: %s is neither a date (2026-01-31) nor an RFC 3339 time", api.Quote(before))
		}
		return t, nil
	}
	return time.Time{}, usagef("audit prune needs --older-than (365d) or --before (2026-01-31)")
}

// parseAge reads a duration that may be given in days ("365d").
func parseAge(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		var days int
		if _, err := fmt.Sscanf(n, "%d", &days); err != nil || days < 1 || fmt.Sprint(days) != n {
			return 0, fmt.Errorf("%s is not a whole number of days", api.Quote(s))
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, errors.New(api.Quote(s) + " is not an age like 365d or 72h")
	}
	return d, nil
}
