package intake

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
)

// The headers of SendGrid's Signed Event Webhook.
const (
	SendGridSignatureHeader = "X-Twilio-Email-Event-Webhook-Signature"
	SendGridTimestampHeader = "X-Twilio-Email-Event-Webhook-Timestamp"
)

// sendGridKey reads SendGrid's verification key: the base64 of an ECDSA
// P-256 public key (PKIX), as its Mail Settings show it, or the same in
// PEM; what the endpoint keeps is the base64.
func sendGridKey(s string) (string, error) {
	if s == "" {
		return "", errors.New("`public_key` is missing: give the verification key of SendGrid's Signed Event Webhook")
	}
	if b, _ := pem.Decode([]byte(s)); b != nil {
		s = base64.StdEncoding.EncodeToString(b.Bytes)
	}
	s = strings.Join(strings.Fields(s), "")
	if _, err := parseSendGridKey(s); err != nil {
		return "", errors.New("`public_key` is not an ECDSA P-256 public key in base64, as SendGrid's Mail Settings show it")
	}
	return s, nil
}

func parseSendGridKey(s string) (*ecdsa.PublicKey, error) {
	der, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		return nil, err
	}
	k, ok := pub.(*ecdsa.PublicKey)
	if !ok || k.Curve != elliptic.P256() {
		return nil, errors.New("not an ECDSA P-256 key")
	}
	return k, nil
}

// verifySendGrid checks the signature SendGrid makes with its private
// key: ECDSA over the SHA-256 of the timestamp header followed by the
// body, ASN.1 DER, base64.
func verifySendGrid(key string, h http.Header, body []byte, now time.Time) error {
	sig, ts := h.Get(SendGridSignatureHeader), h.Get(SendGridTimestampHeader)
	if sig == "" || ts == "" {
		return refused{"sendgrid: the request lacks its " + SendGridSignatureHeader + " or " + SendGridTimestampHeader + " header"}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || ts[0] == '+' || ts[0] == '-' {
		return refused{"sendgrid: the timestamp is not a Unix time in seconds"}
	}
	if err := withinTolerance("sendgrid", time.Unix(sec, 0), now, SendGridTolerance); err != nil {
		return err
	}
	pub, err := parseSendGridKey(key)
	if err != nil {
		return refused{"sendgrid: the endpoint's public key does not read"}
	}
	der, err := base64.StdEncoding.DecodeString(sig)
	if err != nil {
		return refused{"sendgrid: the signature is not base64"}
	}
	sum := sha256.New()
	sum.Write([]byte(ts))
	sum.Write(body)
	if !ecdsa.VerifyASN1(pub, sum.Sum(nil), der) {
		return refused{"sendgrid: the signature does not match the body and the endpoint's public key"}
	}
	return nil
}

// sendGridEvent is one event of SendGrid's Event Webhook.
type sendGridEvent struct {
	Email          string      `json:"email"`
	Event          string      `json:"event"`
	Type           string      `json:"type"`
	Timestamp      json.Number `json:"timestamp"`
	EventID        string      `json:"sg_event_id"`
	MessageID      string      `json:"sg_message_id"`
	SMTPID         string      `json:"smtp-id"`
	Reason         string      `json:"reason"`
	Response       string      `json:"response"`
	Status         string      `json:"status"`
	Classification string      `json:"bounce_classification"`
	Group          json.Number `json:"asm_group_id"`
}

// sendGridDropped classes a dropped event by SendGrid's reason: it did
// not send to an address its own lists hold.
var sendGridDropped = map[string]Class{
	"bounced address":        Permanent,
	"invalid":                Permanent,
	"spam reporting address": Complaint,
	"unsubscribed address":   Unsubscribe,
}

// class is what a SendGrid event says of its recipient.
func (e sendGridEvent) class() (Class, string) {
	switch e.Event {
	case "bounce":
		if e.Type == "blocked" {
			// A block refuses the message, its sender or its content:
			// a temporary one is counted, a policy refusal (5.7.x) and
			// any other are judged.
			switch status := Status(e.Status, e.Reason); {
			case strings.HasPrefix(status, "4."):
				return Temporary, "bounce/blocked"
			case strings.HasPrefix(status, "5.7."):
				return Permanent, "bounce/blocked"
			}
			return Unknown, "bounce/blocked"
		}
		return Permanent, "bounce"
	case "deferred":
		return Temporary, "deferred"
	case "spamreport":
		return Complaint, "spamreport"
	case "unsubscribe":
		return Unsubscribe, "unsubscribe"
	case "group_unsubscribe":
		return Scoped, "group_unsubscribe " + e.Group.String()
	case "dropped":
		if c, ok := sendGridDropped[strings.ToLower(strings.TrimSpace(e.Reason))]; ok {
			return c, "dropped: " + e.Reason
		}
		return Other, "dropped: " + e.Reason
	}
	return Other, e.Event
}

// parseSendGrid reads a signed batch of SendGrid events: each event's ID
// is its sg_event_id.
func parseSendGrid(body []byte) ([]Event, error) {
	var events []sendGridEvent
	d := json.NewDecoder(strings.NewReader(string(body)))
	d.UseNumber()
	if err := d.Decode(&events); err != nil {
		return nil, malformed{"sendgrid: the body is not a JSON array of events"}
	}
	out := make([]Event, 0, len(events))
	for i, e := range events {
		if e.EventID == "" {
			return nil, malformed{fmt.Sprintf("sendgrid: event %d has no sg_event_id", i)}
		}
		class, what := e.class()
		diag := e.Reason
		if e.Response != "" {
			diag = e.Response
		}
		if e.Classification != "" {
			what += " (" + e.Classification + ")"
		}
		msg := e.SMTPID
		if msg == "" {
			msg, _, _ = strings.Cut(e.MessageID, ".filter")
		}
		var at time.Time
		if f, err := e.Timestamp.Float64(); err == nil && f > 0 {
			at = time.Unix(int64(f), 0).UTC()
		}
		out = append(out, Event{Provider: api.ProviderSendGrid, EventID: e.EventID, Email: e.Email, Class: class, What: what,
			Status: e.Status, Diagnostic: diag, MessageID: strings.Trim(msg, "<>"), ReportedAt: at})
	}
	return out, nil
}
