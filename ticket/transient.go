package ticket

import (
	"regexp"
	"strings"
)

// A bounce report may name recipients it failed for for good (a 5.x.x
// status, "User unknown") and others it only could not reach yet (a 4.x.x
// status, "Mailbox full, try again later", a "Delayed" part): those are
// still retried and are not suppressed by the ticket's request.

// bounceStatus reads the status a line of a bounce report gives its last
// recipient, and the report's delayed part.
func (r *Reader) bounceStatus(l *line) {
	if !r.tk.mails[l.msg].bounce {
		r.statusRow(l)
		return
	}
	st := &r.st
	if st.statusMsg != l.msg {
		st.statusMsg, st.lastRecipient, st.delayedPart = l.msg, "", false
	}
	if len(l.toks) == 0 && delayedHead.MatchString(l.t) {
		st.delayedPart = true
		return
	}
	for _, f := range l.toks {
		if f.Kind == Address && f.Value != "" && !isSystem(f.Value) {
			st.lastRecipient = f.Value
			if st.delayedPart && !r.tk.permanent[f.Value] {
				r.tk.transient[f.Value] = true
			}
		}
	}
	v := st.lastRecipient
	switch {
	case v == "":
	case permanentStatus.MatchString(l.t):
		r.tk.permanent[v] = true
		delete(r.tk.transient, v)
	case transientStatus.MatchString(l.t) && !r.tk.permanent[v]:
		r.tk.transient[v] = true
	}
}

// permanentStatus is a permanent failure's status: an enhanced status
// code 5.x.x or a reply code 55x.
var permanentStatus = regexp.MustCompile(`\b5\.\d{1,3}\.\d{1,3}\b|\b55\d[ -]`)

// transientStatus is a temporary failure's: an enhanced status code
// 4.x.x, a reply code 45x, or the words of a delay.
var transientStatus = regexp.MustCompile(`(?i)\b4\.\d{1,3}\.\d{1,3}\b|\b45\d[ -]|\bdelayed\b|still trying|will (?:be )?retr|try again later|temporar(?:y|ily) (?:failure|unavailable|deferred)`)

// delayedHead is a line that opens a report's delayed part ("--- Delayed,
// still trying ---", "Delivery to these recipients has been delayed").
var delayedHead = regexp.MustCompile(`(?i)\bdelayed\b|still trying|will (?:be )?retr`)

// splitsBounces reports a phrase that picks targets in a sentence about
// hard or soft failures ("suppress the hard bounces only", "the second one
// is only a full mailbox and still retried").
func splitsBounces(l *line, m match) bool {
	from, to := sentence(l.ws, l.ws[m.first].off)
	if from >= to {
		return false
	}
	text := strings.ToLower(l.t[l.ws[from].off : l.ws[to-1].off+len(l.ws[to-1].s)])
	return bounceSplitWords.MatchString(text)
}

// bounceSplitWords are words of hard and soft failures.
var bounceSplitWords = regexp.MustCompile(`hard[- ]bounce|soft[- ]bounce|permanent|mailbox (?:is )?full|full mailbox|retrying|still trying|temporar|delayed|harte[rn]? bounces?|soft[- ]?bounces?|rebotes? (?:duros?|blandos?)|bounces? (?:durs?|mous?)|boîte pleine|casella piena|postfach (?:ist )?voll`)

// splitKnown reports a ticket whose bounce statuses split its recipients
// into permanent and temporary failures.
func (t *Ticket) splitKnown() bool {
	return len(t.transient) > 0 && len(t.permanent) > 0
}

// onlyInReports reports an address the words name only inside reports of
// failures (a bounce report's body, a digest's rows): no request names it
// on its own.
func (t *Ticket) onlyInReports(v string) bool {
	for _, o := range t.records[v].occ {
		m := t.mails[o.msg]
		if o.zone == zBody && !(m.bounce && o.line >= m.bounceAt) && !t.statusLine[o.line] {
			return false
		}
	}
	return true
}

// statusRow reads a line outside a bounce report that names one address
// and its failure's status code ("sb1@… 452 4.2.2 mailbox full", a
// digest's row).
func (r *Reader) statusRow(l *line) {
	if len(l.toks) != 1 || l.toks[0].Kind != Address || l.toks[0].Value == "" || len(r.tk.statusLine) >= maxRecords {
		return
	}
	v := l.toks[0].Value
	switch {
	case statusCode.MatchString(l.t) && permanentStatus.MatchString(l.t):
		r.tk.permanent[v] = true
		delete(r.tk.transient, v)
	case statusCode.MatchString(l.t) && transientStatus.MatchString(l.t) && !r.tk.permanent[v]:
		r.tk.transient[v] = true
	default:
		return
	}
	r.tk.statusLine[l.n] = true
}

// statusCode is an enhanced status code (RFC 3463).
var statusCode = regexp.MustCompile(`\b[45]\.\d{1,3}\.\d{1,3}\b`)
