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

// closingLine is a line that ends a mail and opens its signature.
var closingLine = regexp.MustCompile(`(?i)^(thanks|thank you|many thanks|best|regards|best regards|kind regards|warm regards|cheers|sincerely|all the best)[\s,.!]*$`)

// unquote strips a reply's "> > " prefix and leading space.
func unquote(line string) string {
	return strings.TrimLeft(line, "> \t")
}

// isHeaderLine reports a mail header line that names people: "From:",
// "To:", "Cc:", "Bcc:", "Reply-To:", "Sender:", quoted or not.
func isHeaderLine(line string) bool {
	s := unquote(line)
	i := strings.IndexByte(s, ':')
	if i < 2 || i > 9 {
		return false
	}
	switch strings.ToLower(strings.TrimRight(s[:i], " \t")) {
	case "from", "to", "cc", "bcc", "reply-to", "sender":
		return true
	}
	return false
}

// isWroteLine reports the end of a reply attribution: "… wrote:".
func isWroteLine(t string) bool {
	const w = "wrote:"
	if len(t) < len(w) || !strings.EqualFold(t[len(t)-len(w):], w) {
		return false
	}
	return len(t) == len(w) || t[len(t)-len(w)-1] == ' ' || t[len(t)-len(w)-1] == '\t'
}

// startsOn reports a line that begins a reply attribution: "On Mon, …".
func startsOn(line string) bool {
	s := unquote(line)
	return len(s) > 3 && strings.EqualFold(s[:3], "on ")
}

// signatureLines is how far a signature may reach after its delimiter or
// closing word: a name, a title, a company, an address, a phone number.
const signatureLines = 8

// zoner follows a ticket line by line and tells which lines are not its
// body: header lines, reply attributions and the signature block.
type zoner struct {
	sig    int // lines of signature still to go
	prevOn int // the last line that began "On …" and was not itself a zone
}

// line returns the zone of line n ("" for the body) and whether line n-1
// belongs to the same zone (an attribution over two lines: "On Mon, …
// Jane <jane@…>" then "wrote:").
func (z *zoner) line(n int, line string) (zone string, prevToo bool) {
	t := trimLine(line)
	switch {
	case isHeaderLine(line):
		zone, z.sig = ReasonHeader, 0
	case isWroteLine(t):
		zone, z.sig = ReasonAttribute, 0
		prevToo = z.prevOn == n-1 && !startsOn(line)
	case t == "--" || strings.TrimRight(line, "\r") == "-- " || (len(t) < 24 && closingLine.MatchString(t)):
		z.sig = signatureLines
	case z.sig > 0:
		// A quoted reply, or a blank line after the signature's first
		// line, ends it: what follows is body again.
		if strings.HasPrefix(t, ">") || (t == "" && z.sig < signatureLines) {
			z.sig = 0
			break
		}
		if t != "" {
			zone = ReasonSignature
		}
		z.sig--
	}
	if zone == "" && startsOn(line) {
		z.prevOn = n
	}
	return zone, prevToo
}

// Reasons says, for each item, why it must not be sent unless someone
// takes it in ("" when it goes): ReasonOwn for our own addresses, the
// zone's reason for an address that a free-text ticket names only outside
// its body (Item.Zone set on every occurrence). Invalid items have none
// (the plan reports them).
func Reasons(items []Item, own Own) []string {
	reasons := make([]string, len(items))
	inBody := map[string]bool{}
	firstZone := map[string]string{}
	for _, it := range items {
		if it.Zone == "" {
			inBody[it.Value] = true
		} else if _, seen := firstZone[it.Value]; !seen {
			firstZone[it.Value] = it.Zone
		}
	}
	if own.Empty() && len(firstZone) == 0 {
		return reasons
	}
	for i, it := range items {
		if !it.Valid() || !strings.Contains(it.Value, "@") {
			continue
		}
		switch {
		case own.Has(it.Value):
			reasons[i] = ReasonOwn
		case !inBody[it.Value]:
			reasons[i] = firstZone[it.Value]
		}
	}
	return reasons
}

// LeaveOut sets aside the valid entries that must not be sent: our own
// addresses always, and unless includeRequester the ticket's requester
// (see Reasons). It returns the entries to plan and those left out, in
// input order.
func LeaveOut(items []Item, own Own, includeRequester bool) (keep []Item, out []LeftOut) {
	reasons := Reasons(items, own)
	keep = make([]Item, 0, len(items))
	for i, it := range items {
		r := reasons[i]
		if r == "" || includeRequester && r != ReasonOwn {
			keep = append(keep, it)
			continue
		}
		out = append(out, LeftOut{Item: it, Reason: r})
	}
	return keep, out
}
