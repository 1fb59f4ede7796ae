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
// clause, or is followed only by such words; not a question back ("Both?
// No, only the first").
func answersAllIn(t string, ws []word) bool {
	b := phraseBooks()
	for i := 0; i < len(ws); {
		if n := b.longest("answer-all", ws[i:]); n > 0 {
			end := i + n
			for end < len(ws) && !ws[end-1].ends && !ws[end-1].clause {
				k := b.longest("answer-yes", ws[end:])
				if k == 0 {
					return false
				}
				end += k
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
		if t.mails[m].answersAt == 0 || q == w.asker || !t.ours(q, own) || !t.mails[q].questions || t.namedNotOurs(q, own) < 2 {
			return -1
		}
		return q
	}
	return -1
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
