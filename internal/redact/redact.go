// Package redact hides the secrets that connection strings and URLs may
// carry, for messages, logs and screens. It imports nothing of ours, so
// that config, the client and the service all hide them the same way.
package redact

import (
	"net/url"
	"regexp"
	"strings"
)

// URL hides the user information a URL may carry (a password, or a token
// given as the user name): https://user:secret@host → https://***@host.
// Text that does not parse as a URL keeps only what DSN leaves of it.
func URL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return DSN(s)
	}
	if u.User == nil {
		return s
	}
	u.User = nil
	out := u.String()
	if i := strings.Index(out, "//"); i >= 0 {
		out = out[:i+2] + "***@" + out[i+2:]
	}
	return out
}

// DSN hides every password a database connection string may carry (URL
// user info, password= query parameters, key=value pairs), also inside
// longer text such as a driver's error, and also in strings that do not
// parse.
func DSN(dsn string) string {
	out := urlPassword.ReplaceAllString(dsn, "${1}xxxxx@")
	out = qPassword.ReplaceAllString(out, "${1}xxxxx")
	return kvPassword.ReplaceAllString(out, "${1}xxxxx")
}

var (
	kvPassword  = regexp.MustCompile(`(?i)((?:^|\s)(?:ssl)?password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)
	urlPassword = regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]+:/{0,2}[^/@:\s"]*:)[^/\s]*@`)
	qPassword   = regexp.MustCompile(`(?i)([?&](?:password|sslpassword)=)[^&\s]*`)
)
