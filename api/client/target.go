package client

import (
	"github.com/shushlist/shush/internal/redact"
	"net/url"
	"strings"
)

// localDomain ends the host of the embedded local list's base URLs
// (LocalURL): no request to it ever leaves the process.
const localDomain = ".shush.local"

// LocalURL is the base URL of the in-process service on the database
// named by id (a short hash of its path): each database gets its own, so
// that a run recorded on one local list is never resumed on another.
func LocalURL(id string) string { return "http://" + id + localDomain }

// TargetName names a service for people: "local list" for the embedded
// local list (never its made-up URL), else the base URL without
// credentials (redact.URL).
func TargetName(base string) string {
	if u, err := url.Parse(base); err == nil && strings.HasSuffix(strings.ToLower(u.Hostname()), localDomain) {
		return "local list"
	}
	return redact.URL(base)
}

// JournalTarget is a base URL as a run's journal keeps it: without the
// user information it may carry (a password, or a token given as the
// user name), which a journal must not hold. Text that is not a URL comes
// back unchanged.
func JournalTarget(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.User == nil {
		return base
	}
	u.User = nil
	return u.String()
}

// SameTarget says whether a run journaled for target was sent to the
// service at base: their URLs without credentials are the same.
func SameTarget(target, base string) bool {
	return JournalTarget(target) == JournalTarget(base)
}
