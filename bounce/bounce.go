// Package bounce reads raw bounce and complaint mail and reports what it
// says: which recipient failed or complained, with the status code, the
// remote server's words, the reporting host and the time, one Report per
// recipient. It reads RFC 3464 delivery-status reports, RFC 5965 (ARF)
// feedback reports, the plain-text bounces of common mail servers (Postfix,
// Exim, Exchange and Office 365, Gmail, qmail, sendmail), and auto-replies
// (vacation, out-of-office, challenge-response, RFC 3834 auto-submitted mail).
// What it cannot place is one report of KindUnknown with what it found.
//
// The package reports facts; it decides nothing about a list. Whether a
// report suppresses an address, is counted, ignored or put before a person
// is the service's rule.
//
// Messages yields the messages of a file, an mbox or a Maildir folder;
// Message.Parse (whose errors name the message's source) reads one
// message. Both bound what they hold: a message larger than MaxMessageSize
// is refused with an error, and of a message only its header (up to 1 MiB),
// its first 100 parts, 8 multiparts deep, and the first MiB of each part
// are read.
//
// Two fields of Report go beyond what the service's intake takes:
// RemoteMTA (a delivery-status report's Remote-MTA) and OriginalMailFrom
// (a feedback report's Original-Mail-From); both help a person judge a
// report.
package bounce

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Kind is what a message is, as read from its shape.
type Kind string

// The kinds of message the reader tells apart.
const (
	// KindBounce: a delivery failed or was delayed (see Status and Action).
	KindBounce Kind = "bounce"
	// KindComplaint: an RFC 5965 (ARF) feedback report of a person's
	// complaint: Feedback-Type "abuse" or "fraud". A feedback report of
	// another type ("not-spam", "auth-failure", "virus", "other", none) is
	// KindUnknown with its FeedbackType: it is not a recipient's complaint.
	KindComplaint Kind = "complaint"
	// KindAutoReply: a vacation or out-of-office reply, a challenge-response
	// request, other auto-submitted mail, or a delivery-status report that
	// says a message was delivered, relayed or expanded.
	KindAutoReply Kind = "auto_reply"
	// KindUnknown: the reader could not place the message.
	KindUnknown Kind = "unknown"
)

// Report is one recipient's fact from one message: a delivery-status
// report naming three recipients gives three. Text fields are raw (not
// sanitized for a terminal), valid UTF-8, with runs of white space made one
// space; Diagnostic is at most 1,000 bytes, the others at most 255.
type Report struct {
	// Recipient is the address that failed, complained or replied,
	// normalized with api.NormalizeEmail; "" when none was found or it is
	// not a valid address. A delivery-status report's Original-Recipient is
	// preferred to its Final-Recipient (the address the sender used, before
	// forwarding), as is the alias a plain-text bounce says an address was
	// expanded or generated from. An auto-reply's recipient is the address
	// it came from.
	Recipient string
	// Kind is what the message is.
	Kind Kind
	// Status is the enhanced status code ("5.1.1", "4.2.2"): the DSN's
	// Status field, or the first one in the server's words; "" when the
	// message has none. A basic SMTP code (550) alone gives none.
	Status string
	// Action is the DSN's Action (failed, delayed, delivered, relayed,
	// expanded), lower-case. A plain-text bounce gives "failed" or "delayed"
	// when its words say so; "" otherwise.
	Action string
	// Diagnostic is the remote server's own words: the DSN's Diagnostic-Code
	// without its type ("smtp;"), or the shape's text for the recipient. For
	// a message of KindUnknown it is the beginning of the message's text.
	Diagnostic string
	// ReportingMTA is the host that wrote the report: the DSN's or ARF
	// report's Reporting-MTA without its type ("dns;"), or the host a
	// plain-text bounce names as its own; "".
	ReportingMTA string
	// RemoteMTA is the DSN's Remote-MTA without its type: the server that
	// refused the message; "".
	RemoteMTA string
	// MessageID is the Message-ID of the report message itself, without <>.
	MessageID string
	// OriginalMessageID is the Message-ID of the message that bounced or
	// was complained about, from the enclosed message or its headers; "".
	OriginalMessageID string
	// OriginalMailFrom is an ARF report's Original-Mail-From: the envelope
	// sender of the message complained about; "".
	OriginalMailFrom string
	// ReportedAt is when it was reported, in UTC: a DSN recipient's
	// Last-Attempt-Date, else the report's Date header, else the DSN's or
	// ARF report's Arrival-Date; zero when none can be read.
	ReportedAt time.Time
	// FeedbackType is the ARF Feedback-Type (abuse, fraud, not-spam, ...),
	// lower-case; "".
	FeedbackType string
	// Shape names the rule that read the message: "dsn", "arf", "postfix",
	// "exim", "exchange", "gmail", "qmail", "sendmail",
	// "x-failed-recipients", "vacation", "challenge", "auto-submitted"; ""
	// when no rule recognised it.
	Shape string
	// EventID is a stable ID for replay detection: MessageID + "/" +
	// Recipient when MessageID is set, otherwise "sha256:" + the hex
	// SHA-256 of the raw message + "/" + Recipient.
	EventID string
}

