package ticket

import "strings"

// The boilerplate around a mail's words: a closing with a few words after
// it, a legal notice under the signature. Neither asks anything, and the
// addresses in them are not the request's.

// longClosing reports a closing with a few words after it, on a line of
// its own that ends in a comma ("Thanks a million,", "Merci d'avance,",
// "Grazie e buon fine settimana,"): a signature follows. A line that
// names an address or asks anything is not one.
func longClosing(l *line, rest int) bool {
	if len(l.toks) > 0 || len(l.ws)-rest > 4 || !strings.HasSuffix(l.t, ",") {
		return false
	}
	for _, m := range phraseBooks().trees[inWords].find(nil, l.ws, phraseBooks().trees[negations]) {
		if w := classWays[m.class]; w.ask != 0 || w.self != sNone {
			return false
		}
	}
	return true
}

// noticeLine: a legal notice under a mail's words ("This email is
// confidential and intended solely for the addressee…", "Le informazioni
// contenute in questo messaggio sono riservate…"), to the end of its
// paragraph. It asks nothing ("… notify privacy@… and delete it"), and
// its addresses are the signature's, never a target.
func (r *Reader) noticeLine(l *line) (lineKind, bool) {
	st := &r.st
	body := st.body
	if l.depth > 0 {
		body = st.qbody
	}
	if st.notice == 0 || st.notice < l.n-1 || l.depth != st.depth {
		if c, _ := firstPhrase(phraseBooks().trees[inFooter], l.ws); c != cNotice || !body {
			st.notice = 0
			return lineKind{}, false
		}
	}
	st.notice, st.sig = l.n, 0
	l.setZone(zSignature)
	return lineKind{footer: true}, true
}

// inContact reports an address at off after where the words say the
// answer is to go (contactAt, -1 for none), in the same sentence: "…
// asked us in writing to have his data deleted. Please erase x@…" does
// not send the answer to x@….
func inContact(l *line, contactAt, off int) bool {
	if contactAt < 0 || off <= contactAt {
		return false
	}
	for _, w := range l.ws {
		if w.off >= contactAt && w.off < off && w.ends {
			return false
		}
	}
	return true
}

// namesLocal reports a line that names in full an address whose local
// part is w: "our billing address is now billing@…" names that address
// once, where it stands in full.
func namesLocal(l *line, w string) bool {
	for _, f := range l.toks {
		if f.Kind == Address && strings.EqualFold(localPart(f.Raw), w) {
			return true
		}
	}
	return false
}
