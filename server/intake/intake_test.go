package intake

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// The classification's table: each class, and the status codes that
// change it.
func TestClassify(t *testing.T) {
	for _, c := range []struct {
		class          Class
		status, diag   string
		email          string
		action, origin string
		kind           string
	}{
		{Permanent, "5.1.1", "", "a@example.com", store.ActList, "bounce", "bounce"},
		{Permanent, "", "smtp; 550 5.1.1 user unknown", "a@example.com", store.ActList, "bounce", "bounce"},
		{Permanent, "5.7.1", "", "a@example.com", store.ActReview, "bounce", "bounce"},
		{Permanent, "", "550 5.7.26 DMARC", "a@example.com", store.ActReview, "bounce", "bounce"},
		{Temporary, "4.2.2", "", "a@example.com", store.ActCount, "bounce", "bounce"},
		{Undetermined, "", "", "a@example.com", store.ActReview, "bounce", "bounce"},
		{Complaint, "", "", "a@example.com", store.ActList, "complaint", "complaint"},
		{Unsubscribe, "", "", "a@example.com", store.ActList, "manual", "unsubscribe"},
		{Scoped, "", "", "a@example.com", store.ActReview, "manual", "unsubscribe"},
		{AutoReply, "", "", "a@example.com", store.ActIgnore, "", "bounce"},
		{Other, "", "", "a@example.com", store.ActIgnore, "", "bounce"},
		{Unknown, "", "", "a@example.com", store.ActReview, "bounce", "bounce"},
		{Unknown, "5.7.1", "", "a@example.com", store.ActReview, "bounce", "bounce"},
		{Permanent, "5.1.1", "", "not an address", store.ActIgnore, "", ""},
		{Permanent, "5.1.1", "", "", store.ActIgnore, "", ""},
	} {
		got := Classify(Event{Provider: "sendgrid", EventID: "e1", Email: c.email, Class: c.class, What: "x", Status: c.status, Diagnostic: c.diag})
		if got.Action != c.action || string(got.Origin) != c.origin || got.Evidence.Kind != c.kind {
			t.Errorf("%s %q %q %q: %s %s %s; want %s %s %s", c.class, c.status, c.diag, c.email, got.Action, got.Origin, got.Evidence.Kind, c.action, c.origin, c.kind)
		}
		if (got.Action == store.ActReview || got.Action == store.ActIgnore) && got.Reason == "" {
			t.Errorf("%s: no reason", c.class)
		}
	}
	// The evidence keeps the provider's words, cut to 1,000 bytes on a
	// character's boundary, and the address normalized.
	long := strings.Repeat("é", 600)
	got := Classify(Event{Provider: "mailgun", EventID: "e", Email: " Bob@Example.COM ", Class: Permanent, Diagnostic: long, ReportedAt: time.Unix(1, 5e8)})
	if got.Email != "bob@example.com" || len(got.Evidence.Diagnostic) != 1000 || got.Evidence.ReportedAt == nil || got.Evidence.ReportedAt.Nanosecond() != 5e8 {
		t.Errorf("evidence %+v (diagnostic %d bytes)", got.Evidence, len(got.Evidence.Diagnostic))
	}
}

// Only an https URL on an SNS host is fetched or visited.
func TestSNSURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem":     true,
		"https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-1.pem": true,
		"https://sns.us-east-1.amazonaws.com:443/x.pem":                           true,
		"http://sns.us-east-1.amazonaws.com/x.pem":                                false,
		"https://sns.us-east-1.amazonaws.com.evil.test/x.pem":                     false,
		"https://evil.test/sns.us-east-1.amazonaws.com/x.pem":                     false,
		"https://user@sns.us-east-1.amazonaws.com/x.pem":                          false,
		"https://sns.us-east-1.amazonaws.com:8443/x.pem":                          false,
		"https://s3.amazonaws.com/x.pem":                                          false,
		"":                                                                        false,
	} {
		if _, err := snsURL("SigningCertURL", raw); (err == nil) != ok {
			t.Errorf("snsURL(%q): %v; want ok %v", raw, err, ok)
		}
	}
}

// SNS signs a Subject only when the message has one.
func TestSNSStringToSign(t *testing.T) {
	subject := "Amazon SES Email Event Notification"
	m := snsMessage{Type: snsNotification, MessageID: "id", TopicArn: "arn", Message: "m", Timestamp: "t"}
	without, _ := m.stringToSign()
	m.Subject = &subject
	with, _ := m.stringToSign()
	if without != "Message\nm\nMessageId\nid\nTimestamp\nt\nTopicArn\narn\nType\nNotification\n" ||
		with != "Message\nm\nMessageId\nid\nSubject\n"+subject+"\nTimestamp\nt\nTopicArn\narn\nType\nNotification\n" {
		t.Errorf("string to sign:\n%q\n%q", without, with)
	}
	if _, err := (snsMessage{Type: "Other"}).stringToSign(); err == nil {
		t.Error("a Type SNS does not sign was signed")
	}
}

// A credential of the wrong kind for a provider, or a bad one, is refused
// naming the field, never repeating it.
func TestCredential(t *testing.T) {
	for _, c := range []struct {
		provider string
		in       api.CreateIntakeRequest
		says     string
	}{
		{"resend", api.CreateIntakeRequest{}, "`secret` is missing"},
		{"resend", api.CreateIntakeRequest{Secret: "whsec_!!hidden!!"}, "not a signing secret"},
		{"mailgun", api.CreateIntakeRequest{Secret: "two words-hidden"}, "one word"},
		{"sendgrid", api.CreateIntakeRequest{Secret: "hidden"}, "`secret` is not taken for sendgrid"},
		{"postmark", api.CreateIntakeRequest{BasicAuth: ":hidden"}, "user:password"},
		{"ses", api.CreateIntakeRequest{TopicArn: "arn:aws:sqs:x"}, "topic_arn"},
		{"ses", api.CreateIntakeRequest{BasicAuth: "a:hidden"}, "not taken for ses"},
	} {
		_, err := Credential(c.provider, c.in)
		if err == nil || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "hidden") {
			t.Errorf("%s %+v: %v; want %q, the value not repeated", c.provider, c.in, err, c.says)
		}
	}
	if h, err := Credential("postmark", api.CreateIntakeRequest{BasicAuth: "hook:pass"}); err != nil || len(h) != 64 || strings.Contains(h, "pass") {
		t.Errorf("a postmark credential is kept as %q, %v; want its SHA-256", h, err)
	}
}

// A signed body that is not the provider's format is refused as such,
// and a SendGrid event without its ID cannot be told from its replay.
func TestMalformedBodies(t *testing.T) {
	if _, err := parseSendGrid([]byte(`[{"email":"a@example.com","event":"bounce"}]`)); err == nil || !strings.Contains(err.Error(), "sg_event_id") {
		t.Errorf("a SendGrid event without sg_event_id: %v", err)
	}
	if _, err := parseResend(http.Header{}, []byte(`[]`)); err == nil {
		t.Error("a Resend body that is an array was taken")
	}
	if _, err := parsePostmark(http.Header{}, []byte(`{"RecordType":"Bounce","Email":"a@example.com","Type":"HardBounce"}`)); err == nil {
		t.Error("a Postmark bounce without its ID was taken")
	}
	events, err := parsePostmark(http.Header{}, []byte(`{"RecordType":"Bounce","ID":7,"TypeCode":1,"Email":"a@example.com"}`))
	if err != nil || len(events) != 1 || events[0].Class != Permanent {
		t.Errorf("a Postmark bounce with its TypeCode only: %+v, %v", events, err)
	}
}
