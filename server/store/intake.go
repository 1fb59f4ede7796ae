package store

import (
	"context"
	"errors"
	"time"

	"github.com/shushlist/shush/api"
)

// Intake is an endpoint a provider posts a team's bounces and complaints
// to (contract: intake). Credential is what the provider's events are
// checked with, kept as the service needs it: a signing secret (resend,
// mailgun), a public key (sendgrid), the SHA-256 of "user:password" in
// hex (postmark), "" (ses). It is never shown.
type Intake struct {
	ID         string
	Team       string
	Provider   string
	Name       string
	Credential string
	// TopicArn is the only SNS topic an ses endpoint accepts; "" until
	// one is given or its first subscription is confirmed.
	TopicArn  string
	CreatedAt time.Time
}

// IntakePolicy is a team's rule for temporary failures: Threshold
// failures of distinct messages within Window list the address for
// Expiry. Zero fields are the defaults (api.DefaultSoft*).
type IntakePolicy struct {
	Threshold int
	Window    time.Duration
	Expiry    time.Duration
}

// Effective is the policy with the defaults in place of zero fields.
func (p IntakePolicy) Effective() IntakePolicy {
	if p.Threshold <= 0 {
		p.Threshold = api.DefaultSoftThreshold
	}
	if p.Window <= 0 {
		p.Window = api.DefaultSoftWindow
	}
	if p.Expiry <= 0 {
		p.Expiry = api.DefaultSoftExpiry
	}
	return p
}

// The actions the service's rules choose for an event (IntakeEvent.Action).
const (
	// ActList puts the address on the list with the event's origin and
	// evidence (a permanent bounce, a complaint, an unsubscribe).
	ActList = "list"
	// ActCount counts a temporary failure; the address is listed, with
	// the policy's expiry, once the team's threshold is reached.
	ActCount = "count"
	// ActReview puts the event before an agent.
	ActReview = "review"
	// ActIgnore records the event (so that a replay is known) and does
	// nothing more.
	ActIgnore = "ignore"
)

// IntakeEvent is one recipient's event, verified and classified by the
// service, for TakeIn.
type IntakeEvent struct {
	// IntakeID is the endpoint it came through; "" for mail reports.
	IntakeID string
	Provider string
	// EventID is the provider's own ID of the event (for this
	// recipient): a second event with the same provider and ID is a
	// replay.
	EventID string
	// ReplayKeys are more keys of the request that must not come twice
	// (a signature's one-time token): an event any of whose keys was
	// taken in before is a replay too.
	ReplayKeys []string
	Email      string
	Action     string
	// Origin is the origin the address is listed with (ActList).
	Origin   api.Origin
	Evidence api.Evidence
	// Reason says why the event goes to review or is ignored.
	Reason string
	// MessageKey names the message a temporary failure is of: failures
	// of one message count once toward the threshold.
	MessageKey string
	// Note is the entry's note, when it is listed.
	Note string
}

// IntakeResult is what TakeIn did with one event.
type IntakeResult struct {
	Email, EventID string
	// Decision is one of api.Decision*.
	Decision string
	// EntryID is the listed entry's ID (DecisionListed), ReviewID the
	// review item's (DecisionReview).
	EntryID, ReviewID string
	Reason            string
}

// ReviewItem is an event the rules could not place, kept for an agent to
// decide.
type ReviewItem struct {
	ID         string
	Team       string
	IntakeID   string
	Provider   string
	Email      string
	Evidence   api.Evidence
	Reason     string
	ReceivedAt time.Time
	// Decision is "" while the item waits, else api.ReviewSuppress or
	// api.ReviewIgnore, made at DecidedAt by DecidedBy (the key's or
	// agent's name) with Note.
	Decision  string
	DecidedAt time.Time
	DecidedBy string
	Note      string
	// EntryID is the entry a suppress decision listed (or found listed).
	EntryID string
}

// ReviewQuery selects a page of a team's review queue, newest first:
// Decided false for the items waiting, true for those decided.
type ReviewQuery struct {
	Page
	Decided bool
}

// ErrDecided is returned when a review item was decided already, the
// other way.
var ErrDecided = errors.New("the event was decided already")

// Intakes are the teams' intake endpoints, the events taken in through
// them, and the review queue.
type Intakes interface {
	// CreateIntake stores a new endpoint of in.Team, or returns
	// ErrTooMany when the team has limit endpoints already (limit <= 0
	// is no limit).
	CreateIntake(ctx context.Context, in Intake, limit int) error
	// ListIntakes returns the team's endpoints, oldest first.
	ListIntakes(ctx context.Context, team string) ([]Intake, error)
	// IntakeByID returns the endpoint with this ID, of any team, or
	// ErrNotFound: the provider's request names only the endpoint.
	IntakeByID(ctx context.Context, id string) (Intake, error)
	// DeleteIntake removes the team's endpoint; the events taken in
	// through it stay.
	DeleteIntake(ctx context.Context, team, id string) error
	// PinTopic makes arn the only topic the ses endpoint accepts, unless
	// it has one already; it returns the endpoint's topic after.
	PinTopic(ctx context.Context, id, arn string) (string, error)

	// TakeIn records the events and does what each one's action says,
	// in one change: an event whose provider and ID were taken in before
	// is a duplicate and does nothing; a listing goes through Add (the
	// team's protected rules, the trail and the webhooks as for any
	// add), and one the team's rules protect goes to review instead; a
	// count lists the address once the team's policy (read inside the
	// change) is met. Results are in the order of events.
	TakeIn(ctx context.Context, team string, author Change, events []IntakeEvent) ([]IntakeResult, error)

	// ReviewItems returns a page of the team's review queue.
	ReviewItems(ctx context.Context, team string, q ReviewQuery) ([]ReviewItem, bool, error)
	// ReviewItem returns one item of the team's queue, or ErrNotFound.
	ReviewItem(ctx context.Context, team, id string) (ReviewItem, error)
	// CountReview counts the team's items waiting.
	CountReview(ctx context.Context, team string) (int, error)
	// Decide settles a waiting item by author: suppress lists its
	// address as Add does (origin from its evidence, the note given),
	// ignore lists nothing. Deciding an item again the same way returns
	// it as it is; the other way is ErrDecided. An add the team's rules
	// refuse fails with a *ProtectedError and decides nothing.
	Decide(ctx context.Context, team, id string, author Change, decision, note string) (ReviewItem, error)
}
