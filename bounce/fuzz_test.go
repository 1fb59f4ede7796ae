package bounce

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: any input gives either reports that keep every report's
// rules or a one-line error, and never a panic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.eml")
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("From: a@b.example\nContent-Type: multipart/report; boundary=x\n\n--x\nContent-Type: message/delivery-status\n\nFinal-Recipient: rfc822; c@d.example\n--x--"))
	f.Add([]byte("Subject: =?utf-8?B?w6k=?=\nContent-Type: text/html\n\n<style>x</style>&amp;<br>"))
	f.Add([]byte("From: MAILER-DAEMON@x.example\n\nȺȺ This is the mail system at host x\nȺ wasn't delivered to a@b.example\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := Parse(bytes.NewReader(data))
		if err != nil {
			if rs != nil || strings.ContainsAny(err.Error(), "\r\n") {
				t.Fatalf("error %q with reports %v", err, rs)
			}
			return
		}
		checkReports(t, "fuzz", rs)
	})
}
