package intake

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/shushlist/shush/api"
)

// How far a signed request's timestamp may be from the service's clock,
// by provider. Resend (Standard Webhooks) signs every attempt anew, so
// five minutes; SendGrid too. Mailgun's retries resend the first
// attempt's signature for 8 hours, and SNS redelivers the same signed
// message for up to an hour, so their windows cover their retries: a
// replay inside a window is known by its event ID and does nothing.
const (
	ResendTolerance   = 5 * time.Minute
	SendGridTolerance = 5 * time.Minute
	MailgunTolerance  = 9 * time.Hour
	SNSTolerance      = time.Hour
)

// Endpoint is what the check of a request needs of its intake endpoint.
type Endpoint struct {
	Provider   string
	Credential string
	// TopicArn is the only SNS topic an ses endpoint accepts; "" for
	// any (the first one is then pinned by the service).
	TopicArn string
}

// Delivery is what a request that passed its provider's check carries.
type Delivery struct {
	Events []Event
	// Topic is the SNS topic of an ses request, and Confirmed says the
	// request was a subscription confirmation that this one confirmed.
	Topic     string
	Confirmed bool
}

// Receiver checks the providers' requests and reads their events. The
// zero value is not usable: use NewReceiver.
type Receiver struct {
	now   func() time.Time
	certs *certCache
}

// ReceiverOptions tune a Receiver.
type ReceiverOptions struct {
	// SNSClient fetches SNS signing certificates and confirms
	// subscriptions; nil is a client with the system's roots that
	// follows no redirect. Tests give one that trusts their own CA and
	// dials their own server: the URLs it is asked for are still only
	// https ones on an sns.<region>.amazonaws.com host.
	SNSClient *http.Client
	// Now is the clock signed timestamps are checked against; nil is
	// time.Now.
	Now func() time.Time
}

