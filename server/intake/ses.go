package intake

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/shushlist/shush/api"
)

// snsMessage is the JSON document SNS posts to an HTTP(S) subscriber.
type snsMessage struct {
	Type             string  `json:"Type"`
	MessageID        string  `json:"MessageId"`
	Token            string  `json:"Token"`
	TopicArn         string  `json:"TopicArn"`
	Subject          *string `json:"Subject"`
	Message          string  `json:"Message"`
	Timestamp        string  `json:"Timestamp"`
	SignatureVersion string  `json:"SignatureVersion"`
	Signature        string  `json:"Signature"`
	SigningCertURL   string  `json:"SigningCertURL"`
	SubscribeURL     string  `json:"SubscribeURL"`
}

// The types of SNS messages.
const (
	snsNotification = "Notification"
	snsSubscribe    = "SubscriptionConfirmation"
	snsUnsubscribe  = "UnsubscribeConfirmation"
)

// stringToSign is what SNS signs of a message: the name and value of
// each field it covers, each on its own line, in its order.
func (m snsMessage) stringToSign() (string, error) {
	var fields [][2]string
	switch m.Type {
	case snsNotification:
		fields = [][2]string{{"Message", m.Message}, {"MessageId", m.MessageID}}
		if m.Subject != nil {
			fields = append(fields, [2]string{"Subject", *m.Subject})
		}
		fields = append(fields, [][2]string{{"Timestamp", m.Timestamp}, {"TopicArn", m.TopicArn}, {"Type", m.Type}}...)
	case snsSubscribe, snsUnsubscribe:
		fields = [][2]string{{"Message", m.Message}, {"MessageId", m.MessageID}, {"SubscribeURL", m.SubscribeURL},
			{"Timestamp", m.Timestamp}, {"Token", m.Token}, {"TopicArn", m.TopicArn}, {"Type", m.Type}}
	default:
		return "", refused{"ses: the SNS message's Type " + api.Quote(m.Type) + " is not one SNS signs"}
	}
	var b strings.Builder
	for _, f := range fields {
		b.WriteString(f[0] + "\n" + f[1] + "\n")
	}
	return b.String(), nil
}

// snsHost is a host SNS serves its certificates and subscription
// confirmations from.
var snsHost = regexp.MustCompile(`^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$`)

// snsURL checks that a URL of a message is an https one on an SNS host:
// a forged message cannot make the service fetch anything else.
func snsURL(field, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" || u.User != nil || !snsHost.MatchString(u.Hostname()) || u.Port() != "" && u.Port() != "443" {
		return nil, refused{fmt.Sprintf("ses: the message's %s is not an https URL on an sns.<region>.amazonaws.com host", field)}
	}
	return u, nil
}

// receiveSES checks an SNS message's signature against the certificate of
// its SigningCertURL (fetched over HTTPS from an SNS host, and cached),
// its time and its topic, then confirms a subscription or reads the SES
// notification it carries.
func (r *Receiver) receiveSES(ctx context.Context, ep Endpoint, body []byte) (Delivery, error) {
	var m snsMessage
	if err := json.Unmarshal(body, &m); err != nil || m.Type == "" {
		return Delivery{}, refused{"ses: the body is not an SNS message"}
	}
	if err := r.verifySNS(ctx, m); err != nil {
		return Delivery{}, err
	}
	if ep.TopicArn != "" && m.TopicArn != ep.TopicArn {
		return Delivery{}, refused{"ses: the message's topic " + api.Quote(m.TopicArn) + " is not the endpoint's"}
	}
	d := Delivery{Topic: m.TopicArn}
	switch m.Type {
	case snsSubscribe:
		if err := r.confirm(ctx, m.SubscribeURL); err != nil {
			return Delivery{}, err
		}
		d.Confirmed = true
	case snsNotification:
		events, err := parseSES(m)
		d.Events = events
		return d, err
	}
	return d, nil
}

