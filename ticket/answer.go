package ticket

import (
	"fmt"
	"slices"
	"strings"
)

// A customer's answer to our agent's question: "Do you want both
// addresses taken off, or only the one you write from?" — "Sí, por
// favor, las dos". The answer names nothing; the question names the
// addresses it means.

// answersAllIn reports a line t (its words ws) that opens by answering
// "all of them": past words that say yes or please, a phrase of the
// books' answer-all ("both", "las dos", "και τις δύο") that ends its
// clause, or is followed only by such words or by the change it answers
// ("bitte doch beide Adressen sperren"); not a question back ("Both?
// No, only the first"). A preamble before a colon may open the line
// ("nach Rücksprache mit meinem Mann: bitte doch beide …").
func answersAllIn(t string, ws []word) bool {
	if answersFrom(t, ws, 0) {
		return true
	}
	for i := 1; i < len(ws) && i < 12; i++ {
		if ws[i-1].clause && strings.HasPrefix(t[ws[i-1].off+len(ws[i-1].s):], ":") {
			return answersFrom(t, ws, i)
		}
	}
	return false
}

// answersFrom is answersAllIn from word i.
func answersFrom(t string, ws []word, i int) bool {
	b := phraseBooks()
	for i < len(ws) {
		if n := b.longest("answer-all", ws[i:]); n > 0 {
			end, ok := answerEnd(ws, i+n)
			if !ok {
				return false
			}
			last := ws[end-1]
			return !strings.HasPrefix(strings.TrimLeft(t[last.off+len(last.s):], " \t"), "?")
		}
		n := b.longest("answer-yes", ws[i:])
		if n == 0 {
			return false
		}
		i += n
	}
	return false
}

// answerEnd is the end of the clause an answer-all phrase ending at end
// stands in, when the words after it are only yes or please, or a
// change asked ("sperren"): ok false when another word stands there.
func answerEnd(ws []word, end int) (int, bool) {
	b := phraseBooks()
	for end < len(ws) && !ws[end-1].ends && !ws[end-1].clause {
		if k := b.longest("answer-yes", ws[end:]); k > 0 {
			end += k
			continue
		}
		c, k := b.trees[inWords].at(ws, end)
		if k == 0 || classWays[c].ask&changing == 0 {
			return end, false
		}
		end += k
	}
	return end, true
}

// longest is how many of the words ws, from the first, make the longest
// entry of the word list section: up to three words, 0 for none.
func (b *books) longest(section string, ws []word) int {
	for n := min(3, len(ws)); n > 0; n-- {
		if b.hasWords(section, ws[:n]...) {
			return n
		}
	}
	return 0
}

// allAnswered is the mail of ours, not older than the asking mail's
// request, whose question naming two or more addresses not ours the
// newest mail not ours answers "all of them" (mail.answersAt), asking
// again itself or not: the answer's targets are the question's. -1 for
// none.
func (t *Ticket) allAnswered(w weighing, own Own) int {
	if w.asker < 0 {
		return -1
	}
	order := t.newestFirst()
	for i, m := range order {
		if i+1 >= len(order) || m == w.asker && t.mails[m].answersAt == 0 {
			return -1
		}
		if t.ours(m, own) {
			if t.mails[m].note {
				continue // an agent's note to the team
			}
			return -1
		}
		q := order[i+1]
		for k := i + 2; k < len(order) && t.separator(q); k++ {
			q = order[k] // "-----Ursprüngliche Nachricht-----"
		}
		if !t.answers(m, q, w, own) {
			return -1
		}
		return q
	}
	return -1
}

// answers reports mail m answering "all of them" to the question of
// ours in mail q, a question that names two or more addresses not ours,
// and naming no address beyond them.
func (t *Ticket) answers(m, q int, w weighing, own Own) bool {
	at := t.mails[m].answersAt
	return at > 0 && q != w.asker && t.ours(q, own) && t.mails[q].questions && t.namedNotOurs(q, own) >= 2 && t.namesOnlyAsked(at, q)
}

// namesOnlyAsked reports an answer's line n that names no address our
// question in mail q does not ("beide Adressen sperren, also zusätzlich
// auch rechnung@…" under "nur info@… oder auch rechnung@…?"): one it
// names beyond the question is no answer "all of them".
func (t *Ticket) namesOnlyAsked(n, q int) bool {
	for _, v := range t.order {
		occ := t.records[v].occ
		if slices.ContainsFunc(occ, func(o occurrence) bool { return o.line == n }) && !slices.ContainsFunc(occ, func(o occurrence) bool { return o.msg == q }) {
			return false
		}
	}
	return true
}

// namedNotOurs counts the addresses not ours that the words of mail m
// name, the writer's of the ticket among them.
func (t *Ticket) namedNotOurs(m int, own Own) int {
	n := 0
	inWords := func(o occurrence) bool { return o.msg == m && (o.zone == zBody || o.zone == zMention) }
	for _, v := range t.order {
		if !t.isOurs(v, own) && slices.ContainsFunc(t.records[v].occ, inWords) {
			n++
		}
	}
	return n
}

// separator reports a mail that is only a forward's or a reply's marker
// line: no sender, no address, a few words.
func (t *Ticket) separator(m int) bool {
	ml := t.mails[m]
	return ml.from == "" && ml.named == 0 && ml.words <= 3
}

// inQuestion is the line where the question of ours the newest mail
// answers "all of them" names the address v: 0 for none.
func (t *Ticket) inQuestion(v string, w weighing) int {
	if w.answered < 0 || t.records[v] == nil {
		return 0
	}
	for _, o := range t.records[v].occ {
		if o.msg == w.answered && (o.zone == zBody || o.zone == zMention) {
			return o.line
		}
	}
	return 0
}

// answerSaid is the evidence of the answer "all of them" to the question
// of ours in mail q: the answer's line, and what it answers.
func (t *Ticket) answerSaid(q int, own Own) Said {
	for _, m := range t.newestFirst() {
		if at := t.mails[m].answersAt; at > 0 && !t.ours(m, own) {
			return Said{Line: at, Text: t.lines[at], Says: fmt.Sprintf("answers our question for all it names (line %d)", t.questionLine(q))}
		}
	}
	return Said{}
}

// questionLine is the first line of mail q's words that names an address
// not its sender's: where our question lists them.
func (t *Ticket) questionLine(q int) int {
	line := 0
	for _, v := range t.order {
		for _, o := range t.records[v].occ {
			if o.msg == q && (o.zone == zBody || o.zone == zMention) && (line == 0 || o.line < line) {
				line = o.line
			}
		}
	}
	return line
}
