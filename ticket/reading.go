package ticket

import (
	"slices"

	"github.com/shushlist/shush/api"
)

// Reading is what the rule makes of a ticket, as `shush ticket read`
// prints it: the mode it proposes, its targets (addresses, or suppression
// IDs for remove_ids), what it leaves out and why, the requester, the
// reference, and the lines that informed the proposal.
type Reading struct {
	Mode      Mode       `json:"mode"`
	Targets   []string   `json:"targets"`
	LeftOut   []Left     `json:"left_out"`
	Requester *string    `json:"requester"`
	Reference *Reference `json:"reference"`
	Evidence  []Said     `json:"evidence"`
	// Proposal is the whole proposal (the words and line that decided,
	// what the agent must settle).
	Proposal Proposal `json:"-"`
}

// Left is an address the proposal leaves out, why, and the line that
// decided.
type Left struct {
	Value  string `json:"value"`
	Reason string `json:"reason"`
	Line   int    `json:"line"`
}

// Reading weighs the ticket for our own addresses own. Its targets are
// what a batch of the proposed mode sends (for check and unsure, whom the
// ticket names as targets either way).
func (t *Ticket) Reading(own Own) Reading {
	p := t.Propose(own)
	r := Reading{Mode: p.Mode, Proposal: p, Evidence: p.Evidence, Targets: []string{}, LeftOut: []Left{}}
	if r.Evidence == nil {
		r.Evidence = []Said{}
	}

	if t.HasReference {
		ref := t.Reference
		r.Reference = &ref
	}
	roles := t.Roles(own)
	t.sortAddresses(&r, roles)
	if p.Mode == ModeRemoveIDs {
		r.Targets = t.targetIDs(own)
		r.LeftOut = append(r.LeftOut, t.idsLeft(r.Targets, roles)...)
	}
	if p.Mode == ModeCheck && r.Requester != nil {
		r.Targets, r.LeftOut = t.checkOthers(r, roles[*r.Requester])
	}
	return r
}

// sortAddresses puts each address of the ticket among the reading's
// targets or what it leaves out, by its role in a batch of the proposed
// mode, and notes the requester.
func (t *Ticket) sortAddresses(r *Reading, roles map[string]Decision) {
	dir := r.Mode.direction()
	for _, v := range t.order {
		d := roles[v]
		if d.Requester && r.Requester == nil {
			req := v
			r.Requester = &req
		}
		if r.Mode == ModeAdd || r.Mode == ModeErase || r.Mode == ModeRemove {
			d = d.For(dir)
		}
		switch {
		case d.Leave:
			r.LeftOut = append(r.LeftOut, Left{Value: v, Reason: d.Text(), Line: d.By.Line})
		case r.Mode != ModeRemoveIDs:
			r.Targets = append(r.Targets, v)
		}
	}
}

// idsLeft is the suppression IDs the ticket names that a release of
// targets leaves, each once with why: another thing's ID, one the words
// keep, one whose place in the list they do not pick.
func (t *Ticket) idsLeft(targets []string, roles map[string]Decision) []Left {
	var out []Left
	seen := map[string]bool{}
	for _, id := range t.ids {
		v, err := api.NormalizeID(id.value)
		if err != nil || seen[v] || slices.Contains(targets, v) {
			continue
		}
		seen[v] = true
		if d, ok := roles[v]; ok && d.Leave {
			out = append(out, Left{Value: v, Reason: d.Text(), Line: d.By.Line})
		}
	}
	return out
}

// checkOthers leaves the requester out of a check whose words name the
// addresses it asks about and not the requester's ("is my email blocked?
// the one on my account is jellis.lifts@…, not the work one"): the
// question is about those.
func (t *Ticket) checkOthers(r Reading, d Decision) ([]string, []Left) {
	req := *r.Requester
	if !slices.Contains(r.Targets, req) || d.Reason == ReasonRequesterNames || d.Reason == ReasonAnsweredAll || len(r.Targets) < 2 {
		return r.Targets, r.LeftOut
	}
	targets := slices.DeleteFunc(slices.Clone(r.Targets), func(v string) bool { return v == req })
	return targets, append(r.LeftOut, Left{Value: req, Reason: ReasonCheckOthers, Line: d.By.Line})
}

// targetIDs are the suppression IDs the deciding mails' words name, in
// order, each once, but for one the words say to keep wherever it was
// listed ("please leave the third one (0c5b…) as it is" under the list):
// Roles leaves it out, so the proposal does too.
func (t *Ticket) targetIDs(own Own) []string {
	w := t.weigh(own)
	out := []string{}
	seen := map[string]bool{}
	for _, id := range t.ids {
		v, err := api.NormalizeID(id.value)
		if _, kept := t.keptIDs[v]; kept {
			continue
		}
		if _, kept := w.ordinalKept[v]; kept {
			continue
		}
		if err == nil && w.targets[id.msg] && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
