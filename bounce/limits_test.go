package bounce

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
)

func TestStatusIn(t *testing.T) {
	for in, want := range map[string]string{
		"550 5.1.1 <a@b.example>: unknown":    "5.1.1",
		"550-5.7.26 Unauthenticated":          "5.7.26",
		"Sorry, no mailbox here. (#5.1.1)":    "5.1.1",
		"#550 5.1.10 RESOLVER.ADR ##":         "5.1.10",
		"mailbox full; 4.2.2.":                "4.2.2",
		"host [10.5.1.1] said: no":            "",
		"sent 5.1.2024 and retried":           "",
		"version v5.1.1":                      "",
		"5.1.1000 is not a code":              "",
		"3.1.1 is not a class":                "",
		"250 2.0.0 Ok: queued":                "2.0.0",
		"192.0.2.5.1.1 then 5.7.1 spam":       "5.7.1",
		"5.1":                                 "",
		"":                                    "",
		"smtp;550 5.7.1 Requested action":     "5.7.1",
		"Remote host said: 452 4.2.2 Mailbox": "4.2.2",
	} {
		if got := statusIn(in); got != want {
			t.Errorf("statusIn(%q) = %q, want %q", in, got, want)
		}
	}
}

// An mbox message larger than the limit is an error naming its line; the
// messages after it still come.
func TestMboxMessageTooLarge(t *testing.T) {
	big := strings.Repeat("x", 300) + "\n"
	in := "From a Mon Nov 23 09:14:07 2026\nSubject: big\n\n" + big +
		"\nFrom a Mon Nov 23 09:14:08 2026\nSubject: small\n\nok\n"
	var got []string
	readStream(strings.NewReader(in), "box", 100, func(m Message, err error) bool {
		if err != nil {
			got = append(got, "error: "+err.Error())
		} else {
			got = append(got, m.Source+" "+string(m.Raw))
		}
		return true
	})
	want := []string{"error: box:1: the message is larger than 100 bytes", "box:6 Subject: small\n\nok\n"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Lines longer than the reader's buffer stay whole, and a long separator
// line is not part of the message.
func TestMboxLongLines(t *testing.T) {
	long := strings.Repeat("y", 200<<10)
	in := "From a Mon Nov 23 09:14:07 2026 " + long + "\nSubject: long\n\n" + long + "\nFrom the body\n"
	var msgs []Message
	readStream(strings.NewReader(in), "box", MaxMessageSize, func(m Message, err error) bool {
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, m)
		return true
	})
	want := "Subject: long\n\n" + long + "\nFrom the body\n"
	if len(msgs) != 1 || string(msgs[0].Raw) != want {
		t.Fatalf("got %d messages, want one of %d bytes", len(msgs), len(want))
	}
}

func TestParseRefusesWhatIsNotMail(t *testing.T) {
	huge := "From: a@b.example\n" + strings.Repeat("X-Junk: "+strings.Repeat("j", 70)+"\n", 20000) + "\nbody\n"
	for name, c := range map[string]struct {
		in   io.Reader
		want string
	}{
		"empty":        {strings.NewReader(" \r\n\n"), "the message is empty"},
		"huge header":  {strings.NewReader(huge), "it is not a mail message: its header is larger than 1 MiB"},
		"no header":    {strings.NewReader("\nbody only\n"), "it is not a mail message: it has no header fields"},
		"binary":       {bytes.NewReader([]byte{0xff, 0xfe, 0, 1, 2, '\n', 'x'}), "it is not a mail message: line 1 of its header is not a header field"},
		"continuation": {strings.NewReader(" folded: first\nSubject: x\n\n"), "it is not a mail message: line 1 of its header is not a header field"},
		"bad line 3":   {strings.NewReader("From: a@b.example\nSubject: x\nno colon here\n\nbody"), "it is not a mail message: line 3 of its header is not a header field"},
		"too large":    {io.MultiReader(strings.NewReader("Subject: x\n\n"), io.LimitReader(zeros{}, MaxMessageSize)), "the message is larger than 32 MiB"},
	} {
		rs, err := Parse(c.in)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: reports %v, error %v; want error %q", name, rs, err, c.want)
		}
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// Hostile structures are read within their bounds: each gives reports,
// checked for the rules every report keeps.
func TestParseHostileStructures(t *testing.T) {
	dsn := "Content-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example\n\n" +
		"Final-Recipient: rfc822; deep@example.com\nAction: failed\nStatus: 5.1.1\n"
	cases := map[string]string{
		"deep nesting":                    nested(2000),
		"many parts":                      manyParts(20000),
		"huge attachment":                 "From: MAILER-DAEMON@x.example\nContent-Type: multipart/report; boundary=b\n\n--b\n" + dsn + "\n--b\nContent-Type: application/octet-stream\nContent-Transfer-Encoding: base64\n\n" + strings.Repeat("QUFBQUFB\n", 2_000_000) + "--b--\n",
		"folded field":                    "From: MAILER-DAEMON@x.example\nContent-Type: multipart/report; boundary=b\n\n--b\nContent-Type: message/delivery-status\n\nFinal-Recipient: rfc822; a@b.example\nDiagnostic-Code: smtp; 550" + strings.Repeat("\n 5.1.1 more", 200_000) + "\n--b--\n",
		"many style tags":                 "From: x@y.example\nContent-Type: text/html\n\n" + strings.Repeat("<style>", 100_000) + "text",
		"unclosed tag":                    "From: x@y.example\nContent-Type: text/html\n\n<p" + strings.Repeat("a", 500_000),
		"long recipient list":             "From: MAILER-DAEMON@x.example\nSubject: failure notice\nX-Failed-Recipients: " + strings.Repeat("a@b.example, ", 50_000) + "\n\n" + strings.Repeat("550 5.1.1 a@b.example\n", 20_000),
		"bad qp and base64":               "From: x@y.example\nContent-Type: multipart/mixed; boundary=q\n\n--q\nContent-Transfer-Encoding: quoted-printable\n\n=ZZ=\n=4\n--q\nContent-Transfer-Encoding: base64\n\n====A\n--q--\n",
		"nul in header":                   "From: a\x00b@example.com\nSubject: \x00\xff\n\n\x00",
		"many recipients":                 "From: MAILER-DAEMON@x.example\nContent-Type: multipart/report; boundary=r\n\n--r\n\n" + strings.Repeat("no id on this line\n", 25_000) + "--r\nContent-Type: message/delivery-status\n\n" + manyRecipients(30_000) + "--r--\n",
		"capitals that grow when lowered": "From: MAILER-DAEMON@x.example\n\n" + strings.Repeat("Ⱥ", 40) + " This is the mail system at host x\n" + strings.Repeat("Ⱥ", 40) + " wasn't delivered to a@b.example\n",
		"many sections":                   "From: MAILER-DAEMON@x.example\n\n" + strings.Repeat("following addresses had permanent fatal errors\n<a@b.example>\n", 20_000),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			rs, err := Parse(strings.NewReader(in))
			if err != nil {
				t.Fatal(err)
			}
			checkReports(t, name, rs)
		})
	}
	rs, _ := Parse(strings.NewReader(cases["huge attachment"]))
	if len(rs) != 1 || rs[0].Recipient != "deep@example.com" || rs[0].Status != "5.1.1" {
		t.Errorf("a delivery report before a large attachment: %+v", rs)
	}
}

