// Package intaketest plays the providers' side of intake for other
// packages' tests and benchmarks: it makes each provider's requests with
// real signatures (Resend's Standard Webhooks HMAC, SendGrid's ECDSA
// P-256, Mailgun's HMAC block, Postmark's basic auth, SNS's RSA message
// signature of versions 1 and 2), with keys made for the test, and runs
// an SNS double (its own CA, a certificate for an sns.<region>.amazonaws.com
// host, a loopback TLS server) that the service reaches through the
// client it hands out: no test reaches the network.
package intaketest

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/intake"
)

// Resend signs like Resend's webhooks (Standard Webhooks / svix).
type Resend struct{ Secret string }

// NewResend makes a signing secret.
func NewResend() Resend {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return Resend{Secret: api.WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b)}
}

// Request is a signed POST of body to url, with webhook message ID id,
// signed at at.
func (p Resend) Request(url, id string, body []byte, at time.Time) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	sig, err := api.SignWebhook(p.Secret, id, at, body)
	if err != nil {
		panic(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(api.HeaderSvixID, id)
	req.Header.Set(api.HeaderSvixTimestamp, strconv.FormatInt(at.Unix(), 10))
	req.Header.Set(api.HeaderSvixSignature, sig)
	return req
}

// ResendBounce is the body of an email.bounced event.
func ResendBounce(to, typ, subType, message string) []byte {
	return mustJSON(map[string]any{"type": "email.bounced", "created_at": "2026-11-02T09:30:00.000Z", "data": map[string]any{
		"email_id": "4ef9a417-02e9-4d39-ad75-9611e0fcc33c", "from": "Acme <billing@acme.test>", "to": []string{to},
		"subject": "Your invoice", "created_at": "2026-11-02 09:29:58.12+00",
		"bounce": map[string]any{"type": typ, "subType": subType, "message": message}}})
}

// ResendEvent is the body of another email event (email.complained,
// email.delivered, ...).
func ResendEvent(typ, to string) []byte {
	return mustJSON(map[string]any{"type": typ, "created_at": "2026-11-02T09:30:00.000Z", "data": map[string]any{
		"email_id": "4ef9a417-02e9-4d39-ad75-9611e0fcc33c", "from": "billing@acme.test", "to": []string{to}, "subject": "Your invoice"}})
}

// SendGrid signs like SendGrid's Signed Event Webhook.
type SendGrid struct {
	key *ecdsa.PrivateKey
	// PublicKey is the verification key as SendGrid shows it: base64 of
	// the PKIX DER.
	PublicKey string
}

// NewSendGrid makes a key pair.
func NewSendGrid() SendGrid {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	der, _ := x509.MarshalPKIXPublicKey(&k.PublicKey)
	return SendGrid{key: k, PublicKey: base64.StdEncoding.EncodeToString(der)}
}

// Request is a signed POST of body (a JSON array of events) signed at at.
func (p SendGrid) Request(url string, body []byte, at time.Time) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	ts := strconv.FormatInt(at.Unix(), 10)
	sum := sha256.Sum256(append([]byte(ts), body...))
	sig, err := ecdsa.SignASN1(rand.Reader, p.key, sum[:])
	if err != nil {
		panic(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(intake.SendGridSignatureHeader, base64.StdEncoding.EncodeToString(sig))
	req.Header.Set(intake.SendGridTimestampHeader, ts)
	return req
}

// SendGridEvent is one event of a batch: event, email and ID, with
// fields (type, reason, status, ...).
func SendGridEvent(event, email, id string, fields map[string]any) map[string]any {
	e := map[string]any{"email": email, "event": event, "sg_event_id": id, "timestamp": 1793611800,
		"sg_message_id": "14c5d75ce93.dfd.64b469.filter0001.16648.5515E0B88.0", "smtp-id": "<14c5d75ce93.dfd.64b469@ismtpd-555>"}
	for k, v := range fields {
		e[k] = v
	}
	return e
}

// SendGridBatch is the body of a batch of events.
func SendGridBatch(events ...map[string]any) []byte { return mustJSON(events) }

// Mailgun signs like Mailgun's webhooks: the signature block in the body.
type Mailgun struct{ Key string }

// NewMailgun makes a signing key.
func NewMailgun() Mailgun {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return Mailgun{Key: "key-" + hex.EncodeToString(b)}
}

// Body is the body of an event signed at at, with a fresh token.
func (p Mailgun) Body(event map[string]any, at time.Time) []byte {
	tok := make([]byte, 25)
	_, _ = rand.Read(tok)
	ts, token := strconv.FormatInt(at.Unix(), 10), hex.EncodeToString(tok)
	m := hmac.New(sha256.New, []byte(p.Key))
	m.Write([]byte(ts + token))
	return mustJSON(map[string]any{"signature": map[string]string{"timestamp": ts, "token": token, "signature": hex.EncodeToString(m.Sum(nil))},
		"event-data": event})
}

// MailgunFailed is a failed event's data.
func MailgunFailed(id, recipient, severity, reason, enhanced, message string) map[string]any {
	return map[string]any{"id": id, "event": "failed", "severity": severity, "reason": reason, "recipient": recipient,
		"timestamp": 1793611800.123, "delivery-status": map[string]any{"code": 550, "enhanced-code": enhanced, "message": message,
			"mx-host": "mx.example.com", "attempt-no": 1}, "message": map[string]any{"headers": map[string]any{"message-id": "20261102.1@acme.test"}}}
}

// MailgunEvent is another event's data (complained, unsubscribed,
// delivered, ...).
func MailgunEvent(id, event, recipient string) map[string]any {
	return map[string]any{"id": id, "event": event, "recipient": recipient, "timestamp": 1793611800.5,
		"message": map[string]any{"headers": map[string]any{"message-id": "20261102.1@acme.test"}}}
}

// Postmark authenticates like Postmark's webhooks: basic auth in the URL.
type Postmark struct{ User, Pass string }

// NewPostmark makes credentials.
func NewPostmark() Postmark {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return Postmark{User: "postmark", Pass: hex.EncodeToString(b)}
}

// BasicAuth is the endpoint's credential, user:password.
func (p Postmark) BasicAuth() string { return p.User + ":" + p.Pass }

// Request is a POST of body with the credentials.
func (p Postmark) Request(url string, body []byte) *http.Request {
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.SetBasicAuth(p.User, p.Pass)
	return req
}

// PostmarkBounce is a Bounce record.
func PostmarkBounce(id int, email, typ string, code int, details string) []byte {
	return mustJSON(map[string]any{"RecordType": "Bounce", "ID": id, "Type": typ, "TypeCode": code, "Name": typ, "Tag": "invoice",
		"MessageID": "883953f4-6105-42a2-a16a-77a8eac79483", "ServerID": 23, "MessageStream": "outbound", "Description": "The server was unable to deliver your message.",
		"Details": details, "Email": email, "From": "billing@acme.test", "BouncedAt": "2026-11-02T09:30:00Z", "DumpAvailable": true,
		"Inactive": true, "CanActivate": true, "Subject": "Your invoice"})
}

// PostmarkComplaint is a SpamComplaint record.
func PostmarkComplaint(id int, email string) []byte {
	return mustJSON(map[string]any{"RecordType": "SpamComplaint", "ID": id, "Type": "SpamComplaint", "TypeCode": 100001,
		"MessageID": "883953f4-6105-42a2-a16a-77a8eac79483", "Email": email, "BouncedAt": "2026-11-02T09:30:00Z", "MessageStream": "outbound"})
}

// PostmarkSubscription is a SubscriptionChange record.
func PostmarkSubscription(email, reason string, suppress bool) []byte {
	return mustJSON(map[string]any{"RecordType": "SubscriptionChange", "MessageID": "883953f4-6105-42a2-a16a-77a8eac79483",
		"ServerID": 23, "MessageStream": "outbound", "ChangedAt": "2026-11-02T09:30:00Z", "Recipient": email, "Origin": "Recipient",
		"SuppressSending": suppress, "SuppressionReason": reason})
}

// SNS is a double of Amazon SNS: its signing key and certificate, served
// with the subscription confirmations from a loopback TLS server whose
// certificate (for sns.us-east-1.amazonaws.com) its own CA signs.
type SNS struct {
	// Client reaches the double for every sns.*.amazonaws.com URL and
	// trusts its CA: the service's intake.ReceiverOptions.SNSClient.
	Client *http.Client
	// CertURL is the SigningCertURL of the messages it signs.
	CertURL string
	key     *rsa.PrivateKey
	// Confirmed counts the subscriptions confirmed; CertFetches the
	// certificate's downloads.
	Confirmed, CertFetches atomic.Int64
}

// Host is the SNS host the double stands for.
const Host = "sns.us-east-1.amazonaws.com"

// NewSNS starts the double; it stops when t ends.
func NewSNS(t testing.TB) *SNS {
	t.Helper()
	ca, caKey := newCA()
	s := &SNS{key: mustRSA(), CertURL: "https://" + Host + "/SimpleNotificationService-0000000000000000000000000000000.pem"}
	signing := certFor(ca, caKey, "sns.amazonaws.com", &s.key.PublicKey)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /SimpleNotificationService-0000000000000000000000000000000.pem", func(w http.ResponseWriter, r *http.Request) {
		s.CertFetches.Add(1)
		_ = pem.Encode(w, &pem.Block{Type: "CERTIFICATE", Bytes: signing})
	})
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("Action") != "ConfirmSubscription" {
			http.NotFound(w, r)
			return
		}
		s.Confirmed.Add(1)
		_, _ = w.Write([]byte("<ConfirmSubscriptionResponse/>"))
	})
	srv := httptest.NewUnstartedServer(mux)
	tlsKey := mustRSA()
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{certFor(ca, caKey, Host, &tlsKey.PublicKey)}, PrivateKey: tlsKey}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	addr := srv.Listener.Addr().String()
	s.Client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}}
	return s
}

