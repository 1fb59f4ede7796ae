package api

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"golang.org/x/net/idna"
)

// Limits of an address, in octets, after normalization.
const (
	MaxAddressLen = 254
	MaxLocalLen   = 64
	maxLabelLen   = 63
)

// MaxBatch is the most items a batch request may carry.
const MaxBatch = 100

// idnaProfile maps an internationalized domain to its ASCII (punycode) form
// with the rules a mail system uses to look the domain up.
var idnaProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.StrictDomainName(true))

// NormalizeEmail applies the contract's address rule: it trims surrounding
// white space and lowercases the address, converts an internationalized
// domain to its ASCII (punycode) form, and checks that the result is a bare
// addr-spec. It returns the normalized address, or an error that says in a
// few words what is wrong with it (for example "the domain has no dot").
func NormalizeEmail(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("it is empty")
	}
	if !utf8.ValidString(s) {
		return "", errors.New("it is not valid UTF-8")
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return "", errors.New("it has no @")
	}
	local, domain := s[:at], s[at+1:]
	if local == "" {
		return "", errors.New("the part before @ is empty")
	}
	if domain == "" {
		return "", errors.New("the domain after @ is empty")
	}
	if err := checkLocal(local); err != nil {
		return "", err
	}
	lower := strings.ToLower(local)
	ascii, err := asciiDomain(domain)
	if err != nil {
		return "", err
	}
	addr := s
	// Most addresses are already normalized: reuse the input rather than
	// building the same string again.
	if lower != local || ascii != domain {
		addr = lower + "@" + ascii
	}
	if len(addr) > MaxAddressLen {
		return "", fmt.Errorf("it is longer than %d characters", MaxAddressLen)
	}
	return addr, nil
}

// checkLocal accepts a dot-atom local part (RFC 5322 atext separated by
// single dots). Quoted local parts, comments and display names are refused:
// the contract asks for a bare addr-spec.
func checkLocal(local string) error {
	if len(local) > MaxLocalLen {
		return fmt.Errorf("the part before @ is longer than %d characters", MaxLocalLen)
	}
	if local[0] == '.' || local[len(local)-1] == '.' {
		return errors.New("the part before @ starts or ends with a dot")
	}
	if strings.Contains(local, "..") {
		return errors.New("the part before @ has two dots in a row")
	}
	for i := 0; i < len(local); i++ {
		c := local[i]
		if !isAtext(c) && c != '.' {
			return fmt.Errorf("the part before @ contains %s", describeByte(local, i))
		}
	}
	return nil
}

func isAtext(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

func describeByte(s string, i int) string {
	r, _ := utf8.DecodeRuneInString(s[i:])
	switch {
	case r == ' ':
		return "a space"
	case r < 0x20 || r == 0x7f:
		return fmt.Sprintf("the control character %U", r)
	}
	return fmt.Sprintf("%q", r)
}

// asciiDomain lowercases the domain, converts it to punycode and checks its
// labels: at least two, each 1-63 letters, digits or hyphens, not starting or
// ending with a hyphen.
func asciiDomain(domain string) (string, error) {
	ascii := strings.ToLower(domain)
	if !isASCII(ascii) {
		var err error
		ascii, err = idnaProfile.ToASCII(ascii)
		if err != nil {
			return "", errors.New("the domain is not a valid internationalized domain name")
		}
	}
	if !strings.Contains(ascii, ".") {
		return "", errors.New("the domain has no dot")
	}
	for label := range strings.SplitSeq(ascii, ".") {
		if label == "" {
			return "", errors.New("the domain has an empty label")
		}
		if len(label) > maxLabelLen {
			return "", fmt.Errorf("a domain label is longer than %d characters", maxLabelLen)
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return "", errors.New("a domain label starts or ends with a hyphen")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return "", fmt.Errorf("the domain contains %s", describeByte(label, i))
			}
		}
	}
	return ascii, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// NormalizeID checks that s is a UUID and returns it in canonical lowercase
// text form (surrounding white space is trimmed).
func NormalizeID(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) != 36 {
		return "", errors.New("it is not a UUID (36 characters like 123e4567-e89b-12d3-a456-426614174000)")
	}
	u, err := uuid.Parse(s)
	if err != nil {
		return "", errors.New("it is not a UUID (36 characters like 123e4567-e89b-12d3-a456-426614174000)")
	}
	return u.String(), nil
}

// IsID reports whether a path segment names a suppression by ID rather than
// by address: it does when it parses as a UUID.
func IsID(s string) bool {
	_, err := NormalizeID(s)
	return err == nil
}

// Quote renders a value a user sent for an error message: Go-quoted, so
// control characters and invalid bytes are visible, and cut at 80 bytes so
// a huge value cannot flood a message.
func Quote(s string) string {
	const max = 80
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", s[:cut])
	}
	return fmt.Sprintf("%q", s)
}

// UnicodeEmail is a normalized address as people read it: an
// internationalized domain in Unicode ("x@bücher.de" for
// "x@xn--bcher-kva.de"). Any other address, or one whose punycode does not
// decode, is returned as it is. What goes on the wire is the normalized
// (ASCII) form.
func UnicodeEmail(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 || !strings.Contains(addr[at:], "xn--") {
		return addr
	}
	u, err := idna.ToUnicode(addr[at+1:])
	if err != nil || u == addr[at+1:] {
		return addr
	}
	return addr[:at+1] + u
}
