// Package intake is what the service knows of the providers' bounce and
// complaint events: how each provider signs its webhook (checked before a
// byte of the event is trusted), how it words its events, and the one
// classification that decides, for provider events and for the reports
// read from raw bounce mail alike, whether an event lists its address,
// counts toward the team's threshold of temporary failures, goes before
// an agent, or is ignored. It decides nothing of the store's: the service
// hands the classified events to store.Intakes.TakeIn.
package intake

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Class is what an event says of its recipient, in the provider's terms
// brought to one scale.
type Class string

// The classes of events.
const (
	// Permanent: the address does not take mail (a hard bounce).
	Permanent Class = "permanent"
	// Temporary: delivery failed for now (mailbox full, deferred).
	Temporary Class = "temporary"
	// Undetermined: the provider could not tell permanent from
	// temporary.
	Undetermined Class = "undetermined"
	// Complaint: the recipient reported the mail as spam.
	Complaint Class = "complaint"
	// Unsubscribe: the recipient asked to get no more mail.
	Unsubscribe Class = "unsubscribe"
	// Scoped: the recipient left one group or topic only.
	Scoped Class = "scoped"
	// AutoReply: a vacation, out-of-office or challenge reply.
	AutoReply Class = "auto_reply"
	// Other: nothing about the address (a delivery, an open, a
	// sender-side error).
	Other Class = "other"
	// Unknown: the event's shape does not say.
	Unknown Class = "unknown"
)

// Event is one recipient's event as a provider (or a bounce message)
// reported it, after its signature held: facts, nothing decided.
type Event struct {
	Provider string
	// EventID is the provider's own ID of the event for this recipient;
	// a replay carries the same.
	EventID string
	// ReplayKeys are more keys of the request that must not come twice
	// (Mailgun's one-time token, which its signature covers where its
	// body is not).
	ReplayKeys []string
	// Email is the recipient as reported (normalized by Classify).
	Email string
	Class Class
	// What is the provider's own name of the event and its kind, for
	// the reason a person reads ("bounce/blocked", "Transient/MailboxFull").
	What         string
	Status       string
	Diagnostic   string
	ReportingMTA string
	// MessageID is the ID of the message that bounced or was complained
	// about; failures of one message count once toward the threshold.
	MessageID  string
	ReportedAt time.Time
	// Kind is the evidence's kind when the class does not make it
	// (bounce by default).
	Kind string
}

// statusPattern finds an enhanced status code in a server's words.
var statusPattern = regexp.MustCompile(`\b([245])\.(\d{1,3})\.(\d{1,3})\b`)

// Status is the enhanced status code (RFC 3463) an event gives, or the
// first one its diagnostic names; "" when neither has one.
func Status(given, diagnostic string) string {
	if m := statusPattern.FindString(strings.TrimSpace(given)); m != "" {
		return m
	}
	return statusPattern.FindString(diagnostic)
}

// policyBlock says whether a status is a policy refusal (5.7.x): the
// receiving server refused the sender, its reputation or its content, not
// the address.
func policyBlock(status string) bool { return strings.HasPrefix(status, "5.7.") }

// Classify decides an event by the team-independent rules: a permanent
// bounce lists its address with origin bounce, unless its status is a
// policy block (5.7.x), which an agent judges; a complaint lists with
// origin complaint; an unsubscribe lists as the recipient's own wish
// (manual); a temporary failure is counted (the team's policy lists the
// address at its threshold); an auto-reply and anything not about the
// address are ignored; what the rules cannot place goes to review. An
// event without a valid address is ignored, saying so.
func Classify(e Event) store.IntakeEvent {
	out := store.IntakeEvent{Provider: e.Provider, EventID: e.EventID, ReplayKeys: e.ReplayKeys, MessageKey: e.MessageID}
	email, err := api.NormalizeEmail(e.Email)
	out.Email = email
	if err != nil {
		out.Email = strings.TrimSpace(e.Email)
		out.Action, out.Reason = store.ActIgnore, "the event names no valid recipient address"
		return out
	}
	status := Status(e.Status, e.Diagnostic)
	out.Evidence = api.Evidence{Provider: e.Provider, EventID: e.EventID, MessageID: e.MessageID, Kind: e.Kind,
		Status: status, Diagnostic: e.Diagnostic, ReportingMTA: e.ReportingMTA}
	if !e.ReportedAt.IsZero() {
		out.Evidence.ReportedAt = &api.Timestamp{Time: e.ReportedAt.UTC().Truncate(time.Millisecond)}
	}
	rule := rules[e.Class]
	if rule == nil {
		rule = rules[Unknown]
	}
	rule(&out, e, status)
	if out.Evidence.Kind == "" {
		out.Evidence.Kind = api.EvidenceBounce
	}
	out.Evidence = out.Evidence.Clip()
	return out
}