// NewReceiver returns a Receiver.
func NewReceiver(o ReceiverOptions) *Receiver {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SNSClient == nil {
		o.SNSClient = &http.Client{Timeout: 10 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	return &Receiver{now: o.Now, certs: newCertCache(o.SNSClient)}
}

// Receive checks a provider's request against its endpoint (before a byte
// of the body is trusted) and reads its events. A refusal wraps
// ErrSignature; a signed body that is not the provider's format wraps
// ErrPayload.
func (r *Receiver) Receive(ctx context.Context, ep Endpoint, req *http.Request, body []byte) (Delivery, error) {
	switch ep.Provider {
	case api.ProviderResend:
		if err := api.VerifyWebhook(ep.Credential, req.Header, body, r.now()); err != nil {
			return Delivery{}, refused{"resend: " + err.Error()}
		}
		events, err := parseResend(req.Header, body)
		return Delivery{Events: events}, err
	case api.ProviderSendGrid:
		if err := verifySendGrid(ep.Credential, req.Header, body, r.now()); err != nil {
			return Delivery{}, err
		}
		events, err := parseSendGrid(body)
		return Delivery{Events: events}, err
	case api.ProviderMailgun:
		return receiveMailgun(ep.Credential, body, r.now())
	case api.ProviderPostmark:
		if err := checkBasicAuth(ep.Credential, req); err != nil {
			return Delivery{}, err
		}
		events, err := parsePostmark(req.Header, body)
		return Delivery{Events: events}, err
	case api.ProviderSES:
		return r.receiveSES(ctx, ep, body)
	}
	return Delivery{}, fmt.Errorf("intake: no provider %q", ep.Provider)
}

// checkBasicAuth checks a Postmark request's credentials against the
// hash the endpoint keeps, in constant time.
func checkBasicAuth(credential string, req *http.Request) error {
	user, pass, ok := req.BasicAuth()
	if !ok {
		return refused{"postmark: the request carries no basic auth credentials"}
	}
	sum := sha256.Sum256([]byte(user + ":" + pass))
	want, err := hex.DecodeString(credential)
	if err != nil || subtle.ConstantTimeCompare(sum[:], want) != 1 {
		return refused{"postmark: the basic auth credentials do not match the endpoint's"}
	}
	return nil
}

// Credential checks what an endpoint of provider is made with and
// returns what the endpoint keeps: the secret (resend, mailgun), the
// public key (sendgrid), the hash of the basic auth (postmark), nothing
// (ses). The error names the field and never repeats the secret.
func Credential(provider string, in api.CreateIntakeRequest) (string, error) {
	given := map[string]bool{"secret": in.Secret != "", "public_key": in.PublicKey != "", "basic_auth": in.BasicAuth != ""}
	want := map[string]string{api.ProviderResend: "secret", api.ProviderMailgun: "secret", api.ProviderSendGrid: "public_key", api.ProviderPostmark: "basic_auth"}[provider]
	for field, ok := range given {
		if ok && field != want {
			if want == "" {
				return "", fmt.Errorf("`%s` is not taken for %s: SNS signs its messages with Amazon's certificate (give `topic_arn` to accept one topic only)", field, provider)
			}
			return "", fmt.Errorf("`%s` is not taken for %s; give `%s`", field, provider, want)
		}
	}
	switch provider {
	case api.ProviderResend:
		return in.Secret, checkResendSecret(in.Secret)
	case api.ProviderMailgun:
		return in.Secret, checkMailgunKey(in.Secret)
	case api.ProviderSendGrid:
		return sendGridKey(in.PublicKey)
	case api.ProviderPostmark:
		return basicAuthHash(in.BasicAuth)
	case api.ProviderSES:
		return "", CheckTopicArn(in.TopicArn)
	}
	return "", fmt.Errorf("`provider` (%s) must be one of %s", api.Quote(provider), strings.Join(api.Providers(), ", "))
}

func checkResendSecret(secret string) error {
	if secret == "" {
		return errors.New("`secret` is missing: give the endpoint's signing secret from Resend (whsec_…)")
	}
	if _, err := api.SignWebhook(secret, "check", time.Now(), nil); err != nil {
		return errors.New("`secret` is not a signing secret: it is whsec_ followed by base64, as Resend shows it")
	}
	return nil
}

func checkMailgunKey(key string) error {
	if key == "" {
		return errors.New("`secret` is missing: give Mailgun's HTTP webhook signing key")
	}
	if len(key) > 200 || strings.IndexFunc(key, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0 {
		return errors.New("`secret` is not a signing key: one word of at most 200 printable characters")
	}
	return nil
}

func basicAuthHash(cred string) (string, error) {
	user, pass, ok := strings.Cut(cred, ":")
	if !ok || user == "" || pass == "" {
		return "", errors.New("`basic_auth` must be user:password, both given; the password is what Postmark's webhook URL carries")
	}
	if len(cred) > 400 || strings.IndexFunc(cred, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return "", errors.New("`basic_auth` must be at most 400 printable characters")
	}
	sum := sha256.Sum256([]byte(cred))
	return hex.EncodeToString(sum[:]), nil
}

// topicPattern is an SNS topic's ARN.
var topicPattern = regexp.MustCompile(`^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$`)

// CheckTopicArn accepts "" or an SNS topic's ARN.
func CheckTopicArn(arn string) error {
	if arn != "" && !topicPattern.MatchString(arn) {
		return fmt.Errorf("`topic_arn` (%s) is not an SNS topic's ARN, like arn:aws:sns:us-east-1:123456789012:ses-bounces", api.Quote(arn))
	}
	return nil
}

// withinTolerance checks a signed timestamp against now.
func withinTolerance(provider string, sent, now time.Time, tolerance time.Duration) error {
	switch {
	case now.Sub(sent) > tolerance:
		return refused{fmt.Sprintf("%s: the request's timestamp is more than %s before now", provider, tolerance)}
	case sent.Sub(now) > tolerance:
		return refused{fmt.Sprintf("%s: the request's timestamp is more than %s after now", provider, tolerance)}
	}
	return nil
}
