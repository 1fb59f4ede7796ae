package ui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/batch"
)

// SyncPeer is another profile's list the UI may sync its own with (from
// History, key S): shush sync's plan, as a review, and its apply.
type SyncPeer struct {
	// Name is the profile's name, Label where its list is.
	Name, Label string
	// Open connects to it: the run service of its list (its client
	// within), and what releases it. Its key goes only to its own service.
	Open func(ctx context.Context) (*batch.Runs, func() error, error)
}

// syncView is History's sync: the peer chosen, the plan read, the
// direction chosen, and the apply's outcome. It takes the keys while it
// is open (typing mode: p, l and b are its own), and while it reads or
// applies nothing leaves it.
type syncView struct {
	c     *Common
	keys  syncKeys
	peers []SyncPeer
	peer  int
	stage syncStage
	// What was read and planned, and the other side's run service.
	plan  batch.SyncPlan
	rec   *batch.SyncRecord
	here  batch.SyncSide
	there batch.SyncSide
	close func() error
	dir   batch.Direction
	// confirming asks before an apply that removes.
	confirming bool
	lines      []string
	top        int
	status     string
	runs       []batch.SyncRun
	err        error
}

type syncStage int

const (
	syncChoose syncStage = iota
	syncReading
	syncPlanned
	syncApplying
	syncDone
)

type syncKeys struct{ Move, Choose, Push, Pull, Both, Apply, Back, Yes, No key.Binding }

func newSyncView(c *Common, peers []SyncPeer) *syncView {
	return &syncView{c: c, peers: peers, keys: syncKeys{
		Move:   kbh("↑/↓", "move", "up", "down", "pgup", "pgdown"),
		Choose: kbh("enter", "compare", "enter"),
		Push:   kbh("p", "push: add here's new there", "p"),
		Pull:   kbh("l", "pull: add there's new here", "l"),
		Both:   kbh("b", "both ways, removals too", "b"),
		Apply:  kbh("ctrl+s", "apply", "ctrl+s"),
		Back:   kbh("esc", "back to History", "esc"),
		Yes:    kbh("y", "yes", "y"),
		No:     kbh("n/enter", "no", "n", "enter", "esc"),
	}}
}

// busy says the view is reading or applying: no key leaves it.
func (s *syncView) busy() bool { return s.stage == syncReading || s.stage == syncApplying }

// syncReadMsg is both lists read and compared.
type syncReadMsg struct {
	plan  batch.SyncPlan
	rec   *batch.SyncRecord
	here  batch.SyncSide
	there batch.SyncSide
	close func() error
	left  int
	err   error
}

// syncDoneMsg is the apply's outcome.
type syncDoneMsg struct {
	runs []batch.SyncRun
	err  error
}

// read connects to the chosen peer, reads both lists and compares them
// with the record of their last sync.
func (s *syncView) read() tea.Cmd {
	s.stage, s.status = syncReading, ""
	peer, here := s.peers[s.peer], s.c.Runs
	return func() tea.Msg {
		ctx := context.Background()
		there, closeFn, err := peer.Open(ctx)
		if err != nil {
			return syncReadMsg{err: err}
		}
		msg := syncReadMsg{close: closeFn, here: batch.SyncSide{Runs: here}, there: batch.SyncSide{Runs: there}}
		if msg.rec, err = here.LoadSync(here.Client.BaseURL(), there.Client.BaseURL()); err != nil {
			msg.err = err
			return msg
		}
		if msg.left, err = batch.FinishCutOff(ctx, msg.rec, here, there, false); err != nil {
			msg.err = err
			return msg
		}
		if msg.here.Snap, err = batch.ReadList(ctx, here.Client, nil); err == nil {
			msg.there.Snap, err = batch.ReadList(ctx, there.Client, nil)
		}
		if err != nil {
			msg.err = fmt.Errorf("reading the lists: %w", err)
			return msg
		}
		var prev *batch.SyncRecord
		if msg.rec.Known() {
			prev = msg.rec
		}
		msg.plan = batch.CompareLists(msg.here.Snap, msg.there.Snap, prev)
		return msg
	}
}

