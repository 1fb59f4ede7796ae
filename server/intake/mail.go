package intake

import (
	"strings"

	"github.com/shushlist/shush/api"
)

// FromReport is the event of a report read from raw bounce or complaint
// mail (provider "mail"): a DSN's action and status class it, an ARF
// report is a complaint (unless it says not-spam), an auto-reply is one;
// a DSN without a status code, and a message the reader could not place,
// go to review.
func FromReport(r api.Report) Event {
	e := Event{Provider: api.ProviderMail, EventID: r.EventID, Email: r.Email, Status: r.Status, Diagnostic: r.Diagnostic,
		ReportingMTA: r.ReportingMTA, MessageID: r.OriginalMessageID}
	if e.MessageID == "" {
		e.MessageID = r.MessageID
	}
	if r.ReportedAt != nil {
		e.ReportedAt = r.ReportedAt.Time
	}
	shape := r.Shape
	if shape == "" {
		shape = "mail"
	}
	e.What = strings.Join(strings.Fields(shape+" "+r.Kind+" "+r.FeedbackType+" "+r.Action), " ")
	switch r.Kind {
	case api.ReportComplaint:
		e.Class, e.What = Complaint, strings.TrimSpace(shape+" complaint "+r.FeedbackType)
		if strings.EqualFold(r.FeedbackType, "not-spam") {
			e.Class = Other
		}
	case api.ReportAutoReply:
		e.Class = AutoReply
	case api.ReportBounce:
		e.Class = bounceClass(r, Status(r.Status, r.Diagnostic))
		if e.Class == Unknown && Status(r.Status, r.Diagnostic) == "" {
			e.What = shape + " bounce without a status code"
		}
	default:
		e.Class = Unknown
	}
	return e
}

// bounceClass classes a DSN by its action, then its status.
func bounceClass(r api.Report, status string) Class {
	switch strings.ToLower(r.Action) {
	case "delivered", "relayed", "expanded":
		return Other
	case "delayed":
		return Temporary
	}
	switch {
	case status == "":
		return Unknown
	case status[0] == '5':
		return Permanent
	case status[0] == '4':
		return Temporary
	case status[0] == '2':
		return Other
	}
	return Unknown
}