// Notification is the body of a signed Notification of message on topic,
// with signature version 1 or 2, published at at.
func (s *SNS) Notification(topic, id, message string, version int, at time.Time) []byte {
	m := map[string]string{"Type": "Notification", "MessageId": id, "TopicArn": topic, "Message": message,
		"Timestamp": at.UTC().Format("2006-01-02T15:04:05.000Z"), "SignatureVersion": strconv.Itoa(version),
		"SigningCertURL": s.CertURL, "UnsubscribeURL": "https://" + Host + "/?Action=Unsubscribe&SubscriptionArn=" + topic + ":1"}
	text := "Message\n" + m["Message"] + "\nMessageId\n" + id + "\nTimestamp\n" + m["Timestamp"] + "\nTopicArn\n" + topic + "\nType\nNotification\n"
	m["Signature"] = s.sign(text, version)
	return mustJSON(m)
}

// Confirmation is the body of a signed SubscriptionConfirmation of topic.
func (s *SNS) Confirmation(topic string, at time.Time) []byte {
	m := map[string]string{"Type": "SubscriptionConfirmation", "MessageId": "165545c9-2a5c-472c-8df2-7ff2be2b3b1b", "Token": "2336412f37fb687f5d51e6e241d",
		"TopicArn": topic, "Message": "You have chosen to subscribe to the topic " + topic + ".\nTo confirm the subscription, visit the SubscribeURL included in this message.",
		"SubscribeURL": "https://" + Host + "/?Action=ConfirmSubscription&TopicArn=" + topic + "&Token=2336412f37fb687f5d51e6e241d",
		"Timestamp":    at.UTC().Format("2006-01-02T15:04:05.000Z"), "SignatureVersion": "2", "SigningCertURL": s.CertURL}
	text := ""
	for _, k := range []string{"Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"} {
		text += k + "\n" + m[k] + "\n"
	}
	m["Signature"] = s.sign(text, 2)
	return mustJSON(m)
}