// rules are the classification's rules, one per class.
var rules = map[Class]func(out *store.IntakeEvent, e Event, status string){
	Permanent: func(out *store.IntakeEvent, e Event, status string) {
		if policyBlock(status) {
			review(out, "a policy refusal ("+status+"): the receiving server refused the sender or the content, not necessarily the address", e)
			return
		}
		out.Action, out.Origin = store.ActList, api.OriginBounce
	},
	Temporary: func(out *store.IntakeEvent, e Event, status string) {
		out.Action, out.Origin = store.ActCount, api.OriginBounce
	},
	Complaint: func(out *store.IntakeEvent, e Event, status string) {
		out.Action, out.Origin, out.Evidence.Kind = store.ActList, api.OriginComplaint, api.EvidenceComplaint
	},
	Unsubscribe: func(out *store.IntakeEvent, e Event, status string) {
		out.Action, out.Origin, out.Evidence.Kind = store.ActList, api.OriginManual, api.EvidenceUnsubscribe
	},
	Scoped: func(out *store.IntakeEvent, e Event, status string) {
		out.Evidence.Kind = api.EvidenceUnsubscribe
		review(out, "the recipient left one group or topic only ("+e.What+"); listing would stop all mail to them", e)
	},
	Undetermined: func(out *store.IntakeEvent, e Event, status string) {
		review(out, "the provider could not tell a permanent from a temporary failure ("+e.What+")", e)
	},
	AutoReply: func(out *store.IntakeEvent, e Event, status string) {
		out.Action, out.Reason = store.ActIgnore, "an automatic reply ("+e.What+"): the address takes mail"
	},
	Other: func(out *store.IntakeEvent, e Event, status string) {
		out.Action, out.Reason = store.ActIgnore, "nothing about the address ("+e.What+")"
	},
	Unknown: func(out *store.IntakeEvent, e Event, status string) {
		if policyBlock(status) {
			review(out, "a policy refusal ("+status+", "+e.What+"): the receiving server refused the sender or the content, not necessarily the address", e)
			return
		}
		review(out, "the rules cannot place this event ("+e.What+")", e)
	},
}

// review sends an event to the review queue with the reason.
func review(out *store.IntakeEvent, reason string, e Event) {
	out.Action, out.Reason = store.ActReview, reason
	switch out.Evidence.Kind {
	case api.EvidenceComplaint:
		out.Origin = api.OriginComplaint
	case api.EvidenceUnsubscribe:
		out.Origin = api.OriginManual
	default:
		out.Origin = api.OriginBounce
	}
}

// ErrSignature is wrapped by every refusal of a request whose signature,
// timestamp or credentials do not hold: the service answers 401 and
// writes nothing.
var ErrSignature = errors.New("the request's signature does not hold")

// ErrPayload is wrapped by the refusal of a signed request whose body is
// not the provider's event format: 400.
var ErrPayload = errors.New("the request's body is not the provider's event format")

// refused is a refusal of the signature, saying which check failed.
type refused struct{ why string }

func (r refused) Error() string { return r.why }
func (r refused) Unwrap() error { return ErrSignature }

// malformed is a signed body that is not the provider's format.
type malformed struct{ why string }

func (m malformed) Error() string { return m.why }
func (m malformed) Unwrap() error { return ErrPayload }

// lower is an address as an event's ID names it: normalized, or as given
// when it is not a valid address.
func lower(email string) string {
	if e, err := api.NormalizeEmail(email); err == nil {
		return e
	}
	return strings.TrimSpace(email)
}
