package intake

import (
	"encoding/json"
	"net/http"
	"net/mail"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
)

// resendEvent is what a Resend webhook's body holds of an email event.
type resendEvent struct {
	Type      string `json:"type"`
	CreatedAt string `json:"created_at"`
	Data      struct {
		EmailID   string          `json:"email_id"`
		To        json.RawMessage `json:"to"`
		CreatedAt string          `json:"created_at"`
		Bounce    *struct {
			Type    string `json:"type"`
			SubType string `json:"subType"`
			Message string `json:"message"`
		} `json:"bounce"`
	} `json:"data"`
}

// resendClasses are Resend's email events that speak of the address;
// email.bounced is classed by its bounce type, and every other event
// (sent, delivered, opened, ...) says nothing of it.
var resendClasses = map[string]Class{
	"email.complained":       Complaint,
	"email.delivery_delayed": Temporary,
}

// parseResend reads a signed Resend event: one Event per recipient, whose
// ID is the webhook message's (svix-id, the same on every retry) and the
// recipient.
func parseResend(h http.Header, body []byte) ([]Event, error) {
	var ev resendEvent
	if err := json.Unmarshal(body, &ev); err != nil || ev.Type == "" {
		return nil, malformed{"resend: the body is not a Resend event ({\"type\", \"data\"})"}
	}
	id := h.Get(api.HeaderSvixID)
	if id == "" {
		id = h.Get(api.HeaderWebhookID)
	}
	to := recipients(ev.Data.To)
	class, ok := resendClasses[ev.Type]
	what := ev.Type
	var diag string
	switch {
	case ev.Type == "email.bounced":
		class, what = Unknown, ev.Type+" without a bounce type"
		if b := ev.Data.Bounce; b != nil {
			class = sesBounceClass(b.Type)
			what, diag = ev.Type+" "+strings.Trim(b.Type+"/"+b.SubType, "/"), b.Message
		}
	case !ok:
		class = Other
	}
	at := parseTime(ev.CreatedAt)
	out := make([]Event, 0, len(to))
	for _, email := range to {
		out = append(out, Event{Provider: api.ProviderResend, EventID: id + "/" + lower(email), Email: email, Class: class, What: what,
			Diagnostic: diag, MessageID: ev.Data.EmailID, ReportedAt: at})
	}
	return out, nil
}

// recipients reads a "to" that is a list of addresses or one address;
// "Name <addr>" gives addr.
func recipients(raw json.RawMessage) []string {
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		var one string
		if json.Unmarshal(raw, &one) != nil || one == "" {
			return nil
		}
		list = []string{one}
	}
	out := make([]string, 0, len(list))
	for _, s := range list {
		if a, err := mail.ParseAddress(s); err == nil && strings.Contains(s, "<") {
			s = a.Address
		}
		out = append(out, s)
	}
	return out
}

// parseTime reads an RFC 3339 time; zero when it is not one.
func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		// PostgreSQL's text form ("2024-11-22 23:41:11.894719+00"), which
		// Resend's data.created_at takes.
		if t, err = time.Parse("2006-01-02 15:04:05.999999999Z07", strings.TrimSpace(s)); err != nil {
			return time.Time{}
		}
	}
	return t.UTC()
}
