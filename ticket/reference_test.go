package ticket_test

import (
	"testing"

	"github.com/shushlist/shush/ticket"
)

// The reference offered from a ticket: from its file name first, then its
// subject, then its words; never one it does not name.
func TestFindReference(t *testing.T) {
	for _, tc := range []struct {
		name, text, file string
		want, source     string
		line             int
	}{
		{"hash in the subject", "From: a@b.example\nSubject: Re: [#5521] unsubscribe\n\nhi", "", "#5521", "subject", 2},
		{"helpdesk bracket", "Subject: [Support 4711] please stop\n", "", "#4711", "subject", 1},
		{"case key", "Hello,\nthis is about case AB-2026-7, please remove x@y.example\n", "", "AB-2026-7", "text", 2},
		{"ref key", "Our ref XY-1234 applies.", "", "XY-1234", "text", 1},
		{"ref with colon", "Reference: 88231\n", "", "#88231", "text", 1},
		{"ticket number", "Ticket 88 is still open", "", "#88", "text", 1},
		{"file name", "please remove a@b.example", "TICKET-88-IDS.JSON", "#88", "file name", 0},
		{"file name with a key", "", "AB-2026-7.txt", "AB-2026-7", "file name", 0},
		{"file name with a path", "", "/home/ann/tickets/case_5521_export.csv", "#5521", "file name", 0},
		{"the file name wins over the subject", "Subject: Re: #5521\n", "ticket-4711.txt", "#4711", "file name", 0},
		{"the subject wins over the words", "Hello, see case 777\nSubject: request #5521\n", "", "#5521", "subject", 2},
		{"a bare number in the subject, last", "Subject: 99231 unsubscribe\n\nhello", "", "#99231", "subject", 1},
		{"the words win over a bare number", "Subject: 99231 unsubscribe\n\nabout ticket 12\n", "", "#12", "text", 3},
		{"quoted subject", "> Subject: Re: [#5521]\n", "", "#5521", "subject", 1},
		{"ticket ref key", "Hello,\nTicket ref BC-7781, please stop mailing x@y.example\n", "", "BC-7781", "text", 2},
		{"ref colon", "Ref: XY-1234\nplease unsubscribe me", "", "XY-1234", "text", 1},
		{"case hash", "Re Case #4412 — not getting mail", "", "#4412", "text", 1},
		{"ticket colon", "Ticket: 90311\n", "", "#90311", "text", 1},
		{"bracket hash in the words", "see [#7781] for the history", "", "#7781", "text", 1},
		{"a helpdesk's request number", "Your request (48213) has been updated.", "", "#48213", "text", 1},
		{"a subject in German", "Betreff: Anfrage 55120\n", "", "#55120", "subject", 1},
		{"a key in brackets in the subject", "Subject: RE: Leavers - please stop emails [CS-77310]\n", "", "CS-77310", "subject", 1},
		{"a key in parentheses in the subject", "Subject: Re: releases for Halden Outdoor (HLP-5120)\n", "", "HLP-5120", "subject", 1},
		{"a key alone in the words", "Hi,\nFollowing up on SW-20417. Rows saying REINSTATE go back on.\n", "", "SW-20417", "text", 2},
		{"a key in Czech words", "V systému je to pod CS-4471.", "", "CS-4471", "text", 1},
		{"a Dutch ticket number", "We hebben het opgepakt onder ticketnummer NB-3391 en", "", "NB-3391", "text", 1},
		{"a key of a year and a number", "Our file PRIV-2026-0342 has the details.", "", "PRIV-2026-0342", "text", 1},
		{"a keyword's key wins over a key alone", "Following up on SW-20417.\nOur ref XY-1234 applies.", "", "XY-1234", "text", 2},
	} {
		got, ok := ticket.FindReference(tc.text, tc.file)
		if !ok || got.Value != tc.want || got.Source != tc.source || got.Line != tc.line {
			t.Errorf("%s: %+v, %v; want %s from %s line %d", tc.name, got, ok, tc.want, tc.source, tc.line)
		}
	}
	for _, tc := range []struct{ name, text, file string }{
		{"nothing", "please remove a@b.example\n", "list.txt"},
		{"a year in the subject", "Subject: Newsletter 2026\n", ""},
		{"a date in a file name", "", "bounces-2026-11-01.csv"},
		{"a one-digit case", "in any case 2 addresses bounce", ""},
		{"numbers in the header", "Date: Mon, 2 Nov 2026 10:00:00 +0100\nMessage-ID: <12345@mail.example>\n", ""},
		{"an HTML entity", "it&#39;s fine", ""},
		{"an encoding", "", "UTF-8.txt"},
		{"a VAT number", "Blumen Keller AG\nMWST-Nr. CHE-112.334.556 MWST\n", ""},
		{"a standard", "certified to ISO-9001 since 2019", ""},
		{"stdin", "", "-"},
	} {
		if got, ok := ticket.FindReference(tc.text, tc.file); ok {
			t.Errorf("%s: found %+v; want none", tc.name, got)
		}
	}
}
