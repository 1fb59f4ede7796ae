package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strings"
	"time"
)

// One-click unsubscribe (RFC 8058). A sender puts in its mail
//
//	List-Unsubscribe: <https://shush.example/u/TOKEN>
//	List-Unsubscribe-Post: List-Unsubscribe=One-Click
//
// and the recipient's mail provider POSTs List-Unsubscribe=One-Click to
// that URL, which lists the address. The token is minted offline by the
// sender with its team's unsubscribe key:
//
//	TOKEN = T "." A "." D "." base64url(HMAC-SHA256(secret, T "." A "." D))
//
// where T is base64url(team name), A is base64url(address), D is the
// issue date as YYYYMMDD (UTC), and base64url is RFC 4648's URL-safe
// alphabet without padding. The unsubscribe key a read-write key fetches
// is "shush-uk1." T "." base64url(secret).

// UnsubscribeKeyPrefix starts every unsubscribe key.
const UnsubscribeKeyPrefix = "shush-uk1."

// MaxOneClickToken is the longest token the service reads, in bytes: a
// team name of 64 bytes and an address of 254 take 484.
const MaxOneClickToken = 600

// b64 writes and reads base64url; strictly, so that each token has one
// spelling (a token with other trailing bits is another, refused, token).
var b64 = base64.RawURLEncoding.Strict()

// FormatUnsubscribeKey is the unsubscribe key of a team with this secret.
func FormatUnsubscribeKey(team string, secret []byte) string {
	return UnsubscribeKeyPrefix + b64.EncodeToString([]byte(team)) + "." + b64.EncodeToString(secret)
}

// ParseUnsubscribeKey reads an unsubscribe key: its team and secret.
func ParseUnsubscribeKey(s string) (team string, secret []byte, err error) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), UnsubscribeKeyPrefix)
	bad := errors.New("it is not an unsubscribe key (shush-uk1.TEAM.SECRET, as shush unsubscribe-key prints it)")
	if !ok {
		return "", nil, bad
	}
	t, k, ok := strings.Cut(rest, ".")
	if !ok {
		return "", nil, bad
	}
	tb, err1 := b64.DecodeString(t)
	secret, err2 := b64.DecodeString(k)
	if err1 != nil || err2 != nil || len(tb) == 0 || len(secret) < 16 {
		return "", nil, bad
	}
	return string(tb), secret, nil
}

// OneClickToken is what a one-click token says: the team, the address as
// the sender wrote it (outside text until it is normalized) and the issue
// date.
type OneClickToken struct {
	Team   string
	Email  string
	Issued time.Time
	signed string
	mac    []byte
}

// MintOneClick is the token of an address for a team, issued at the day
// of issued (UTC).
func MintOneClick(team string, secret []byte, email string, issued time.Time) string {
	signed := b64.EncodeToString([]byte(team)) + "." + b64.EncodeToString([]byte(email)) + "." + issued.UTC().Format("20060102")
	return signed + "." + b64.EncodeToString(oneClickMAC(secret, signed))
}

func oneClickMAC(secret []byte, signed string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(signed))
	return m.Sum(nil)
}

// ParseOneClick reads a token's parts without checking its MAC (Verify
// does): any token that is not four base64url parts with a date, or is
// longer than MaxOneClickToken, is refused.
func ParseOneClick(token string) (OneClickToken, error) {
	bad := errors.New("not a one-click token")
	if len(token) > MaxOneClickToken {
		return OneClickToken{}, bad
	}
	parts := strings.Split(token, ".")
	if len(parts) != 4 || len(parts[2]) != 8 {
		return OneClickToken{}, bad
	}
	team, err1 := b64.DecodeString(parts[0])
	email, err2 := b64.DecodeString(parts[1])
	mac, err3 := b64.DecodeString(parts[3])
	day, err4 := time.Parse("20060102", parts[2])
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil || len(mac) != sha256.Size || len(team) == 0 || len(email) == 0 {
		return OneClickToken{}, bad
	}
	return OneClickToken{Team: string(team), Email: string(email), Issued: day,
		signed: parts[0] + "." + parts[1] + "." + parts[2], mac: mac}, nil
}

// Verify reports whether the token was minted with this secret, in
// constant time.
func (t OneClickToken) Verify(secret []byte) bool {
	return len(secret) > 0 && hmac.Equal(t.mac, oneClickMAC(secret, t.signed))
}

// ObjectUnsubscribeKey is the "object" of GET /team/unsubscribe-key's
// answer.
const ObjectUnsubscribeKey = "unsubscribe_key"

// UnsubscribeKey is the answer of GET /team/unsubscribe-key: the team's
// unsubscribe key, a secret a sender keeps to mint one-click tokens.
type UnsubscribeKey struct {
	Object string `json:"object"`
	Team   string `json:"team"`
	Key    string `json:"key"`
}
