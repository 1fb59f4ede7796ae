package batch

import (
	"regexp"
	"strings"
)

// Who an address in a ticket belongs to decides whether it may enter a
// batch. Our own addresses never do. The requester's usually do not: a
// ticket's header lines, the "On … wrote:" line of a reply and the
// signature block name the people writing, not the people to suppress.
// An address that also appears in the body is kept: the requester may be
// asking about themselves.

// Reasons an address is left out of a plan.
const (
	ReasonOwn       = "one of our own addresses"
	ReasonHeader    = "requester? only in a header line"
	ReasonAttribute = "requester? only in a reply attribution"
	ReasonSignature = "requester? only in a signature"
)

// LeftOut is a valid entry that the plan does not send, and why.
type LeftOut struct {
	Item
	Reason string `json:"reason"`
}

// Requester reports whether the entry was left out as a requester's
// address (it may be taken in on request); our own addresses never are.
func (l LeftOut) Requester() bool { return l.Reason != ReasonOwn }

// Own is the set of addresses and domains that are ours (config `own`):
// "x@y.z" is one address, "@ourcompany.test" or "ourcompany.test" a
// domain and its subdomains.
type Own struct {
	addrs   map[string]bool
	domains []string
}

// NewOwn reads the config's own list; entries are matched without regard
// to case.
func NewOwn(list []string) Own {
	o := Own{addrs: map[string]bool{}}
	for _, s := range list {
		s = strings.ToLower(strings.TrimSpace(s))
		switch {
		case s == "" || s == "@":
		case strings.HasPrefix(s, "@"):
			o.domains = append(o.domains, s[1:])
		case strings.Contains(s, "@"):
			o.addrs[s] = true
		default:
			o.domains = append(o.domains, s)
		}
	}
	return o
}

// Has reports whether the normalized address is ours.
func (o Own) Has(addr string) bool {
	if o.addrs[addr] {
		return true
	}
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return false
	}
	domain := addr[at+1:]
	for _, d := range o.domains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}

// Empty reports whether no own address or domain is configured.
func (o Own) Empty() bool { return len(o.addrs) == 0 && len(o.domains) == 0 }

// Requesters reads a ticket's free text and returns the addresses (in
// the add form, lowercased) that appear only in its header lines, reply
// attributions or signature block, each with the reason. Text that is a
// plain list (one entry per line) has no requester. ids and other modes
// are not concerned: only addresses are.
func Requesters(text string) map[string]string {
	text = strings.TrimPrefix(text, "\uFEFF")
	if singleTokenLines(text) {
		return nil
	}
	zone := zones(text)
	inBody := map[string]bool{}
	reason := map[string]string{}
	eachLine(text, func(n int, line string) {
		z := zone[n]
		fields(line, func(tok string) {
			candidates(tok, func(cand string) {
				it, ok := freeItem(cand, n, Add)
				if !ok || !it.Valid() {
					return
				}
				if z == "" {
					inBody[it.Value] = true
				} else if _, seen := reason[it.Value]; !seen {
					reason[it.Value] = z
				}
			})
		})
	})
	for addr := range reason {
		if inBody[addr] {
			delete(reason, addr)
		}
	}
	return reason
}

var (
	headerLine  = regexp.MustCompile(`(?i)^[>\s]*(from|to|cc|bcc|reply-to|sender)\s*:`)
	wroteLine   = regexp.MustCompile(`(?i)\bwrote:\s*$`)
	onLine      = regexp.MustCompile(`(?i)^[>\s]*on\s`)
	closingLine = regexp.MustCompile(`(?i)^(thanks|thank you|many thanks|best|regards|best regards|kind regards|warm regards|cheers|sincerely|all the best)[\s,.!]*$`)
)

// signatureLines is how far a signature may reach after its delimiter or
// closing word: a name, a title, a company, an address, a phone number.
const signatureLines = 8

// zones returns, for each line number of text, the zone it is in: a
// reason when the line is a header line, a reply attribution or part of a
// signature block, "" for the body.
func zones(text string) map[int]string {
	z := map[int]string{}
	sig := 0 // lines of signature still to go
	prevOn := 0
	eachLine(text, func(n int, line string) {
		t := trimLine(line)
		switch {
		case headerLine.MatchString(line):
			z[n] = ReasonHeader
			sig = 0
		case wroteLine.MatchString(t):
			z[n] = ReasonAttribute
			// "On Mon, 3 Feb 2026, Jane Doe <jane@…>\n wrote:" spans two lines.
			if prevOn == n-1 && !onLine.MatchString(line) {
				z[n-1] = ReasonAttribute
			}
			sig = 0
		case t == "--" || strings.TrimRight(line, "\r") == "-- " || closingLine.MatchString(t):
			sig = signatureLines
		case sig > 0:
			// A quoted reply or a blank line after the signature's first
			// line ends it: what follows is body again.
			if strings.HasPrefix(t, ">") || (t == "" && sig < signatureLines) {
				sig = 0
				break
			}
			if t != "" {
				z[n] = ReasonSignature
			}
			sig--
		}
		if onLine.MatchString(line) && z[n] == "" {
			prevOn = n
		}
	})
	return z
}

// LeaveOut sets aside the valid entries that must not be sent: our own
// addresses always, and requester addresses of a free-text ticket unless
// includeRequester. It returns the entries to plan and those left out, in
// input order. Invalid entries pass through (the plan reports them).
func LeaveOut(items []Item, requesters map[string]string, own Own, includeRequester bool) (keep []Item, out []LeftOut) {
	if own.Empty() && (len(requesters) == 0 || includeRequester) {
		return items, nil
	}
	keep = make([]Item, 0, len(items))
	for _, it := range items {
		if it.Valid() && strings.Contains(it.Value, "@") {
			if own.Has(it.Value) {
				out = append(out, LeftOut{Item: it, Reason: ReasonOwn})
				continue
			}
			if r, ok := requesters[it.Value]; ok && !includeRequester {
				out = append(out, LeftOut{Item: it, Reason: r})
				continue
			}
		}
		keep = append(keep, it)
	}
	return keep, out
}
