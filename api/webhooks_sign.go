package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// WebhookTolerance is how far a delivery's timestamp may be from the
// receiver's clock; an older (or newer) delivery is refused, so a captured
// one cannot be replayed later.
const WebhookTolerance = 300 * time.Second

// The header names of a signed delivery. Each delivery carries both sets
// with the same values: svix-* is what the hosted service sends and its
// SDKs read, webhook-* is the Standard Webhooks spelling.
const (
	HeaderSvixID           = "svix-id"
	HeaderSvixTimestamp    = "svix-timestamp"
	HeaderSvixSignature    = "svix-signature"
	HeaderWebhookID        = "webhook-id"
	HeaderWebhookTimestamp = "webhook-timestamp"
	HeaderWebhookSignature = "webhook-signature"
)

// webhookSignatureVersion1 starts every signature this package makes or
// checks; other schemes in the header are skipped.
const webhookSignatureVersion1 = "v1,"

// The ways VerifyWebhook refuses a delivery; test with errors.Is.
var (
	ErrWebhookSecret    = errors.New("the webhook signing secret is not whsec_ followed by base64")
	ErrWebhookHeaders   = errors.New("the delivery lacks its svix-id, svix-timestamp or svix-signature header (or the webhook-* ones)")
	ErrWebhookTimestamp = errors.New("the delivery's timestamp is not a Unix time in seconds")
	ErrWebhookTooOld    = errors.New("the delivery's timestamp is more than 5 minutes before now")
	ErrWebhookTooNew    = errors.New("the delivery's timestamp is more than 5 minutes after now")
	ErrWebhookSignature = errors.New("no signature of the delivery matches its body and the signing secret")
)

// webhookKey decodes the key of a signing secret: the base64 after
// "whsec_". A secret without the prefix is taken as the bare base64, as
// the hosted service's verifiers do.
func webhookKey(secret string) ([]byte, error) {
	b64 := strings.TrimPrefix(secret, WebhookSecretPrefix)
	if b64 == "" {
		return nil, ErrWebhookSecret
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		// Some generators leave the padding off; accept that too rather
		// than refusing every delivery of an otherwise good secret.
		if key, err = base64.RawStdEncoding.DecodeString(b64); err != nil {
			return nil, ErrWebhookSecret
		}
	}
	if len(key) == 0 {
		return nil, ErrWebhookSecret
	}
	return key, nil
}

func webhookMAC(key []byte, id, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(ts))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}

// SignWebhook returns the signature of one delivery attempt: "v1," and the
// padded standard base64 of HMAC-SHA256 over "{id}.{timestamp}.{body}",
// keyed with the decoded secret, where timestamp is ts in Unix seconds.
// The same ts must go into the svix-timestamp header.
func SignWebhook(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := webhookKey(secret)
	if err != nil {
		return "", err
	}
	mac := webhookMAC(key, id, strconv.FormatInt(ts.Unix(), 10), body)
	return webhookSignatureVersion1 + base64.StdEncoding.EncodeToString(mac), nil
}

// Headers is what VerifyWebhook reads a delivery's headers from; an
// http.Header is one. The contract names only the interface so that it
// links no HTTP stack: the service's store depends on this package.
type Headers interface {
	Get(key string) string
}

// VerifyWebhook checks a delivery as a receiver gets it: the headers (the
// svix-* ones, or else the webhook-* ones) and the raw body, against the
// endpoint's signing secret, at now. It passes when any of the
// space-separated v1 signatures matches (during a rotation a delivery
// carries the new and the old one) and the timestamp is within
// WebhookTolerance of now. The error says which check failed, never the
// secret or the expected signature.
func VerifyWebhook(secret string, headers Headers, body []byte, now time.Time) error {
	key, err := webhookKey(secret)
	if err != nil {
		return err
	}
	id, ts, sigs := headers.Get(HeaderSvixID), headers.Get(HeaderSvixTimestamp), headers.Get(HeaderSvixSignature)
	if id == "" && ts == "" && sigs == "" {
		id, ts, sigs = headers.Get(HeaderWebhookID), headers.Get(HeaderWebhookTimestamp), headers.Get(HeaderWebhookSignature)
	}
	if id == "" || ts == "" || sigs == "" {
		return ErrWebhookHeaders
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || ts[0] == '+' || ts[0] == '-' {
		return ErrWebhookTimestamp
	}
	sent := time.Unix(sec, 0)
	switch {
	case now.Sub(sent) > WebhookTolerance:
		return ErrWebhookTooOld
	case sent.Sub(now) > WebhookTolerance:
		return ErrWebhookTooNew
	}
	want := webhookMAC(key, id, ts, body)
	for _, s := range strings.Fields(sigs) {
		b64, ok := strings.CutPrefix(s, webhookSignatureVersion1)
		if !ok {
			continue // another scheme (v1a, ...): not ours to judge
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			continue
		}
		if hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrWebhookSignature
}