// verifySNS checks the signature and the time of an SNS message.
func (r *Receiver) verifySNS(ctx context.Context, m snsMessage) error {
	hash := map[string]crypto.Hash{"1": crypto.SHA1, "2": crypto.SHA256}[m.SignatureVersion]
	if hash == 0 {
		return refused{"ses: the SNS message's SignatureVersion " + api.Quote(m.SignatureVersion) + " is neither 1 nor 2"}
	}
	text, err := m.stringToSign()
	if err != nil {
		return err
	}
	sig, err := base64.StdEncoding.DecodeString(m.Signature)
	if err != nil || len(sig) == 0 {
		return refused{"ses: the SNS message's Signature is not base64"}
	}
	u, err := snsURL("SigningCertURL", m.SigningCertURL)
	if err != nil {
		return err
	}
	if !strings.HasSuffix(u.Path, ".pem") {
		return refused{"ses: the message's SigningCertURL does not name a .pem certificate"}
	}
	key, err := r.certs.key(ctx, u.String(), r.now())
	if err != nil {
		return err
	}
	var digest []byte
	if hash == crypto.SHA1 {
		s := sha1.Sum([]byte(text))
		digest = s[:]
	} else {
		s := sha256.Sum256([]byte(text))
		digest = s[:]
	}
	if rsa.VerifyPKCS1v15(key, hash, digest, sig) != nil {
		return refused{"ses: the SNS signature does not match the message and its certificate"}
	}
	sent, err := time.Parse(time.RFC3339Nano, m.Timestamp)
	if err != nil {
		return refused{"ses: the SNS message's Timestamp is not a time"}
	}
	return withinTolerance("ses", sent, r.now(), SNSTolerance)
}

// confirm visits a subscription's SubscribeURL, which SNS takes as the
// subscriber's consent.
func (r *Receiver) confirm(ctx context.Context, raw string) error {
	u, err := snsURL("SubscribeURL", raw)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	res, err := r.certs.client.Do(req)
	if err != nil {
		return fmt.Errorf("ses: the subscription could not be confirmed: %w: %w", errUnreachable, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10))
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("ses: the subscription could not be confirmed: %w: SNS answered %d", errUnreachable, res.StatusCode)
	}
	return nil
}

// certCache keeps the public keys of the SNS certificates fetched, until
// the certificates expire; a few at most (SNS signs with one certificate
// per region at a time).
type certCache struct {
	client *http.Client
	mu     sync.Mutex
	keys   map[string]cachedKey
}

type cachedKey struct {
	key      *rsa.PublicKey
	notAfter time.Time
}

const maxCachedCerts = 64

func newCertCache(c *http.Client) *certCache {
	return &certCache{client: c, keys: map[string]cachedKey{}}
}

// key returns the RSA public key of the certificate at u, fetching it
// when it is not cached or expired.
func (c *certCache) key(ctx context.Context, u string, now time.Time) (*rsa.PublicKey, error) {
	c.mu.Lock()
	k, ok := c.keys[u]
	c.mu.Unlock()
	if ok && now.Before(k.notAfter) {
		return k.key, nil
	}
	cert, err := c.fetch(ctx, u)
	if err != nil {
		return nil, err
	}
	if now.Before(cert.NotBefore) || now.After(cert.NotAfter) {
		return nil, refused{"ses: the SNS signing certificate is not valid now"}
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return nil, refused{"ses: the SNS signing certificate's key is not RSA"}
	}
	c.mu.Lock()
	if len(c.keys) >= maxCachedCerts {
		clear(c.keys)
	}
	c.keys[u] = cachedKey{key: pub, notAfter: cert.NotAfter}
	c.mu.Unlock()
	return pub, nil
}

// errUnreachable is a check that could not be made for want of the
// provider's host: the service answers 502, and SNS retries.
var errUnreachable = errors.New("the provider's host could not be reached")

// fetch reads the PEM certificate at u over HTTPS.
func (c *certCache) fetch(ctx context.Context, u string) (*x509.Certificate, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	res, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ses: the SNS signing certificate could not be fetched: %w: %w", errUnreachable, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err != nil || res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ses: the SNS signing certificate could not be fetched: %w: the host answered %d", errUnreachable, res.StatusCode)
	}
	block, _ := pem.Decode(body)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, refused{"ses: the SigningCertURL does not hold a PEM certificate"}
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, refused{"ses: the SigningCertURL's certificate does not read"}
	}
	return cert, nil
}

