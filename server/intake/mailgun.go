package intake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
)

// mailgunBody is a Mailgun webhook's body: the signature block beside
// the event.
type mailgunBody struct {
	Signature *struct {
		Timestamp string `json:"timestamp"`
		Token     string `json:"token"`
		Signature string `json:"signature"`
	} `json:"signature"`
	Event *mailgunEvent `json:"event-data"`
}

type mailgunEvent struct {
	ID        string      `json:"id"`
	Event     string      `json:"event"`
	Severity  string      `json:"severity"`
	Reason    string      `json:"reason"`
	Recipient string      `json:"recipient"`
	Timestamp json.Number `json:"timestamp"`
	Status    struct {
		Code         json.Number `json:"code"`
		Message      string      `json:"message"`
		Description  string      `json:"description"`
		EnhancedCode string      `json:"enhanced-code"`
	} `json:"delivery-status"`
	Message struct {
		Headers struct {
			MessageID string `json:"message-id"`
		} `json:"headers"`
	} `json:"message"`
}

// receiveMailgun checks the signature block Mailgun posts beside the
// event (HMAC-SHA256 of timestamp and token, keyed with the webhook
// signing key, hex) and reads the event. The body is read only to find
// the block; nothing of the event is used before the block holds.
func receiveMailgun(key string, body []byte, now time.Time) (Delivery, error) {
	var b mailgunBody
	d := json.NewDecoder(strings.NewReader(string(body)))
	d.UseNumber()
	if err := d.Decode(&b); err != nil || b.Signature == nil {
		return Delivery{}, refused{"mailgun: the body carries no signature block"}
	}
	s := b.Signature
	sec, err := strconv.ParseInt(s.Timestamp, 10, 64)
	if err != nil {
		return Delivery{}, refused{"mailgun: the signature's timestamp is not a Unix time in seconds"}
	}
	mac := hmac.New(sha256.New, []byte(key))
	mac.Write([]byte(s.Timestamp + s.Token))
	got, err := hex.DecodeString(s.Signature)
	if err != nil || !hmac.Equal(got, mac.Sum(nil)) {
		return Delivery{}, refused{"mailgun: the signature does not match the endpoint's signing key"}
	}
	// The block holds; its timestamp is the key's own word.
	if err := withinTolerance("mailgun", time.Unix(sec, 0), now, MailgunTolerance); err != nil {
		return Delivery{}, err
	}
	if b.Event == nil || b.Event.Event == "" {
		return Delivery{}, malformed{"mailgun: the body has no event-data"}
	}
	e := b.Event
	// The signature covers the timestamp and the token, not the event:
	// the token is taken in once, so that a captured request sent again
	// with another event is a replay. An event without its ID is known
	// by the token alone.
	id, keys := e.ID, []string{"token:" + s.Token}
	if id == "" {
		id, keys = keys[0], nil
	}
	class, what := e.class()
	diag := e.Status.Message
	if diag == "" {
		diag = e.Status.Description
	}
	var at time.Time
	if f, err := e.Timestamp.Float64(); err == nil && f > 0 {
		at = time.Unix(int64(f), int64((f-float64(int64(f)))*1e9)).UTC()
	}
	return Delivery{Events: []Event{{Provider: api.ProviderMailgun, EventID: id, ReplayKeys: keys, Email: e.Recipient, Class: class, What: what,
		Status: e.Status.EnhancedCode, Diagnostic: diag, MessageID: strings.Trim(e.Message.Headers.MessageID, "<>"), ReportedAt: at}}}, nil
}

// class is what a Mailgun event says of its recipient: a failure by its
// severity, or by the list Mailgun refused to send to.
func (e mailgunEvent) class() (Class, string) {
	what := strings.Trim(e.Event+" "+e.Severity+"/"+e.Reason, " /")
	switch e.Event {
	case "complained":
		return Complaint, what
	case "unsubscribed":
		return Unsubscribe, what
	case "failed":
	default:
		return Other, what
	}
	switch e.Reason {
	case "suppress-complaint":
		return Complaint, what
	case "suppress-unsubscribe":
		return Unsubscribe, what
	}
	switch e.Severity {
	case "permanent":
		return Permanent, what
	case "temporary":
		return Temporary, what
	}
	return Unknown, what
}
