package batch

import (
	"io"
	"strings"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/ticket"
)

// Free text is read as a ticket (package ticket): each token that may be
// an entry, once its place in the ticket is settled, becomes an item of
// the mode; the ticket says whom it is about and what it asks.

// parseFree reads free text as a ticket and hands on its entries for mode.
// found, when not nil, hears each token as it is handed on, before its
// item; line, when not nil, hears each line. It returns the ticket.
func parseFree(r io.Reader, mode Mode, emit func(Item), h hooks) (*ticket.Ticket, error) {
	tr := ticket.NewReader(func(f ticket.Found) {
		if it, ok := itemOf(f, mode); ok {
			emit(it)
		}
	})
	if h.ticket != nil {
		h.ticket(tr.Ticket())
	}
	lr := newLineReader(r)
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		text := string(b)
		if h.line != nil {
			h.line(lr.n, text)
		}
		tr.Line(lr.n, text)
	}
	return tr.End(), lr.err
}

// itemOf is the item a token of a ticket makes in mode, if any: an
// address (or an address written out in words) when the mode's entries
// are addresses, a suppression ID when they are IDs. An address in a
// removal by ID is kept, invalid, to say what to do instead.
func itemOf(f ticket.Found, mode Mode) (Item, bool) {
	switch {
	case mode.byID() && f.Kind == ticket.ID:
		return NewItem(mode, f.Line, f.Raw), true
	case mode.byID() && f.Kind == ticket.Address:
		if _, err := api.NormalizeEmail(f.Raw); err == nil {
			return Item{Line: f.Line, Raw: f.Raw, Problem: "it is an email address, not a suppression ID (remove by address instead)"}, true
		}
		return Item{}, false
	case mode.byID() || f.Kind == ticket.ID:
		return Item{}, false
	}
	return NewItem(mode, f.Line, f.Raw), true
}

// Paste is a text a user pasted (or typed), read once: a list with one
// entry a line, or free text read as a ticket. Its entries can be had for
// any mode without reading it again (a mode switch reads the ticket, not
// the rows), and its reference was found in the same pass.
type Paste struct {
	// Ticket is the ticket the text is, nil for a list of one entry a
	// line.
	Ticket *ticket.Ticket
	// Reference is the ticket reference the text names, when
	// HasReference.
	Reference    ticket.Reference
	HasReference bool
	// Lines is how many lines the text has.
	Lines int
	list  []listLine
}

// listLine is a line of a pasted list: its number and its text.
type listLine struct {
	n   int
	raw string
}

// ReadPaste reads a text a user pasted (the terminal UI calls it on every
// paste, away from its screen): a list with one entry per line, or free
// text from a ticket or a mail, where entries are found in prose ("Jane
// <Jane@Example.com>", mailto: links, lists separated by commas,
// semicolons or spaces, ">"-quoted replies, HTML). Line ends may be \n,
// \r\n or \r.
func ReadPaste(s string) *Paste {
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.ToValidUTF8(s, "\uFFFD")
	if !singleTokenLines(s) {
		tk := ticket.Read(s)
		return &Paste{Ticket: tk, Reference: tk.Reference, HasReference: tk.HasReference, Lines: tk.Lines}
	}
	p := &Paste{list: make([]listLine, 0, strings.Count(s, "\n")+1)}
	var refs ticket.RefFinder
	first := true
	// The lines are the text's own: a paste of 100,000 addresses is not
	// copied line by line.
	eachLine(s, func(n int, line string) {
		p.Lines = n
		refs.Line(n, line)
		line = trimLine(line)
		switch {
		case line == "":
		case first && headerWords[strings.ToLower(line)]:
			first = false
		default:
			first = false
			p.list = append(p.list, listLine{n, line})
		}
	})
	p.Reference, p.HasReference = refs.Best()
	return p
}

// eachLine calls fn with each line of s and its number: \n, \r\n and \r
// end a line, and an end of text after a line end adds no empty line.
func eachLine(s string, fn func(n int, line string)) {
	n := 0
	for len(s) > 0 {
		n++
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			fn(n, s)
			return
		}
		fn(n, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
}

// Items are the paste's entries for mode, in order.
func (p *Paste) Items(mode Mode) []Item {
	if p.Ticket == nil {
		items := make([]Item, 0, len(p.list))
		for _, l := range p.list {
			items = append(items, NewItem(mode, l.n, l.raw))
		}
		return items
	}
	var items []Item
	for _, f := range p.Ticket.Found {
		if it, ok := itemOf(f, mode); ok {
			items = append(items, it)
		}
	}
	return items
}

// Roles is the rule's decision about each item (Items' order) whom the
// ticket is about, for our own addresses own, before a batch's direction
// (ticket.Decision.For): nil for a list, which leaves nobody out but ours.
func (p *Paste) Roles(items []Item, own ticket.Own) []ticket.Decision {
	out := make([]ticket.Decision, len(items))
	if p.Ticket == nil {
		if own.Empty() {
			return nil
		}
		for i, it := range items {
			if it.Valid() && own.Has(it.Value) {
				out[i] = p.Ticket.OwnDecision(it.Line)
			}
		}
		return out
	}
	roles := p.Ticket.Roles(own)
	for i, it := range items {
		if it.Valid() {
			out[i] = roles[it.Value]
		}
	}
	return out
}
