package client

import (
	"context"
	"net/http"
	"net/url"

	"github.com/shushlist/shush/api"
)

// The retries of intake's calls follow what a repeat would do: creating
// an endpoint makes a second one, so it is retried on a 429 only; a
// deletion is retried like Remove (a repeat answers 404); the reports and
// the decisions are idempotent on the service (a report's event ID, the
// same decision again), so they are retried like the batches.

// CreateIntake makes an intake endpoint (POST /intake); the answer holds
// its URL, never its credential.
func (c *Client) CreateIntake(ctx context.Context, req api.CreateIntakeRequest) (api.Intake, error) {
	var out api.Intake
	err := c.do(ctx, http.MethodPost, "/intake", nil, req, &out, rateLimitOnly)
	return out, err
}

// Intakes lists the team's intake endpoints (GET /intake).
func (c *Client) Intakes(ctx context.Context) (api.IntakeList, error) {
	var out api.IntakeList
	err := c.do(ctx, http.MethodGet, "/intake", nil, nil, &out, idempotent)
	return out, err
}

// DeleteIntake deletes an intake endpoint (DELETE /intake/{id}).
func (c *Client) DeleteIntake(ctx context.Context, id string) (api.Intake, error) {
	var out api.Intake
	err := c.do(ctx, http.MethodDelete, "/intake/"+url.PathEscape(id), nil, nil, &out, noNetworkRetry)
	return out, err
}

// SendReports takes in 1 to api.MaxReports reports read from bounce mail
// (POST /intake/reports); the answer names each report's email and event
// ID, in request order. A report sent twice is a duplicate the second
// time, so a retry changes nothing.
func (c *Client) SendReports(ctx context.Context, reports []api.Report) (api.IntakeAnswer, error) {
	var out api.IntakeAnswer
	err := c.do(ctx, http.MethodPost, "/intake/reports", nil, api.ReportsRequest{Reports: reports}, &out, idempotent)
	return out, err
}

// ReviewParams select a page of the review queue: the items waiting, or
// with Decided those decided.
type ReviewParams struct {
	WebhookParams
	Decided bool
}

// Review reads a page of the review queue (GET /intake/review), newest
// first.
func (c *Client) Review(ctx context.Context, p ReviewParams) (api.ReviewList, error) {
	q := p.query()
	if p.Decided {
		q.Set("status", "decided")
	}
	var out api.ReviewList
	err := c.do(ctx, http.MethodGet, "/intake/review", q, nil, &out, idempotent)
	return out, err
}

// Decide settles a review item (POST /intake/review/{id}): suppress lists
// its address, ignore lists nothing. The same decision again answers the
// item as it is.
func (c *Client) Decide(ctx context.Context, id, decision, note string) (api.ReviewItem, error) {
	req := api.ReviewDecision{Decision: decision}
	if note != "" {
		req.Note = &note
	}
	var out api.ReviewItem
	err := c.do(ctx, http.MethodPost, "/intake/review/"+url.PathEscape(id), nil, req, &out, idempotent)
	return out, err
}