// MaxMessageSize is the largest message Message.Parse and Messages read, in bytes.
const MaxMessageSize = 32 << 20

// Limits on a message's header and on the parts read.
const (
	maxHeaderSize = 1 << 20   // the top-level header section
	maxDepth      = 8         // nested multiparts
	maxParts      = 100       // parts read in all
	maxPartSize   = 1 << 20   // decoded bytes kept of one part
	maxTextSize   = 512 << 10 // text kept of all text parts together
	maxDiagnostic = 1000
	maxField      = 255
)

// Parse reads one RFC 5322 message and returns its reports: at least one,
// since a message the reader cannot place is one Report of KindUnknown with
// what it found. An error, which begins with the message's Source, means
// the message cannot be read at all: it is empty, larger than
// MaxMessageSize, or its header is not a mail header. Parse never panics
// on any input.
func (m Message) Parse() ([]Report, error) {
	if len(m.Raw) > MaxMessageSize {
		return nil, fmt.Errorf("%s: %w", m.Source, errTooLarge)
	}
	reports, err := parse(m.Raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Source, err)
	}
	return reports, nil
}

var errTooLarge = fmt.Errorf("the message is larger than %d MiB", MaxMessageSize>>20)

// parse reads a message held in memory.
func parse(raw []byte) ([]Report, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("the message is empty")
	}
	env, err := readEnvelope(raw)
	if err != nil {
		return nil, err
	}
	return finish(read(env), env, raw), nil
}

// read applies the rules in order: a delivery-status report, a feedback
// report, the plain-text shapes, auto-replies; what none places is
// unknown.
func read(env *envelope) []Report {
	if rs := readDSN(env); len(rs) > 0 {
		return rs
	}
	if rs := readARF(env); len(rs) > 0 {
		return rs
	}
	matched := ""
	for _, s := range shapes {
		if !s.match(env) {
			continue
		}
		if rs := s.read(env); len(rs) > 0 {
			orig := env.originalMessageID()
			for i := range rs {
				rs[i].Kind, rs[i].Shape, rs[i].OriginalMessageID = KindBounce, s.name, orig
			}
			return rs
		}
		if matched == "" {
			matched = s.name
		}
	}
	if matched == "" && !env.fromDaemon() {
		if r, ok := readAutoReply(env); ok {
			return []Report{r}
		}
	}
	return []Report{unknown(env, matched)}
}

// finish fills the fields every report of a message shares, bounds every
// text field, drops repeated recipients and makes the event IDs.
func finish(reports []Report, env *envelope, raw []byte) []Report {
	reports = distinct(reports)
	id := clip(env.messageID(), maxField)
	sum := ""
	if id == "" {
		h := sha256.Sum256(raw)
		sum = "sha256:" + hex.EncodeToString(h[:])
	}
	date := env.date()
	for i := range reports {
		r := &reports[i]
		r.MessageID = id
		if r.ReportedAt.IsZero() {
			r.ReportedAt = date
		}
		r.ReportedAt = r.ReportedAt.UTC()
		bound(r)
		key := id
		if key == "" {
			key = sum
		}
		r.EventID = key + "/" + r.Recipient
	}
	return reports
}

// distinct keeps the first report of each recipient: one message says one
// thing about an address, and its event ID must be unique.
func distinct(reports []Report) []Report {
	seen := make(map[string]bool, len(reports))
	out := reports[:0]
	for _, r := range reports {
		if seen[r.Recipient] {
			continue
		}
		seen[r.Recipient] = true
		out = append(out, r)
	}
	return out
}

// bound cuts each text field of r to its limit as valid UTF-8 with white
// space collapsed.
func bound(r *Report) {
	r.Diagnostic = clip(r.Diagnostic, maxDiagnostic)
	for _, f := range []*string{&r.Status, &r.Action, &r.ReportingMTA, &r.RemoteMTA,
		&r.OriginalMessageID, &r.OriginalMailFrom, &r.FeedbackType} {
		*f = clip(*f, maxField)
	}
}

// unknown is the report of a message no rule could read: what the message
// itself says, and the recipient of the enclosed original when it names
// exactly one.
func unknown(env *envelope, shape string) Report {
	return Report{
		Recipient:         env.originalRecipient(),
		Kind:              KindUnknown,
		Diagnostic:        env.plainText(),
		OriginalMessageID: env.originalMessageID(),
		Shape:             shape,
	}
}
