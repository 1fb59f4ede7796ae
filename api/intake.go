package api

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// The objects of intake (contract: intake).
const (
	ObjectIntake       = "intake"
	ObjectIntakeReview = "intake_review"
)

// ErrInvalidSignature is the name of the refusal of a provider's event
// whose signature, timestamp or credentials do not hold (401).
const ErrInvalidSignature = "invalid_signature"

// The providers whose events an intake endpoint takes, and ProviderMail,
// the provider of the reports read from raw bounce and complaint mail.
const (
	ProviderResend   = "resend"
	ProviderSendGrid = "sendgrid"
	ProviderPostmark = "postmark"
	ProviderMailgun  = "mailgun"
	ProviderSES      = "ses"
	ProviderMail     = "mail"
)

// Providers are the providers an intake endpoint may be made for, in the
// order the documentation names them.
func Providers() []string {
	return []string{ProviderResend, ProviderSendGrid, ProviderPostmark, ProviderMailgun, ProviderSES}
}

// The kinds of evidence (Evidence.Kind).
const (
	EvidenceBounce      = "bounce"
	EvidenceComplaint   = "complaint"
	EvidenceUnsubscribe = "unsubscribe"
	EvidenceOneClick    = "one-click"
	EvidenceImport      = "import"
)

// MaxDiagnostic is the most bytes of a remote server's words an entry's
// evidence keeps.
const MaxDiagnostic = 1000

// Evidence is why an entry that came from an event is listed, as the
// event said it (contract: evidence on an entry): null for entries made
// by hand. Its texts are the provider's or the remote server's own words:
// outside text, sanitized where it is shown.
type Evidence struct {
	Provider     string     `json:"provider"`
	EventID      string     `json:"event_id,omitempty"`
	MessageID    string     `json:"message_id,omitempty"`
	Kind         string     `json:"kind"`
	Status       string     `json:"status,omitempty"`
	Diagnostic   string     `json:"diagnostic,omitempty"`
	ReportingMTA string     `json:"reporting_mta,omitempty"`
	ReportedAt   *Timestamp `json:"reported_at,omitempty"`
	// Source, for an entry the service made itself, says which of its
	// doors made it ("one-click": a recipient's RFC 8058 one-click
	// unsubscribe).
	Source string `json:"source,omitempty"`
}

// Clip cuts the evidence's texts to what an entry keeps: the diagnostic
// to MaxDiagnostic bytes, the others to 500, each at a character
// boundary.
func (e Evidence) Clip() Evidence {
	e.Diagnostic = clip(e.Diagnostic, MaxDiagnostic)
	e.EventID = clip(e.EventID, 500)
	e.MessageID = clip(e.MessageID, 500)
	e.Status = clip(e.Status, 32)
	e.ReportingMTA = clip(e.ReportingMTA, 500)
	return e
}

// clip cuts s to at most n bytes without splitting a character.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// CreateIntakeRequest is the body of POST /intake: the provider and the
// credential its events are checked with: Secret (resend's whsec_ signing
// secret, mailgun's HTTP webhook signing key), PublicKey (sendgrid's
// verification key, base64), BasicAuth ("user:password", postmark). An
// ses endpoint needs none: SNS signs its messages with Amazon's
// certificate; TopicArn, when given, is the only topic it accepts (else
// the first topic whose subscription it confirms).
type CreateIntakeRequest struct {
	Provider  string `json:"provider"`
	Name      string `json:"name,omitempty"`
	Secret    string `json:"secret,omitempty"`
	PublicKey string `json:"public_key,omitempty"`
	BasicAuth string `json:"basic_auth,omitempty"`
	TopicArn  string `json:"topic_arn,omitempty"`
}

// Intake is an intake endpoint as the service shows it: never its
// credential. URL is where the provider posts its events.
type Intake struct {
	Object    string     `json:"object,omitempty"`
	ID        string     `json:"id"`
	Provider  string     `json:"provider,omitempty"`
	Name      string     `json:"name,omitempty"`
	URL       string     `json:"url,omitempty"`
	TopicArn  string     `json:"topic_arn,omitempty"`
	CreatedAt *Timestamp `json:"created_at,omitempty"`
	Deleted   bool       `json:"deleted,omitempty"`
}

