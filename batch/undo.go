package batch

import (
	"context"
	"fmt"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// Undo is what undoing a recorded run sends, and what it says beforehand.
//
//   - An addition is undone by removing, by ID, the entries the run itself
//     created (outcome added). Removing by ID is its own re-check: an
//     entry another client removed and added again since has another ID
//     and stays. Entries already listed before the run, and those whose
//     outcome was not established, are left as they are.
//   - A removal is undone by adding the removed addresses back with the
//     origin they had, through `entries`, where the service takes them
//     (shush's own service). The origin comes from the run's look-ups, else
//     from the service's audit trail; an entry whose origin is not known,
//     or a service that does not take origins, puts it back as manual, and
//     Manual counts them. An unverified removal (by address, without
//     look-ups) is put back too: one entry too many on a suppression list
//     is the safe side.
type Undo struct {
	Of RunInfo
	// Mode, Values and Restore are what the undo sends: the IDs to remove,
	// or the addresses to add back and the origins they come back with.
	Mode    Mode
	Values  []string
	Restore map[string]Restore
	// Emails maps each ID of an undo by ID to its address, for the
	// results.
	Emails map[string]string
	// Manual counts the entries that come back with origin manual.
	Manual int
	// Notes are the sentences to show before the undo is confirmed.
	Notes []string
}

// PlanUndo reads the recorded run id and plans its undo against this
// service, which must be the run's; Undo sends it.
func (rs *Runs) PlanUndo(ctx context.Context, id string) (Undo, error) {
	c := rs.Client
	var results []Result
	ri, err := rs.Read(id, func(rep Report) error {
		for _, x := range rep.Results {
			switch x.Outcome {
			case Added, Removed, Unverified:
				results = append(results, x)
			}
		}
		return nil
	})
	if err != nil {
		return Undo{}, err
	}
	if !client.SameTarget(ri.Target, c.BaseURL()) {
		return Undo{}, fmt.Errorf("run %s was sent to %s, not %s", ri.ID, client.TargetName(ri.Target), client.TargetName(c.BaseURL()))
	}
	if ri.Mode == Erase {
		return Undo{}, fmt.Errorf("run %s erased its addresses: an erasure cannot be undone, the service keeps no address to put back", ri.ID)
	}
	if ri.Mode == Add {
		return undoAddition(ri, results), nil
	}
	return undoRemoval(ctx, c, ri, results), nil
}

// undoAddition removes, by ID, the entries the run ri created.
func undoAddition(ri RunInfo, results []Result) Undo {
	u := Undo{Of: ri, Mode: RemoveIDs, Emails: map[string]string{}}
	unverified := 0
	for _, x := range results {
		if x.Outcome == Added && x.ID != "" {
			u.Values = append(u.Values, x.ID)
			u.Emails[x.ID] = x.Input
		} else {
			unverified++
		}
	}
	if n := ri.Counts[AlreadyListed]; n > 0 {
		u.Notes = append(u.Notes, fmt.Sprintf("%s already listed before the run %s.", count(n, "entry was", "entries were"), pluralVerb(n, "stays", "stay")))
	}
	if unverified > 0 {
		u.Notes = append(u.Notes, fmt.Sprintf("%s whose outcome was not established %s left as %s.", count(unverified, "entry", "entries"), pluralVerb(unverified, "is", "are"), pluralVerb(unverified, "it is", "they are")))
	}
	return u
}

// undoRemoval adds back, with their origins where known, the addresses
// the run ri removed.
func undoRemoval(ctx context.Context, c *client.Client, ri RunInfo, results []Result) Undo {
	u := Undo{Of: ri, Mode: Add}
	u.Restore = map[string]Restore{}
	noAddress := 0
	var unknown []Result
	for _, x := range results {
		if ri.Mode == RemoveIDs && x.Outcome == Unverified {
			continue
		}
		a := x.Address()
		if a == "" {
			noAddress++
			continue
		}
		u.Values = append(u.Values, a)
		if x.Origin != "" {
			u.Restore[a] = Restore{Origin: x.Origin, SourceID: x.SourceID, Note: x.Note}
		} else {
			unknown = append(unknown, x)
		}
	}
	u.Values = dedupe(u.Values)
	if noAddress > 0 {
		u.Notes = append(u.Notes, fmt.Sprintf("%s cannot be put back: the service did not name %s address.", count(noAddress, "removed ID", "removed IDs"), pluralVerb(noAddress, "its", "their")))
	}
	if len(u.Values) == 0 {
		return u
	}
	extended := TakesOrigins(ctx, c)
	if extended && len(unknown) > 0 {
		fromTrail(ctx, c, unknown, u.Restore)
	}
	if !extended {
		u.Restore = nil
		u.Manual = len(u.Values)
		u.Notes = append(u.Notes, fmt.Sprintf("%s will come back with origin manual: this service does not take an entry's origin.", count(u.Manual, "entry", "entries")))
		return u
	}
	for _, v := range u.Values {
		if to, ok := u.Restore[v]; !ok || to.Origin == "" || to.Origin == api.OriginManual {
			u.Manual++
		}
	}
	if n := u.Manual - manualBefore(u.Restore); n > 0 {
		u.Notes = append(u.Notes, fmt.Sprintf("%s will come back with origin manual: %s origin was not recorded.", count(n, "entry", "entries"), pluralVerb(n, "its", "their")))
	}
	return u
}

// manualBefore counts the entries that were manual before their removal
// (they come back as they were, which is no loss).
func manualBefore(restore map[string]Restore) int {
	n := 0
	for _, to := range restore {
		if to.Origin == api.OriginManual {
			n++
		}
	}
	return n
}

// TakesOrigins reports whether the service is shush's own: it keeps the
// audit trail, and takes batch add's `entries` with their origins (the
// hosted service lists every addition as manual).
func TakesOrigins(ctx context.Context, c *client.Client) bool {
	_, err := c.Audit(ctx, client.AuditParams{Limit: 1})
	return err == nil
}

// fromTrail finds in the service's audit trail the origin each removed
// entry had, one request per entry; what it cannot find stays unknown.
func fromTrail(ctx context.Context, c *client.Client, removed []Result, into map[string]Restore) {
	for _, x := range removed {
		ref := x.ID
		if ref == "" {
			ref = x.Address()
		}
		page, err := c.SuppressionAudit(ctx, ref, client.AuditParams{Limit: 1, Type: api.AuditRemoved})
		if err != nil || len(page.Data) == 0 {
			continue
		}
		e := page.Data[0].Suppression
		to := Restore{Origin: e.Origin}
		if e.SourceID != nil {
			to.SourceID = *e.SourceID
		}
		if e.Note != nil {
			to.Note = *e.Note
		}
		into[x.Address()] = to
	}
}

func dedupe(values []string) []string {
	seen := make(map[string]bool, len(values))
	out := values[:0]
	for _, v := range values {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func pluralVerb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
