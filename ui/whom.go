package ui

import (
	"github.com/shushlist/shush/ticket"
)

// Whom a ticket is about, as the screens show it: the rule's decision on a
// row (batch.Roles, weighed for the list's mode), the line of the ticket
// that decided, and the agent's flip (t) on the build list and in the
// review's Requester section.

// flipRow flips row i of the list and says what became of it, naming
// the row as who ("Row 3", an address).
func flipRow(l *entries, i int, who string) string {
	e := l.rows[i]
	switch {
	case !e.Valid():
		return who + " is not valid: fix it (e) or delete it (d)."
	case e.protected && adds(l.mode):
		return who + " is protected by the team's rules: the service refuses to suppress it."
	case e.role.Reason == ticket.ReasonSentTo:
		return who + " is the address the ticket was sent to: it is never sent."
	case e.role.Fixed():
		return who + " is one of our own addresses (config own): it is never sent."
	case !l.flip(i):
		return who + " is named in the ticket's words and is sent; d deletes it."
	case l.rows[i].left(l.mode):
		return who + " left out: it will not be sent (t takes it in again)."
	}
	return who + " taken in: it will be sent."
}

// people are the rows of a list the rule decided about, the requester's
// first: the review's Requester section.
func people(l *entries) []int {
	var req, rest []int
	for i, e := range l.rows {
		switch {
		case !e.Valid() || !e.role.Decided():
		case e.role.Requester:
			req = append(req, i)
		default:
			rest = append(rest, i)
		}
	}
	return append(req, rest...)
}