// IntakeList is the answer of GET /intake.
type IntakeList struct {
	Object string   `json:"object"`
	Data   []Intake `json:"data"`
}

// MaxIntakeName is the longest name of an intake endpoint, in characters.
const MaxIntakeName = 64

// ValidIntakeName reports why name cannot be an intake endpoint's: at
// most MaxIntakeName printable characters.
func ValidIntakeName(name string) error {
	n, ok := printable(name)
	switch {
	case !ok:
		return fmt.Errorf("the name %s holds a character that is not printable", Quote(name))
	case n > MaxIntakeName:
		return fmt.Errorf("the name is %d characters long; at most %d are allowed", n, MaxIntakeName)
	}
	return nil
}

// The decisions on an event (IntakeOutcome.Decision).
const (
	DecisionListed    = "listed"    // put on the list (or already there)
	DecisionCounted   = "counted"   // a temporary failure, counted toward the team's threshold
	DecisionIgnored   = "ignored"   // nothing to do: an auto-reply, a delivery, a sender-side error
	DecisionReview    = "review"    // the rules cannot place it: an agent decides
	DecisionDuplicate = "duplicate" // the provider's event ID was taken in before
)

// IntakeOutcome is what the service did with one event: each names its
// address and event ID (never mapped by position). ID is the entry's
// (listed) or the review item's (review).
type IntakeOutcome struct {
	Email    string `json:"email"`
	EventID  string `json:"event_id"`
	Decision string `json:"decision"`
	ID       string `json:"id,omitempty"`
	// Reason says, in words, why an event went to review or was ignored.
	Reason string `json:"reason,omitempty"`
}

// IntakeAnswer is the answer of POST /intake/{id} and POST
// /intake/reports.
type IntakeAnswer struct {
	Object string          `json:"object"`
	Data   []IntakeOutcome `json:"data"`
}

// The kinds of a mail report (Report.Kind), as package bounce reads them.
const (
	ReportBounce    = "bounce"
	ReportComplaint = "complaint"
	ReportAutoReply = "auto_reply"
	ReportUnknown   = "unknown"
)

// Report is one recipient's fact read from raw bounce or complaint mail
// (an item of ReportsRequest): what the message said, nothing decided.
type Report struct {
	Email             string     `json:"email"`
	Kind              string     `json:"kind"`
	Status            string     `json:"status,omitempty"`
	Action            string     `json:"action,omitempty"`
	Diagnostic        string     `json:"diagnostic,omitempty"`
	ReportingMTA      string     `json:"reporting_mta,omitempty"`
	MessageID         string     `json:"message_id,omitempty"`
	OriginalMessageID string     `json:"original_message_id,omitempty"`
	ReportedAt        *Timestamp `json:"reported_at,omitempty"`
	FeedbackType      string     `json:"feedback_type,omitempty"`
	Shape             string     `json:"shape,omitempty"`
	EventID           string     `json:"event_id"`
}

// MaxReports is the most reports one POST /intake/reports carries.
const MaxReports = 100

// ReportsRequest is the body of POST /intake/reports.
type ReportsRequest struct {
	Reports []Report `json:"reports"`
}

// ReviewItem is an event the rules could not place, waiting for an agent
// (GET /intake/review), or decided.
type ReviewItem struct {
	Object     string    `json:"object,omitempty"`
	ID         string    `json:"id"`
	Email      string    `json:"email"`
	Provider   string    `json:"provider"`
	Evidence   Evidence  `json:"evidence"`
	Reason     string    `json:"reason"`
	ReceivedAt Timestamp `json:"received_at"`
	// Decision, DecidedAt and DecidedBy are set once an agent decided.
	Decision  string     `json:"decision,omitempty"`
	DecidedAt *Timestamp `json:"decided_at,omitempty"`
	DecidedBy string     `json:"decided_by,omitempty"`
	// EntryID is the entry a suppress decision listed.
	EntryID string `json:"entry_id,omitempty"`
}

// ReviewList is the answer of GET /intake/review.
type ReviewList struct {
	Object  string       `json:"object"`
	HasMore bool         `json:"has_more"`
	Data    []ReviewItem `json:"data"`
}