// nested is a message of n multiparts, each inside the one before, with a
// delivery report at the bottom.
func nested(n int) string {
	var b strings.Builder
	b.WriteString("From: MAILER-DAEMON@x.example\n")
	for i := range n {
		fmt.Fprintf(&b, "Content-Type: multipart/mixed; boundary=b%d\n\n--b%d\n", i, i)
	}
	b.WriteString("Content-Type: message/delivery-status\n\nFinal-Recipient: rfc822; a@b.example\n")
	return b.String()
}

func manyRecipients(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "\nFinal-Recipient: rfc822; r%d@example.com\nAction: failed\n", i)
	}
	return b.String()
}

func manyParts(n int) string {
	var b strings.Builder
	b.WriteString("From: x@y.example\nContent-Type: multipart/mixed; boundary=p\n\n")
	for range n {
		b.WriteString("--p\nContent-Type: text/plain\n\nhello\n")
	}
	b.WriteString("--p--\n")
	return b.String()
}

// checkReports checks the rules every report keeps, whatever its input.
func checkReports(t *testing.T, name string, rs []Report) {
	t.Helper()
	if len(rs) == 0 {
		t.Errorf("%s: no report", name)
	}
	seen := map[string]bool{}
	for _, r := range rs {
		checkReport(t, name, r)
		if !strings.HasSuffix(r.EventID, "/"+r.Recipient) || seen[r.EventID] {
			t.Errorf("%s: event ID %q for %q (repeated: %v)", name, r.EventID, r.Recipient, seen[r.EventID])
		}
		seen[r.EventID] = true
	}
}

func checkReport(t *testing.T, name string, r Report) {
	t.Helper()
	if n, err := api.NormalizeEmail(r.Recipient); r.Recipient != "" && (err != nil || n != r.Recipient) {
		t.Errorf("%s: recipient %q is not a normalized address", name, r.Recipient)
	}
	switch r.Kind {
	case KindBounce, KindComplaint, KindAutoReply, KindUnknown:
	default:
		t.Errorf("%s: kind %q", name, r.Kind)
	}
	if len(r.Diagnostic) > maxDiagnostic || !utf8.ValidString(r.Diagnostic) {
		t.Errorf("%s: diagnostic of %d bytes, valid UTF-8 %v", name, len(r.Diagnostic), utf8.ValidString(r.Diagnostic))
	}
	for _, f := range []string{r.Status, r.Action, r.ReportingMTA, r.RemoteMTA, r.MessageID, r.OriginalMessageID, r.OriginalMailFrom, r.FeedbackType} {
		if len(f) > maxField || !utf8.ValidString(f) {
			t.Errorf("%s: field %q too long or not UTF-8", name, f)
		}
	}
	if r.Status != "" && statusIn(r.Status) != r.Status {
		t.Errorf("%s: status %q is not an enhanced status code", name, r.Status)
	}
}
