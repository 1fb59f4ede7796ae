package bounce_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/bounce"
)

// collect reads every message and error of a source.
func collect(t *testing.T, path string) (msgs []bounce.Message, errs []error) {
	t.Helper()
	return collectIn(t, path, nil)
}

// collectIn is collect with stdin given.
func collectIn(t *testing.T, path string, stdin io.Reader) (msgs []bounce.Message, errs []error) {
	t.Helper()
	for m, err := range bounce.Messages(path, stdin) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		msgs = append(msgs, m)
	}
	return msgs, errs
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestMessagesSingleFile(t *testing.T) {
	path := "testdata/qmail.eml"
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	msgs, errs := collect(t, path)
	if len(errs) > 0 || len(msgs) != 1 {
		t.Fatalf("got %d messages, errors %v; want one message", len(msgs), errs)
	}
	if msgs[0].Source != path || string(msgs[0].Raw) != string(want) {
		t.Errorf("source %q, %d bytes; want %q and the file's %d bytes", msgs[0].Source, len(msgs[0].Raw), path, len(want))
	}
}

// An mbox of three messages: mboxrd escapes in the first (">From " and
// ">>From " lines, unescaped one level), a second whose separator follows
// no empty line, and a third with CRLF line ends.
const mboxText = "From MAILER-DAEMON Mon Nov 23 09:14:07 2026\n" +
	"From: MAILER-DAEMON@a.example\nSubject: one\nMessage-ID: <one@a.example>\n\n" +
	"body line\n>From the archive\n>>From deeper\nFrom-less line\n\n" +
	"From MAILER-DAEMON Mon Nov 23 09:15:00 2026\n" +
	"From: MAILER-DAEMON@a.example\nSubject: two\nMessage-ID: <two@a.example>\n\nsecond body\n" +
	"From MAILER-DAEMON@b.example Mon Nov 23 09:16:00 2026\n" +
	"From: MAILER-DAEMON@b.example\r\nSubject: three\r\nMessage-ID: <three@b.example>\r\n\r\nthird\r\n\r\n"

func TestMessagesMbox(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bounces.mbox")
	write(t, path, mboxText)
	msgs, errs := collect(t, path)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []struct{ source, raw string }{
		{path + ":1", "From: MAILER-DAEMON@a.example\nSubject: one\nMessage-ID: <one@a.example>\n\n" +
			"body line\nFrom the archive\n>From deeper\nFrom-less line\n"},
		{path + ":11", "From: MAILER-DAEMON@a.example\nSubject: two\nMessage-ID: <two@a.example>\n\nsecond body\n"},
		{path + ":17", "From: MAILER-DAEMON@b.example\r\nSubject: three\r\nMessage-ID: <three@b.example>\r\n\r\nthird\r\n"},
	}
	if len(msgs) != len(want) {
		t.Fatalf("got %d messages, want %d", len(msgs), len(want))
	}
	for i, w := range want {
		if msgs[i].Source != w.source || string(msgs[i].Raw) != w.raw {
			t.Errorf("message %d: %q\n%q\nwant %q\n%q", i, msgs[i].Source, msgs[i].Raw, w.source, w.raw)
		}
	}
}

// A body line "From " that an mboxo writer left unescaped, after text and
// not followed by a date, does not split the message.
func TestMessagesMboxBodyFromLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "box")
	write(t, path, "From a@b.example Mon Nov 23 09:14:07 2026\nSubject: x\n\nline\nFrom here on, it is body.\n")
	msgs, errs := collect(t, path)
	if len(errs) > 0 || len(msgs) != 1 || !strings.Contains(string(msgs[0].Raw), "From here on") {
		t.Fatalf("got %d messages (%v), want one holding the body's From line", len(msgs), errs)
	}
}

func TestMessagesMaildir(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "new", "2-b"), "Subject: new two\n\nx\n")
	write(t, filepath.Join(dir, "new", "1-a"), "Subject: new one\n\nx\n")
	write(t, filepath.Join(dir, "cur", "0-z:2,S"), "Subject: cur\n\nx\n")
	write(t, filepath.Join(dir, "cur", ".hidden"), "Subject: hidden\n\nx\n")
	write(t, filepath.Join(dir, "tmp", "3-c"), "Subject: being written\n\nx\n")
	if err := os.Mkdir(filepath.Join(dir, "cur", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	msgs, errs := collect(t, dir)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, filepath.Base(m.Source)+"="+strings.SplitN(string(m.Raw), "\n", 2)[0])
	}
	want := "1-a=Subject: new one,2-b=Subject: new two,0-z:2,S=Subject: cur"
	if strings.Join(got, ",") != want {
		t.Errorf("got %v, want %s (new/ then cur/, in name order; no dot files, tmp/ or folders)", got, want)
	}
}

func TestMessagesErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.mbox")
	notMaildir := filepath.Join(dir, "folder")
	if err := os.Mkdir(notMaildir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{missing, missing + ": no such file or directory"},
		{notMaildir, notMaildir + ": a folder but not a Maildir (it has no cur/ or new/)"},
	} {
		_, errs := collect(t, c.path)
		if len(errs) != 1 || errs[0].Error() != c.want {
			t.Errorf("%s: errors %v, want %q", c.path, errs, c.want)
		}
	}
}

// A message that cannot be parsed is an error that names its mbox and the
// line where it starts.
func TestMessageParseNamesTheSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mixed.mbox")
	write(t, path, "From x Mon Nov 23 09:14:07 2026\nnot a header line\n\n"+
		"From x Mon Nov 23 09:14:08 2026\nFrom: MAILER-DAEMON@a.example\nSubject: ok\n\nbody\n")
	msgs, errs := collect(t, path)
	if len(errs) > 0 || len(msgs) != 2 {
		t.Fatalf("got %d messages, errors %v", len(msgs), errs)
	}
	_, err := msgs[0].Parse()
	want := path + ":1: it is not a mail message: line 1 of its header is not a header field"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
	if rs, err := msgs[1].Parse(); err != nil || len(rs) != 1 {
		t.Errorf("second message: %v, %v; want one report", rs, err)
	}
}

func TestMessagesStdin(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.mbox")
	write(t, path, mboxText)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	msgs, errs := collectIn(t, "-", f)
	if len(errs) > 0 || len(msgs) != 3 || msgs[1].Source != "stdin:11" {
		t.Fatalf("got %d messages (%v), errors %v; want 3, the second from stdin:11", len(msgs), msgs, errs)
	}
}

// Stopping the loop early stops the reading.
func TestMessagesStopEarly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in.mbox")
	write(t, path, mboxText)
	n := 0
	for range bounce.Messages(path, nil) {
		n++
		break
	}
	if n != 1 {
		t.Fatalf("read %d", n)
	}
}
