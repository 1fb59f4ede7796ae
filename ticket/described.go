package ticket

import "regexp"

// A line may pick its target by a description ("stop sending to the old
// address") that the ticket itself gives an address ("den gamle adressen
// post@…"): then the description says which, and the proposal stands when
// it sends exactly that address.

// described is the one address the lines of mail m give the description
// a line picks its target by: right after it ("den gamle adressen
// post@…", "the old address, x@…"). ok is false for none or several.
func (t *Ticket) described(m int) (v string, ok bool) {
	for _, s := range t.said {
		if s.msg != m {
			continue
		}
		text := t.lines[s.line]
		for _, loc := range oneOfThem.FindAllStringIndex(text, -1) {
			a := describedAddress.FindStringSubmatch(text[loc[1]:])
			if a == nil {
				continue
			}
			x := normalized(a[1])
			if x == "" || ok && x != v {
				return "", false
			}
			v, ok = x, true
		}
	}
	return v, ok
}

// describedAddress is an address right after a description, a word or
// two and a colon or bracket between at most.
var describedAddress = regexp.MustCompile(`^[\s,:]*(?:\pL+[\s,:]+){0,2}[(<"]?([^\s()<>",;]+@[^\s()<>",;]+?)[.)>"]?(?:[\s,;]|$)`)

// sendsDescribed reports a proposal whose targets are exactly the one
// address the asking mail describes, or whose mail describes none.
func (t *Ticket) sendsDescribed(w *weighing, own Own) bool {
	v, ok := t.described(w.asker)
	if !ok {
		return true
	}
	sent := t.sentBy(w, own)
	for _, x := range t.order {
		if sent[x] != (x == v) {
			return false
		}
	}
	return true
}
