package bounce

import "strings"

// field is one "Name: value" of a delivery-status or feedback report, its
// name lower-case and its value unfolded.
type field struct{ name, value string }

// fields is one group of fields (a DSN's per-message or per-recipient
// part, or a feedback report).
type fields []field

// get returns the value of the first field named name (lower-case).
func (fs fields) get(name string) string {
	for _, f := range fs {
		if f.name == name {
			return f.value
		}
	}
	return ""
}

// all returns the values of every field named name.
func (fs fields) all(name string) []string {
	var out []string
	for _, f := range fs {
		if f.name == name {
			out = append(out, f.value)
		}
	}
	return out
}

// groups reads the field groups of a report body: groups are separated by
// empty lines, a line starting with white space continues the field before
// it, and a line that is neither is skipped.
func groups(b []byte) []fields {
	var out []fields
	var cur fields
	var value []string // the lines of cur's last field
	flush := func() {
		if len(value) > 0 {
			cur[len(cur)-1].value = strings.Join(strings.Fields(strings.Join(value, " ")), " ")
			value = value[:0]
		}
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case strings.TrimSpace(line) == "":
			flush()
			if len(cur) > 0 {
				out, cur = append(out, cur), nil
			}
		case line[0] == ' ' || line[0] == '\t':
			if len(value) > 0 {
				value = append(value, line)
			}
		default:
			flush()
			name, v, ok := strings.Cut(line, ":")
			if ok && validFieldName(name) {
				cur = append(cur, field{name: strings.ToLower(name)})
				value = append(value, v)
			}
		}
	}
	flush()
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// readDSN reads an RFC 3464 delivery-status report: one report for each
// per-recipient group. A group is per-recipient when it names a recipient;
// every other group's fields are the per-message fields.
func readDSN(e *envelope) []Report {
	if e.status == nil {
		return nil
	}
	var msg fields
	var rcpts []fields
	for _, g := range groups(e.status) {
		if g.get("final-recipient") != "" || g.get("original-recipient") != "" {
			rcpts = append(rcpts, g)
		} else {
			msg = append(msg, g...)
		}
	}
	out := make([]Report, 0, len(rcpts))
	for _, g := range rcpts {
		out = append(out, dsnReport(e, msg, g))
	}
	return out
}

// dsnReport is one per-recipient group's report.
func dsnReport(e *envelope, msg, g fields) Report {
	r := Report{
		Recipient:    dsnRecipient(g),
		Action:       firstWord(g.get("action")),
		Diagnostic:   stripType(g.get("diagnostic-code")),
		ReportingMTA: stripType(msg.get("reporting-mta")),
		RemoteMTA:    stripType(g.get("remote-mta")),
		Shape:        "dsn",
	}
	r.ReportedAt = firstDate(g.get("last-attempt-date"))
	if r.ReportedAt.IsZero() {
		r.ReportedAt = firstTime(e.date(), firstDate(msg.get("arrival-date")))
	}
	r.Status = statusIn(g.get("status"))
	if r.Status == "" {
		r.Status = statusIn(r.Diagnostic)
	}
	r.OriginalMessageID = e.originalMessageID()
	if r.OriginalMessageID == "" {
		r.OriginalMessageID = msgID(msg.get("x-original-message-id"))
	}
	r.Kind = KindBounce
	if dsnDone(r.Action, r.Status) {
		r.Kind = KindAutoReply
	}
	return r
}

// dsnDone reports whether a recipient's group says the message went
// through: delivered, relayed or expanded, or no action and a 2.x.x status.
func dsnDone(action, status string) bool {
	switch action {
	case "delivered", "relayed", "expanded":
		return true
	case "":
		return strings.HasPrefix(status, "2.")
	}
	return false
}

// dsnRecipient prefers the Original-Recipient (the address the sender
// used) to the Final-Recipient (where the mail went after forwarding).
func dsnRecipient(g fields) string {
	for _, name := range []string{"original-recipient", "final-recipient", "x-actual-recipient"} {
		if a := typedAddress(g.get(name)); a != "" {
			return a
		}
	}
	return ""
}

// readARF reads an RFC 5965 feedback report: one report for each
// Original-Rcpt-To, or for the enclosed message's one recipient. Only the
// types a person's complaint has (abuse, fraud) are complaints.
func readARF(e *envelope) []Report {
	if e.feedback == nil {
		return nil
	}
	var f fields
	for _, g := range groups(e.feedback) {
		f = append(f, g...)
	}
	base := Report{
		Kind:              KindUnknown,
		FeedbackType:      firstWord(f.get("feedback-type")),
		Diagnostic:        e.plainText(),
		ReportingMTA:      stripType(f.get("reporting-mta")),
		OriginalMessageID: e.originalMessageID(),
		OriginalMailFrom:  typedAddress(f.get("original-mail-from")),
		ReportedAt:        firstTime(e.date(), firstDate(f.get("arrival-date"), f.get("received-date"))),
		Shape:             "arf",
	}
	if base.FeedbackType == "abuse" || base.FeedbackType == "fraud" {
		base.Kind = KindComplaint
	}
	var out []Report
	for _, v := range f.all("original-rcpt-to") {
		if a := typedAddress(v); a != "" {
			r := base
			r.Recipient = a
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		base.Recipient = e.originalRecipient()
		out = append(out, base)
	}
	return out
}