// IsUnreachable says whether err is a check that could not be made for
// want of the provider's host (a certificate not fetched, a subscription
// not confirmed): the provider should retry.
func IsUnreachable(err error) bool { return errors.Is(err, errUnreachable) }

// sesNotification is the SES notification an SNS message carries
// (notificationType), or SES's event publishing's event (eventType).
type sesNotification struct {
	NotificationType string `json:"notificationType"`
	EventType        string `json:"eventType"`
	Bounce           *struct {
		FeedbackID    string `json:"feedbackId"`
		BounceType    string `json:"bounceType"`
		BounceSubType string `json:"bounceSubType"`
		Recipients    []struct {
			Email          string `json:"emailAddress"`
			Status         string `json:"status"`
			DiagnosticCode string `json:"diagnosticCode"`
		} `json:"bouncedRecipients"`
		Timestamp    string `json:"timestamp"`
		ReportingMTA string `json:"reportingMTA"`
	} `json:"bounce"`
	Complaint *struct {
		FeedbackID   string `json:"feedbackId"`
		FeedbackType string `json:"complaintFeedbackType"`
		SubType      string `json:"complaintSubType"`
		Recipients   []struct {
			Email string `json:"emailAddress"`
		} `json:"complainedRecipients"`
		Timestamp string `json:"timestamp"`
	} `json:"complaint"`
	Mail struct {
		MessageID string `json:"messageId"`
	} `json:"mail"`
}

// sesBounceClass classes SES's bounce types (Resend's too).
func sesBounceClass(t string) Class {
	switch strings.ToLower(t) {
	case "permanent":
		return Permanent
	case "transient":
		return Temporary
	case "undetermined":
		return Undetermined
	}
	return Unknown
}

// parseSES reads the SES notification of a verified SNS message: one
// Event per recipient, whose ID is SES's feedback ID and the recipient.
// Other notifications (deliveries, sends) carry no event.
func parseSES(m snsMessage) ([]Event, error) {
	var n sesNotification
	if err := json.Unmarshal([]byte(m.Message), &n); err != nil {
		// Not an SES notification: nothing about an address.
		return nil, nil
	}
	typ := n.NotificationType
	if typ == "" {
		typ = n.EventType
	}
	switch {
	case typ == "Bounce" && n.Bounce != nil:
		b := n.Bounce
		class := sesBounceClass(b.BounceType)
		mta := strings.TrimSpace(strings.TrimPrefix(b.ReportingMTA, "dsn;"))
		out := make([]Event, 0, len(b.Recipients))
		for _, rc := range b.Recipients {
			out = append(out, Event{Provider: api.ProviderSES, EventID: feedbackID(b.FeedbackID, m.MessageID) + "/" + lower(rc.Email), Email: rc.Email,
				Class: class, What: "Bounce " + b.BounceType + "/" + b.BounceSubType, Status: rc.Status, Diagnostic: rc.DiagnosticCode,
				ReportingMTA: mta, MessageID: n.Mail.MessageID, ReportedAt: parseTime(b.Timestamp)})
		}
		return out, nil
	case typ == "Complaint" && n.Complaint != nil:
		c := n.Complaint
		class := Complaint
		if strings.EqualFold(c.FeedbackType, "not-spam") {
			class = Other
		}
		out := make([]Event, 0, len(c.Recipients))
		for _, rc := range c.Recipients {
			out = append(out, Event{Provider: api.ProviderSES, EventID: feedbackID(c.FeedbackID, m.MessageID) + "/" + lower(rc.Email), Email: rc.Email,
				Class: class, What: strings.Trim("Complaint "+c.FeedbackType+" "+c.SubType, " "), MessageID: n.Mail.MessageID,
				ReportedAt: parseTime(c.Timestamp)})
		}
		return out, nil
	}
	return nil, nil
}

// feedbackID is SES's ID of a bounce or complaint, or the SNS message's
// when it has none.
func feedbackID(id, snsID string) string {
	if id != "" {
		return id
	}
	return "sns:" + snsID
}
