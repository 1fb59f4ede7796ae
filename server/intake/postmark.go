package intake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/shushlist/shush/api"
)

// postmarkRecord is a Postmark webhook's body: a bounce, a spam
// complaint or a subscription change.
type postmarkRecord struct {
	RecordType        string      `json:"RecordType"`
	ID                json.Number `json:"ID"`
	Type              string      `json:"Type"`
	TypeCode          json.Number `json:"TypeCode"`
	MessageID         string      `json:"MessageID"`
	Email             string      `json:"Email"`
	Description       string      `json:"Description"`
	Details           string      `json:"Details"`
	BouncedAt         string      `json:"BouncedAt"`
	Recipient         string      `json:"Recipient"`
	SuppressSending   *bool       `json:"SuppressSending"`
	SuppressionReason string      `json:"SuppressionReason"`
	ChangedAt         string      `json:"ChangedAt"`
	Origin            string      `json:"Origin"`
}

// postmarkBounces classes Postmark's bounce types; a type not here is
// judged by an agent.
var postmarkBounces = map[string]Class{
	"HardBounce":              Permanent,
	"BadEmailAddress":         Permanent,
	"Transient":               Temporary,
	"SoftBounce":              Temporary,
	"DnsError":                Temporary,
	"AutoResponder":           AutoReply,
	"ChallengeVerification":   AutoReply,
	"SpamComplaint":           Complaint,
	"Unsubscribe":             Unsubscribe,
	"Subscribe":               Other,
	"OpenRelayTest":           Other,
	"SMTPApiError":            Other,
	"InboundError":            Other,
	"TemplateRenderingFailed": Other,
	"Unconfirmed":             Other,
}

// postmarkTypeCodes names the bounce types by code, for a record that
// gives only the code.
var postmarkTypeCodes = map[string]string{
	"1": "HardBounce", "2": "Transient", "16": "Unsubscribe", "32": "Subscribe", "64": "AutoResponder", "128": "AddressChange",
	"256": "DnsError", "512": "SpamNotification", "1024": "OpenRelayTest", "2048": "Unknown", "4096": "SoftBounce",
	"8192": "VirusNotification", "16384": "ChallengeVerification", "100000": "BadEmailAddress", "100001": "SpamComplaint",
	"100002": "ManuallyDeactivated", "100003": "Unconfirmed", "100006": "Blocked", "100007": "SMTPApiError",
	"100008": "InboundError", "100009": "DMARCPolicy", "100010": "TemplateRenderingFailed",
}

// postmarkSuppressions classes a subscription change that suppresses
// sending, by Postmark's reason.
var postmarkSuppressions = map[string]Class{
	"HardBounce":        Permanent,
	"SpamComplaint":     Complaint,
	"ManualSuppression": Unsubscribe,
}

// parsePostmark reads an authenticated Postmark record. Bounces and
// complaints carry Postmark's own ID; a subscription change has none, so
// its ID is the webhook's trace ID (the same on Postmark's retries) or,
// without one, its message, recipient and time.
func parsePostmark(h http.Header, body []byte) ([]Event, error) {
	var r postmarkRecord
	d := json.NewDecoder(strings.NewReader(string(body)))
	d.UseNumber()
	if err := d.Decode(&r); err != nil || r.RecordType == "" {
		return nil, malformed{"postmark: the body is not a Postmark webhook record ({\"RecordType\", ...})"}
	}
	switch r.RecordType {
	case "Bounce", "SpamComplaint":
		typ := r.Type
		if typ == "" {
			typ = postmarkTypeCodes[r.TypeCode.String()]
		}
		class, ok := postmarkBounces[typ]
		if r.RecordType == "SpamComplaint" {
			class, ok = Complaint, true
		}
		if !ok {
			class = Unknown
		}
		diag := r.Details
		if diag == "" {
			diag = r.Description
		}
		id := r.ID.String()
		if id == "" {
			if id = h.Get("X-PM-Webhook-Trace-Id"); id == "" {
				return nil, malformed{"postmark: the " + r.RecordType + " record has no ID, which tells its replay"}
			}
			id = "trace:" + id
		}
		return []Event{{Provider: api.ProviderPostmark, EventID: strings.ToLower(r.RecordType) + ":" + id, Email: r.Email,
			Class: class, What: r.RecordType + " " + typ, Diagnostic: diag, MessageID: r.MessageID, ReportedAt: parseTime(r.BouncedAt)}}, nil
	case "SubscriptionChange":
		class := Other
		if r.SuppressSending != nil && *r.SuppressSending {
			if c, ok := postmarkSuppressions[r.SuppressionReason]; ok {
				class = c
			} else {
				class = Unknown
			}
		}
		id := h.Get("X-PM-Webhook-Trace-Id")
		if id == "" {
			id = r.MessageID + "/" + r.Recipient + "/" + r.ChangedAt
		}
		what := "SubscriptionChange " + r.SuppressionReason + " by " + r.Origin + ", suppress sending " + strconv.FormatBool(r.SuppressSending != nil && *r.SuppressSending)
		return []Event{{Provider: api.ProviderPostmark, EventID: "subscription:" + id, Email: r.Recipient, Class: class, What: what,
			MessageID: r.MessageID, ReportedAt: parseTime(r.ChangedAt)}}, nil
	}
	return nil, nil
}
