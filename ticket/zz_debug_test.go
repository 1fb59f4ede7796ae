package ticket

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestZZDebug(t *testing.T) {
	p := os.Getenv("TK")
	if p == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(p)
	s := string(b)
	own := Own{}
	if h, rest, ok := strings.Cut(s, "\n====\n"); ok {
		s = rest
		for _, l := range strings.Split(h, "\n") {
			if v, ok := strings.CutPrefix(l, "own:"); ok {
				own = NewOwn(strings.Split(strings.TrimSpace(v), ","))
			}
		}
	}
	tk := Read(s)
	r := tk.Reading(own)
	fmt.Printf("mode %s targets %v why %q by %v ask %v\n", r.Mode, r.Targets, r.Proposal.Why, r.Proposal.By, r.Proposal.Ask)
	for _, l := range r.LeftOut {
		fmt.Printf("  left %s: %s (line %d)\n", l.Value, l.Reason, l.Line)
	}
	for i, m := range tk.mails {
		fmt.Printf("  mail %d %+v\n", i, m)
	}
	for _, sd := range tk.said {
		fmt.Printf("  said %+v\n", sd)
	}
	for _, v := range tk.order {
		fmt.Printf("  rec %s %+v\n", v, tk.records[v].occ)
	}
	fmt.Printf("  senders %v signers %v partials %v sign %q names %v\n", tk.senders, tk.signers, tk.partials, tk.signName, tk.senderNames)
}
