package ticket

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func TestDbgMails(t *testing.T) {
	f := os.Getenv("DBGFILE")
	if f == "" {
		t.Skip()
	}
	b, _ := os.ReadFile(f)
	s := string(b)
	if i := strings.Index(s, "\n====\n"); i >= 0 {
		s = s[i+6:]
	}
	r := NewReader(func(Found) {})
	for n, l := range strings.Split(s, "\n") {
		r.Line(n+1, l)
	}
	tk := r.End()
	for i, m := range tk.mails {
		fmt.Printf("mail %d: %+v\n", i, m)
	}
	fmt.Println("newestFirst", tk.newestFirst())
	own := NewOwn(strings.Split(os.Getenv("DBGOWN"), ","))
	w := tk.weigh(own)
	kept, ok := tk.followOrdinals(w, own)
	fmt.Printf("asker %d anchor %d targets %v ordinals %+v listed %v kept %v %v\n", w.asker, w.anchor, w.targets, tk.ordinals, tk.listedIDs(w), kept, ok)
	for _, o := range tk.ordinals {
		p, k, c := readPlaces(tk.lines[o.n], 3)
		fmt.Println("places", o.n, p, k, c)
	}
	for _, sd := range tk.said {
		fmt.Printf("said line %d msg %d asks %v weak %v self %v sel %v only %v desc %v oneOf %v\n", sd.line, sd.msg, sd.asks, sd.weak, sd.self, sd.selective, sd.only, sd.describes, sd.oneOf)
	}
	for _, v := range tk.order {
		fmt.Printf("occ %s: %+v\n", v, tk.records[v].occ)
	}
	fa := tk.factsOf(w, own)
	for _, v := range tk.order {
		d := tk.decide(v, tk.records[v], own, fa)
		fmt.Printf("decide %s: %q leave=%v line=%d\n", v, d.Reason, d.Leave, d.By.Line)
	}
	p := tk.Propose(own)
	fmt.Printf("mode %v why %q words %q by %+v\nask %q\n", p.Mode, p.Why, p.Words, p.By, p.Ask)
}

func TestDbgLine(t *testing.T) {
	l := os.Getenv("DBGLINE")
	if l == "" {
		t.Skip()
	}
	b := phraseBooks()
	names := map[class]string{}
	for n, s := range sections {
		names[s.class] = n
	}
	ws := wordsOf(nil, l)
	for _, tr := range []tree{inWords, mistakes, unnamedAddresses} {
		for _, m := range b.trees[tr].find(nil, ws, b.trees[negations]) {
			var parts []string
			for _, w := range ws[m.first:m.end] {
				parts = append(parts, w.s)
			}
			fmt.Printf("tree %d %s neg=%v: %q\n", tr, names[m.class], m.negated, strings.Join(parts, " "))
		}
	}
}