// The decisions on a review item.
const (
	ReviewSuppress = "suppress"
	ReviewIgnore   = "ignore"
)

// ReviewDecision is the body of POST /intake/review/{id}.
type ReviewDecision struct {
	Decision string  `json:"decision"`
	Note     *string `json:"note,omitempty"`
}

// IntakePolicy is a team's rule for temporary failures (GET/PATCH
// /team's intake): an address is listed once Threshold temporary failures
// of distinct messages came within Window, for Expiry.
type IntakePolicy struct {
	Threshold int    `json:"soft_bounce_threshold"`
	Window    string `json:"soft_bounce_window"`
	Expiry    string `json:"soft_bounce_expiry"`
}

// The default intake policy: 3 within 7 days, listed for 7 days.
const (
	DefaultSoftThreshold = 3
	DefaultSoftWindow    = 7 * 24 * time.Hour
	DefaultSoftExpiry    = 7 * 24 * time.Hour
)

// The bounds of an intake policy.
const (
	MaxSoftThreshold = 100
	MaxSoftWindow    = 365 * 24 * time.Hour
)

// ParseSpan reads a span of time as the intake policy gives it: a number
// and a unit, "7d", "36h", "90m" (days, hours, minutes; Go's durations
// too, "1h30m"), from a minute to a year.
func ParseSpan(s string) (time.Duration, error) {
	var d time.Duration
	var n int
	var unit string
	if k, err := fmt.Sscanf(s, "%d%s", &n, &unit); err == nil && k == 2 && unit == "d" {
		d = time.Duration(n) * 24 * time.Hour
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("%s is not a span of time like 7d, 36h or 90m", Quote(s))
	}
	switch {
	case d < time.Minute:
		return 0, errors.New("the span is shorter than a minute")
	case d > MaxSoftWindow:
		return 0, errors.New("the span is longer than a year")
	}
	return d, nil
}

// FormatSpan writes a span as ParseSpan reads it: whole days as "7d",
// else Go's form without its zero units ("36h", "1h30m", not "36h0m0s").
func FormatSpan(d time.Duration) string {
	if d > 0 && d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// ValidEvidenceKind reports whether kind is one of the kinds of evidence.
func ValidEvidenceKind(kind string) bool {
	switch kind {
	case EvidenceBounce, EvidenceComplaint, EvidenceUnsubscribe, EvidenceOneClick, EvidenceImport:
		return true
	}
	return false
}

// MaxProvider is the longest provider name an entry's evidence keeps.
const MaxProvider = 64

// Check reports what makes the evidence unfit for an entry, in words
// that name the field: a provider of 1 to MaxProvider printable
// characters, one of the kinds, and texts of valid UTF-8 within the
// lengths Clip keeps (the diagnostic MaxDiagnostic bytes, the status 32,
// the others 500). Outside text is kept as it came, control characters
// and all: it is sanitized where it is shown.
func (e Evidence) Check() error {
	if n, ok := printable(e.Provider); !ok || n == 0 || n > MaxProvider {
		return fmt.Errorf("its provider %s is not 1 to %d printable characters", Quote(e.Provider), MaxProvider)
	}
	if !ValidEvidenceKind(e.Kind) {
		return fmt.Errorf("its kind %s is not one of bounce, complaint, unsubscribe, one-click, import", Quote(e.Kind))
	}
	if e.Source != "" && e.Source != EvidenceOneClick {
		return fmt.Errorf("its source %s is not one-click", Quote(e.Source))
	}
	for _, f := range []struct {
		name, v string
		most    int
	}{
		{"event_id", e.EventID, 500}, {"message_id", e.MessageID, 500}, {"status", e.Status, 32},
		{"diagnostic", e.Diagnostic, MaxDiagnostic}, {"reporting_mta", e.ReportingMTA, 500},
	} {
		switch {
		case !utf8.ValidString(f.v):
			return fmt.Errorf("its %s is not UTF-8 text", f.name)
		case len(f.v) > f.most:
			return fmt.Errorf("its %s is %d bytes long; at most %d are kept", f.name, len(f.v), f.most)
		}
	}
	return nil
}