// apply carries the plan out in the chosen direction.
func (s *syncView) apply() tea.Cmd {
	s.stage, s.confirming, s.status = syncApplying, false, ""
	plan, dir, rec, here, there := s.plan, s.dir, s.rec, s.here, s.there
	ref := "sync with " + s.peers[s.peer].Name
	return func() tea.Msg {
		runs, err := batch.ApplySync(context.Background(), plan, dir, rec, here, there, ref, nil)
		return syncDoneMsg{runs: runs, err: err}
	}
}

func (s *syncView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case syncReadMsg:
		s.release()
		s.plan, s.rec, s.here, s.there, s.close, s.err = msg.plan, msg.rec, msg.here, msg.there, msg.close, msg.err
		s.stage, s.top, s.dir = syncPlanned, 0, 0
		if msg.left > 0 {
			s.status = "An apply of this sync was cut off with entries left: shush sync --apply finishes it."
		}
		s.layout()
	case syncDoneMsg:
		s.runs, s.err, s.stage = msg.runs, msg.err, syncDone
		s.layout()
	case tea.KeyMsg:
		return s.key(msg)
	}
	return nil
}

// release lets go of the peer's connection of an earlier read.
func (s *syncView) release() {
	if s.close != nil {
		_ = s.close()
		s.close = nil
	}
}

func (s *syncView) key(msg tea.KeyMsg) tea.Cmd {
	switch {
	case s.busy() || msg.Paste:
		return nil
	case s.confirming:
		return s.confirm(msg)
	case s.stage == syncChoose:
		return s.choose(msg)
	}
	switch {
	case key.Matches(msg, s.keys.Push):
		s.direct(batch.Push)
	case key.Matches(msg, s.keys.Pull):
		s.direct(batch.Pull)
	case key.Matches(msg, s.keys.Both):
		s.direct(batch.Both)
	case key.Matches(msg, s.keys.Apply):
		return s.askApply()
	case key.Matches(msg, s.keys.Move):
		s.scroll(msg.String())
	}
	return nil
}

// choose moves among the peers; Enter reads the one chosen.
func (s *syncView) choose(msg tea.KeyMsg) tea.Cmd {
	switch msg.String() {
	case "up":
		s.peer = max(s.peer-1, 0)
	case "down":
		s.peer = min(s.peer+1, len(s.peers)-1)
	case "enter":
		return s.read()
	}
	return nil
}

func (s *syncView) direct(d batch.Direction) {
	if s.stage != syncPlanned || s.err != nil {
		return
	}
	s.dir, s.status = d, ""
	s.layout()
}

// askApply applies the plan; one that removes asks first (Enter: no).
func (s *syncView) askApply() tea.Cmd {
	switch {
	case s.stage != syncPlanned || s.err != nil:
		return nil
	case s.dir == 0:
		s.status = "Choose a direction first: p (push), l (pull) or b (both, removals too)."
		return nil
	case s.plan.Actions(s.dir).Empty():
		s.status = "Nothing to do: the lists agree for this direction."
		return nil
	}
	if a := s.plan.Actions(s.dir); len(a.RemoveHere)+len(a.RemoveThere) > 0 {
		s.confirming = true
		return nil
	}
	return s.apply()
}

func (s *syncView) confirm(msg tea.KeyMsg) tea.Cmd {
	if key.Matches(msg, s.keys.Yes) {
		return s.apply()
	}
	if key.Matches(msg, s.keys.No) {
		s.confirming, s.status = false, "Nothing was applied."
	}
	return nil
}

func (s *syncView) scroll(k string) {
	page := max(s.c.Height-6, 1)
	switch k {
	case "up":
		s.top--
	case "down":
		s.top++
	case "pgup":
		s.top -= page
	case "pgdown":
		s.top += page
	}
	s.top = max(min(s.top, len(s.lines)-page), 0)
}