func (s *SNS) sign(text string, version int) string {
	var sig []byte
	var err error
	if version == 1 {
		sum := sha1.Sum([]byte(text))
		sig, err = rsa.SignPKCS1v15(rand.Reader, s.key, crypto.SHA1, sum[:])
	} else {
		sum := sha256.Sum256([]byte(text))
		sig, err = rsa.SignPKCS1v15(rand.Reader, s.key, crypto.SHA256, sum[:])
	}
	if err != nil {
		panic(err)
	}
	return base64.StdEncoding.EncodeToString(sig)
}

// SESBounce is an SES bounce notification of the recipients, each with
// its status and diagnostic.
func SESBounce(feedbackID, bounceType, subType string, recipients ...[3]string) string {
	var rs []map[string]string
	for _, r := range recipients {
		rs = append(rs, map[string]string{"emailAddress": r[0], "action": "failed", "status": r[1], "diagnosticCode": r[2]})
	}
	return string(mustJSON(map[string]any{"notificationType": "Bounce", "bounce": map[string]any{"feedbackId": feedbackID,
		"bounceType": bounceType, "bounceSubType": subType, "bouncedRecipients": rs, "timestamp": "2026-11-02T09:30:00.123Z",
		"reportingMTA": "dsn; a8-70.smtp-out.amazonses.com"}, "mail": map[string]any{"messageId": "0100019-ses-1", "source": "billing@acme.test"}}))
}

// SESComplaint is an SES complaint notification.
func SESComplaint(feedbackID, feedbackType string, recipients ...string) string {
	var rs []map[string]string
	for _, r := range recipients {
		rs = append(rs, map[string]string{"emailAddress": r})
	}
	return string(mustJSON(map[string]any{"notificationType": "Complaint", "complaint": map[string]any{"feedbackId": feedbackID,
		"complaintFeedbackType": feedbackType, "complainedRecipients": rs, "timestamp": "2026-11-02T09:30:00.123Z"},
		"mail": map[string]any{"messageId": "0100019-ses-1"}}))
}

func newCA() (*x509.Certificate, *rsa.PrivateKey) {
	k := mustRSA()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "shush test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		panic(err)
	}
	c, _ := x509.ParseCertificate(der)
	return c, k
}

func certFor(ca *x509.Certificate, caKey *rsa.PrivateKey, host string, pub *rsa.PublicKey) []byte {
	n, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{SerialNumber: n, Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, pub, caKey)
	if err != nil {
		panic(err)
	}
	return der
}

func mustRSA() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprint("intaketest: ", err))
	}
	return b
}
