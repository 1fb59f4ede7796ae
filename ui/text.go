package ui

import (
	"errors"
	"os"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/safe"
)

// The UI's text helpers: what reaches the screen, and how counts read.

// truncate cuts s to w cells with an ellipsis. It is where most text
// reaches the screen, so it also makes it safe: escape sequences other
// than styling, control and format characters (from a ticket, a file name,
// a service's answer) show as visible escapes, and a line feed as \n.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = safe.View(s)
	if strings.IndexByte(s, '\n') >= 0 {
		s = strings.ReplaceAll(s, "\n", `\n`)
	}
	return ansi.Truncate(s, w, "…")
}

// wrapped breaks s into lines of at most w cells at its spaces, made safe
// as truncate makes them: for a sentence the agent must read whole, such as
// the question that stops a send, where an ellipsis would hide its end.
func wrapped(s string, w int) []string {
	if w <= 0 {
		return nil
	}
	s = safe.View(s)
	if strings.IndexByte(s, '\n') >= 0 {
		s = strings.ReplaceAll(s, "\n", `\n`)
	}
	return strings.Split(ansi.Wrap(s, w, ""), "\n")
}

// minAddressWidth is the least an address column gets before IDs are
// shortened to make room.
const minAddressWidth = 24

// shortIDWidth is the ID column of a narrow table: "…" and 8 characters.
const shortIDWidth = 9

// shortID cuts an ID to w cells, keeping its end: the entries of one run
// or page are made within moments, and a UUIDv7 starts with its
// millisecond, so their starts are alike (every ID read "01a20e8c…") while
// their ends are random and tell them apart (a v4 ID's are random too).
func shortID(id string, w int) string {
	if len(id) <= w {
		return id
	}
	return "…" + id[len(id)-(w-1):]
}

// cell is outside text for one cell of a table: plain, on one line.
func cell(s string) string { return safe.Text(s) }

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// wasWere is the verb after a count of n: " was" or " were".
func wasWere(n int) string {
	if n == 1 {
		return " was"
	}
	return " were"
}

// isAre is the verb after a count of n: "is" or "are".
func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// pluralN is noun for n of it: "1 entry", "2 entries" (the count is the
// caller's).
func pluralN(n int, noun string) string {
	if n == 1 {
		return noun
	}
	switch {
	case strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "s"):
		return noun + "es"
	case strings.HasSuffix(noun, "y") && !strings.ContainsAny(noun[len(noun)-2:len(noun)-1], "aeiou"):
		// entry, entries; key, keys
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// reason shortens an OS error to what a person can act on.
func reason(err error) string {
	switch {
	case os.IsNotExist(err):
		return "it does not exist"
	case os.IsPermission(err):
		return "permission denied"
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// kept is what an entry keeps beyond its origin and date, for a line of a
// screen: "  until 2026-12-24 10:00  “mailbox full”", then the evidence of
// an entry taken in from an event ("  bounce 5.1.1 via sendgrid:
// “550 5.1.1 user unknown”"), or "" for none of them.
func kept(e api.Entry) string {
	s := ""
	if e.ExpiresAt != nil {
		s += "  until " + e.ExpiresAt.UTC().Format("2006-01-02 15:04")
	}
	if e.Note != nil && *e.Note != "" {
		s += "  “" + safe.Text(*e.Note) + "”"
	}
	if ev := e.Evidence; ev != nil {
		s += "  " + strings.TrimSpace(safe.Text(ev.Kind+" "+ev.Status)) + " via " + safe.Text(ev.Provider)
		if ev.Diagnostic != "" {
			s += ": “" + safe.Text(ev.Diagnostic) + "”"
		}
	}
	return s
}