// layout writes the plan (or the outcome) as the lines the view scrolls.
func (s *syncView) layout() {
	s.lines = s.lines[:0]
	if s.err != nil {
		return
	}
	if s.stage == syncDone {
		for _, r := range s.runs {
			s.lines = append(s.lines, fmt.Sprintf("%s: %s (run %s)", capitalize(r.Action), batch.CountsText(r.Info.Counts, ", "), r.Info.ID))
		}
		if len(s.runs) == 0 {
			s.lines = append(s.lines, "Nothing was to do.")
		}
		return
	}
	p, acts := s.plan, s.plan.Actions(s.dir)
	if p.First {
		s.lines = append(s.lines, "No earlier sync of these lists is on record: an address on one side only is new, never removed.")
	} else {
		s.lines = append(s.lines, "Since the last sync, "+p.Since.Local().Format("2006-01-02 15:04")+":")
	}
	section := func(title string, items []batch.SyncItem, acted []batch.SyncItem, what string) {
		if len(items) == 0 {
			return
		}
		state := "left as they are"
		if len(acted) > 0 {
			state = what
		}
		s.lines = append(s.lines, fmt.Sprintf("%s (%d): %s", title, len(items), state))
		for _, x := range items {
			s.lines = append(s.lines, "  "+x.Email+"  "+string(x.Entry.Origin))
		}
	}
	section("Only here, new", p.NewHere, acts.AddThere, "to be added there")
	section("Only there, new", p.NewThere, acts.AddHere, "to be added here")
	section("Removed there since, still here", p.GoneThere, acts.RemoveHere, "to be removed here")
	section("Removed here since, still there", p.GoneHere, acts.RemoveThere, "to be removed there")
	section("Expired, not carried", p.Expired, nil, "")
	section("Protected by the other side's team, not carried", p.Protected, nil, "")
	if len(p.Differ) > 0 {
		s.lines = append(s.lines, fmt.Sprintf("Listed on both, different (%d): shown, not changed", len(p.Differ)))
		for _, d := range p.Differ {
			s.lines = append(s.lines, "  "+d.Email+"  "+strings.Join(d.What, ", "))
		}
	}
	s.lines = append(s.lines, fmt.Sprintf("Listed on both: %d.", p.Same))
}

func (s *syncView) render() string {
	st := s.c.Styles
	var b strings.Builder
	switch s.stage {
	case syncChoose:
		b.WriteString(st.Title.Render("Sync · compare this list with another profile's") + "\n")
		for i, p := range s.peers {
			mark := "  "
			if i == s.peer {
				mark = "> "
			}
			b.WriteString(truncate(mark+p.Name+" · "+p.Label, s.c.Width) + "\n")
		}
		return b.String()
	case syncReading:
		return st.Title.Render("Sync with "+s.peers[s.peer].Name) + "\n" + st.Muted.Render("Reading both lists…")
	}
	title := fmt.Sprintf("Sync with %s · here %d, there %d", s.peers[s.peer].Name, len(s.here.Snap.Entries), len(s.there.Snap.Entries))
	if s.dir != 0 && s.stage == syncPlanned {
		title += " · " + directionText(s.dir)
	}
	b.WriteString(st.Title.Render(truncate(title, s.c.Width)) + "\n")
	if s.stage == syncApplying {
		b.WriteString(st.Muted.Render("Applying "+directionText(s.dir)+"…") + "\n")
	}
	if s.err != nil {
		b.WriteString(st.Bad.Render(truncate(capitalize(s.err.Error()), s.c.Width)) + "\n")
	}
	page := max(s.c.Height-6, 1)
	for _, l := range s.lines[min(s.top, len(s.lines)):min(s.top+page, len(s.lines))] {
		b.WriteString(truncate(l, s.c.Width) + "\n")
	}
	switch {
	case s.confirming:
		a := s.plan.Actions(s.dir)
		b.WriteString(st.Warn.Render(fmt.Sprintf("Remove %d here and %d there, as removed on the other side since the last sync? [y/N]", len(a.RemoveHere), len(a.RemoveThere))))
	case s.status != "":
		b.WriteString(st.Warn.Render(truncate(s.status, s.c.Width)))
	}
	return b.String()
}

func directionText(d batch.Direction) string {
	switch d {
	case batch.Push:
		return "push: here's new entries there"
	case batch.Pull:
		return "pull: there's new entries here"
	case batch.Both:
		return "both ways, removals too"
	}
	return ""
}

func (s *syncView) help() help.KeyMap {
	k := s.keys
	switch {
	case s.busy():
		return keyMap{}
	case s.confirming:
		return keyMap{short: []key.Binding{k.Yes, k.No}}
	case s.stage == syncChoose:
		return keyMap{short: []key.Binding{k.Move, k.Choose, k.Back}}
	case s.stage == syncDone || s.err != nil:
		return keyMap{short: []key.Binding{k.Move, k.Back}}
	}
	b := []key.Binding{k.Push, k.Pull, k.Both, k.Apply, k.Move, k.Back}
	return keyMap{short: b, full: [][]key.Binding{b}}
}
