package ticket_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shushlist/shush/ticket"
)

// FuzzRead reads any text as a ticket: it never panics, every token keeps
// a line of the text, the proposal is one of the five modes with evidence
// from the text's lines, every target is an address (or an ID) the text
// names, and the reading prints as JSON.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		"From: j@x.org\n\nplease remove j@x.org and k@y.org\n-- \nk@y.org\n",
		"On Mon, Jane <j@x.org>\nwrote:\n> unsubscribe me\n",
		"<div>Please <a href=\"mailto:a@b.example\">a@b.example</a><br>-- <br>x@y.example</div>",
		"ana dot silva at mail dot example, b[at]c[.]example",
		"Ticket #77: not getting mail\nRequester: R <r@q.example>\n\nR, Nov 2, 2026 10:00\nput me back\n",
		"Bitte tragen Sie mich aus. Met vriendelijke groet\x1b]52;c;x\x07",
		"0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a please release",
		"We get it at old.box@c.example and new.box@c.example. Please block old.box only; keep new.box. Thanks, Ines (ines@c.example)",
		"a@x.example\n---\nForwarded by Lee (lee@y.example): please suppress the hard bounces only.\n",
		"Please unsubscribe a@x.example.\nEmail: b@x.example\n\nBest,\nTom\n",
	} {
		f.Add(seed, "@ourcompany.test")
	}
	f.Fuzz(func(t *testing.T, text, own string) {
		tk := ticket.Read(text)
		lines := strings.Count(text, "\n") + strings.Count(text, "\r") + 1
		for _, fd := range tk.Found {
			if fd.Line < 1 || fd.Line > lines {
				t.Fatalf("a token on line %d of %d: %+v", fd.Line, lines, fd)
			}
		}
		r := tk.Reading(ticket.NewOwn([]string{own}))
		switch r.Mode {
		case ticket.ModeAdd, ticket.ModeErase, ticket.ModeRemove, ticket.ModeRemoveIDs, ticket.ModeCheck, ticket.ModeUnsure:
		default:
			t.Fatalf("mode %q", r.Mode)
		}
		for _, e := range r.Evidence {
			if e.Line < 1 || e.Line > lines {
				t.Fatalf("evidence on line %d of %d", e.Line, lines)
			}
		}
		for _, v := range r.Targets {
			if !utf8.ValidString(v) || v == "" {
				t.Fatalf("target %q", v)
			}
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
	})
}
