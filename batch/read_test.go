package batch_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
)

const (
	id1 = "0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b"
	id2 = "0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7c"
)

// entry is an item as a test states it: line, value, and a word of the
// problem (empty when valid).
type entry struct {
	line    int
	value   string
	problem string
}

func check(t *testing.T, name string, got []batch.Item, want []entry) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d items %+v; want %d %+v", name, len(got), got, len(want), want)
	}
	for i, w := range want {
		g := got[i]
		if g.Line != w.line || g.Value != w.value || (w.problem == "") != (g.Problem == "") ||
			!strings.Contains(g.Problem, w.problem) {
			t.Errorf("%s: item %d = %+v; want line %d value %q problem ~%q", name, i, g, w.line, w.value, w.problem)
		}
	}
}

func TestReadFormats(t *testing.T) {
	for _, tc := range []struct {
		name, file, in string
		mode           batch.Mode
		format         batch.Format
		want           []entry
	}{
		{name: "lines", file: "list.txt", in: "Jane@Example.com\nbob@example.org\n\n  carol@example.net  \n",
			format: batch.Lines, want: []entry{{1, "jane@example.com", ""}, {2, "bob@example.org", ""}, {4, "carol@example.net", ""}}},
		{name: "lines with CRLF, BOM and an invalid line", file: "LIST.TXT", in: "\uFEFFa@example.com\r\nnot-an-address\r\nb@example.com\r\n",
			format: batch.Lines, want: []entry{{1, "a@example.com", ""}, {2, "", "no @"}, {3, "b@example.com", ""}}},
		{name: "lines with old Mac line ends", file: "x", in: "a@example.com\rb@example.com\r",
			format: batch.Lines, want: []entry{{1, "a@example.com", ""}, {2, "b@example.com", ""}}},
		{name: "lines with a header word", file: "x.txt", in: "email\na@example.com\n",
			format: batch.Lines, want: []entry{{2, "a@example.com", ""}}},
		{name: "stdin without a name", file: "", in: "a@example.com\n",
			format: batch.Lines, want: []entry{{1, "a@example.com", ""}}},
		{name: "JSON array", file: "list.json", in: "[\n  \"A@example.com\",\n  \"b@example.com\"\n]",
			format: batch.JSONArray, want: []entry{{2, "a@example.com", ""}, {3, "b@example.com", ""}}},
		{name: "JSON array without the extension", file: "-", in: `["a@example.com"]`,
			format: batch.JSONArray, want: []entry{{1, "a@example.com", ""}}},
		{name: "JSON array with null, number, bool, object", file: "x.json", in: "[\"a@example.com\",\nnull,\n42, true, {\"e\": 1},\n\"\"]",
			format: batch.JSONArray, want: []entry{{1, "a@example.com", ""}, {2, "", "item 1 is null"}, {3, "", "item 2 is a number"},
				{3, "", "item 3 is a boolean"}, {3, "", "item 4 is an object"}, {4, "", "empty"}}},
		{name: "empty JSON array", file: "x.json", in: "[]", format: batch.JSONArray},
		{name: "JSON body with emails", file: "body.json", in: "{\"emails\": [\"a@example.com\",\n \"x\"], \"other\": {\"n\": [1]}}",
			format: batch.JSONBody, want: []entry{{1, "a@example.com", ""}, {2, "", "no @"}}},
		{name: "JSON body with ids", file: "body.json", in: `{"ids": ["` + strings.ToUpper(id1) + `", "nope"]}`, mode: batch.RemoveIDs,
			format: batch.JSONBody, want: []entry{{1, id1, ""}, {1, "", "not a UUID"}}},
		{name: "JSON body emails null item", file: "b.json", in: `{"emails": [null]}`,
			format: batch.JSONBody, want: []entry{{1, "", "emails[0] is null"}}},
		{name: "CSV with header", file: "export.CSV", in: "Name,E-mail Address,Phone\r\nJane,Jane@Example.com,1\r\n\"Doe, John\",john@example.com,2\r\n",
			format: batch.CSV, want: []entry{{2, "jane@example.com", ""}, {3, "john@example.com", ""}}},
		{name: "CSV with display names in the address column", file: "contacts.csv", in: "Name,Email\nJane,Jane Doe <Jane@Example.com>\n",
			format: batch.CSV, want: []entry{{2, "jane@example.com", ""}}},
		{name: "CSV with semicolons", file: "export.csv", in: "name;email\nJane;jane@example.com\n",
			format: batch.CSV, want: []entry{{2, "jane@example.com", ""}}},
		{name: "TSV", file: "export.tsv", in: "name\temail\nJane Doe\tjane@example.com\n",
			format: batch.CSV, want: []entry{{2, "jane@example.com", ""}}},
		{name: "CSV without a header, address column found by content", file: "x.csv", in: "Jane,jane@example.com,1\nBob,bob@example.com,2\n",
			format: batch.CSV, want: []entry{{1, "jane@example.com", ""}, {2, "bob@example.com", ""}}},
		{name: "CSV with one column and a title", file: "x.csv", in: "Customers\njane@example.com\nbad\n",
			format: batch.CSV, want: []entry{{2, "jane@example.com", ""}, {3, "", "no @"}}},
		{name: "CSV with an empty cell", file: "x.csv", in: "name,email\nJane,\nBob,bob@example.com\n",
			format: batch.CSV, want: []entry{{2, "", "column is empty"}, {3, "bob@example.com", ""}}},
		{name: "CSV with an id column", file: "x.csv", in: "email,id\njane@example.com," + id1 + "\n", mode: batch.RemoveIDs,
			format: batch.CSV, want: []entry{{2, id1, ""}}},
		{name: "CSV-like text without the extension", file: "paste.txt", in: "name,email\nJane,jane@example.com\n",
			format: batch.CSV, want: []entry{{2, "jane@example.com", ""}}},
		{name: "free text", file: "ticket.txt", in: "Hi, please unblock Jane <Jane@Example.com> and bob@example.org.\n> On Monday carol@example.net wrote:\n",
			format: batch.Text, want: []entry{{1, "jane@example.com", ""}, {1, "bob@example.org", ""}, {2, "carol@example.net", ""}}},
		{name: "ticket whose first line mentions email stays free text", file: "ticket.txt", in: "Hi team, please remove these emails\njane@example.com and bob@example.com\n",
			format: batch.Text, want: []entry{{2, "jane@example.com", ""}, {2, "bob@example.com", ""}}},
		{name: "lines of IDs", file: "ids.txt", in: id1 + "\n" + strings.ToUpper(id2) + "\nxyz\n", mode: batch.RemoveIDs,
			format: batch.Lines, want: []entry{{1, id1, ""}, {2, id2, ""}, {3, "", "not a UUID"}}},
	} {
		items, format, err := batch.ReadFormat(strings.NewReader(tc.in), tc.file, tc.mode)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if format != tc.format {
			t.Errorf("%s: format %v; want %v", tc.name, format, tc.format)
		}
		check(t, tc.name, items, tc.want)
	}
}

func TestReadRefusesMalformedInput(t *testing.T) {
	for _, tc := range []struct {
		name, file, in string
		mode           batch.Mode
		want           string // the whole error, or its start
	}{
		{"bad JSON names the line", "orders.json", "[\n\"a@example.com\",\n}\n", batch.Add, "orders.json: line 3: invalid character '}' looking for beginning of value"},
		{"JSON cut short", "x.json", "[\"a@example.com\",\n\"b@exa", batch.Add, "x.json: line 2: the JSON ends before it is complete"},
		{"JSON with trailing data", "x.json", "[\"a@example.com\"]\n[]", batch.Add, "x.json: line 2: there is more after the end"},
		{"JSON scalar", "x.json", "\"a@example.com\"", batch.Add, "x.json: line 1: a .json file must hold a JSON array or a request body object"},
		{"JSON body with both fields", "b.json", "{\"emails\": [\"a@example.com\"],\n \"ids\": [\"" + id1 + "\"]}", batch.RemoveEmails, `b.json: line 2: the body has both "emails" and "ids"`},
		{"JSON body with neither", "b.json", `{"addresses": []}`, batch.Add, `b.json: line 1: the body has neither "emails" nor "ids"`},
		{"JSON body emails null", "b.json", `{"emails": null}`, batch.Add, `b.json: line 1: "emails" is null; it must be an array of email addresses`},
		{"JSON body emails in remove by ID", "b.json", `{"emails": ["a@example.com"]}`, batch.RemoveIDs, `b.json: line 1: the body holds "emails", but removal by ID needs "ids"`},
		{"JSON body ids in add", "b.json", `{"ids": ["` + id1 + `"]}`, batch.Add, `b.json: line 1: the body holds "ids", but adding needs "emails"`},
		{"CSV ragged row", "list.csv", "name,email,phone\nJane,jane@example.com,1\nBob,bob@example.com\n", batch.Add, "list.csv: line 3: it has 2 fields, but the first line has 3"},
		{"CSV bad quote", "list.csv", "name,email\n\"Jane,jane@example.com\nx,y\"z\n", batch.Add, "list.csv: line 3:"},
		{"CSV without a usable column", "list.csv", "name,phone\nJane,1\n", batch.Add, "list.csv: line 1: no column looks like an email address (headers: name, phone)"},
		{"CSV without an id column", "list.csv", "name,email\nJane,jane@example.com\n", batch.RemoveIDs, "list.csv: line 1: no column looks like a suppression ID (headers: name, email); it has an email column: remove by address instead"},
		{"empty file", "list.txt", "", batch.Add, "list.txt: it is empty"},
		{"blank file with BOM", "list.txt", "\uFEFF \r\n\t\n", batch.Add, "list.txt: it is empty"},
		{"binary junk", "photo.csv", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", batch.Add, "photo.csv: line 3: it holds binary data"},
		{"Latin-1 text", "list.txt", "a@example.com\nJos\xe9@example.com\n", batch.Add, "list.txt: line 2: it is not UTF-8 text"},
		{"UTF-16", "list.txt", "\xff\xfea\x00@\x00", batch.Add, "list.txt: it is UTF-16 text"},
	} {
		items, err := batch.Read(strings.NewReader(tc.in), tc.file, tc.mode)
		if err == nil {
			t.Errorf("%s: no error, items %+v; want %q", tc.name, items, tc.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %q; want %q", tc.name, err, tc.want)
		}
		if strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%s: error spans lines: %q", tc.name, err)
		}
	}
}

func TestParseText(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		mode     batch.Mode
		want     []entry
	}{
		{"display names and angle brackets", `"Doe, Jane" <Jane@Example.com>, Bob Smith <bob@example.org>`, batch.Add,
			[]entry{{1, "jane@example.com", ""}, {1, "bob@example.org", ""}}},
		{"mailto links with a query", "Write to mailto:Help@Example.com?subject=Hi%20there&cc=boss@example.com today", batch.Add,
			[]entry{{1, "help@example.com", ""}, {1, "boss@example.com", ""}}},
		{"escaped mailto", "mailto:jane%40example.com", batch.Add, []entry{{1, "jane@example.com", ""}}},
		{"separators", "a@example.com;b@example.com, c@example.com\td@example.com e@example.com", batch.Add,
			[]entry{{1, "a@example.com", ""}, {1, "b@example.com", ""}, {1, "c@example.com", ""}, {1, "d@example.com", ""}, {1, "e@example.com", ""}}},
		{"quoted reply with CRLF", "Thanks!\r\n> > On Tue, carol@example.net wrote:\r\n>> please remove dave@example.com.\r\n", batch.Add,
			[]entry{{2, "carol@example.net", ""}, {3, "dave@example.com", ""}}},
		{"bare CR line ends", "see a@example.com here\rand b@example.com there", batch.Add,
			[]entry{{1, "a@example.com", ""}, {2, "b@example.com", ""}}},
		{"invalid tokens with @ are kept", "ping @support or jane@localhost, ok x@example.com", batch.Add,
			[]entry{{1, "", "before @ is empty"}, {1, "", "no dot"}, {1, "x@example.com", ""}}},
		{"possessives and punctuation after an address", "jane@example.com's account; ask bob@example.org! or ‘carol@example.net’", batch.Add,
			[]entry{{1, "jane@example.com", ""}, {1, "bob@example.org", ""}, {1, "carol@example.net", ""}}},
		{"zero-width characters from a web page", "\u200bjane@example.com\u200b\nbob@example.com\ufeff", batch.Add,
			[]entry{{1, "jane@example.com", ""}, {2, "bob@example.com", ""}}},
		{"zero-width characters in prose", "write to\u200bjane@example.com\u200b today", batch.Add,
			[]entry{{1, "jane@example.com", ""}}},
		{"prose without addresses", "Hello team, nothing to do here.", batch.Add, nil},
		{"a plain list counts every line", "jane@example.com\nnot an address\n", batch.RemoveEmails,
			[]entry{{1, "jane@example.com", ""}}},
		{"plain single-token lines", "jane@example.com\nbob\n", batch.RemoveEmails,
			[]entry{{1, "jane@example.com", ""}, {2, "", "no @"}}},
		{"IDs in prose", "Please remove " + id1 + " and (" + strings.ToUpper(id2) + "), also 0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7, not jane@example.com", batch.RemoveIDs,
			[]entry{{1, id1, ""}, {1, id2, ""}, {1, "", "not a UUID"}, {1, "", "an email address"}}},
		{"BOM and empty", "\uFEFF", batch.Add, nil},
	} {
		check(t, tc.name, batch.ParseText(tc.in, tc.mode), tc.want)
	}
}

func TestParseTextHandlesLineEndsAlike(t *testing.T) {
	base := "Jane <jane@example.com>\nbob@example.com, carol@example.com\n\n> dave@example.com\n"
	want := batch.ParseText(base, batch.Add)
	for _, nl := range []string{"\r\n", "\r"} {
		got := batch.ParseText(strings.ReplaceAll(base, "\n", nl), batch.Add)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("with %q line ends: %+v; want %+v", nl, got, want)
		}
	}
}

func TestPlanAndBatches(t *testing.T) {
	for _, n := range []int{0, 1, 100, 101, 250_000} {
		items := make([]batch.Item, 0, n+n/10+2)
		for i := range n {
			items = append(items, batch.NewItem(batch.Add, i+1, fmt.Sprintf("User%d@Example.com", i)))
			if i%10 == 0 {
				items = append(items, batch.NewItem(batch.Add, i+1, fmt.Sprintf("user%d@example.COM ", i)))
			}
		}
		items = append(items, batch.NewItem(batch.Add, n+1, "broken@"), batch.NewItem(batch.Add, n+2, "nope"))
		p := batch.NewPlan(batch.Add, items)
		if len(p.Values) != n || len(p.Invalid) != 2 || p.Duplicates != (n+9)/10 {
			t.Fatalf("n=%d: %d values, %d invalid, %d duplicates", n, len(p.Values), len(p.Invalid), p.Duplicates)
		}
		if p.Invalid[0].Line != n+1 || p.Invalid[0].Raw != "broken@" || p.Invalid[0].Problem == "" {
			t.Fatalf("n=%d: invalid entry lost its line or reason: %+v", n, p.Invalid[0])
		}
		bs := p.Batches()
		if want := (n + 99) / 100; len(bs) != want {
			t.Fatalf("n=%d: %d batches; want %d", n, len(bs), want)
		}
		total := 0
		for i, b := range bs {
			if len(b) == 0 || len(b) > 100 {
				t.Fatalf("n=%d: batch %d has %d entries", n, i, len(b))
			}
			for k, v := range b {
				if v != p.Values[total+k] {
					t.Fatalf("n=%d: batch %d item %d is %s, want %s (plan order)", n, i, k, v, p.Values[total+k])
				}
			}
			total += len(b)
		}
		if total != n {
			t.Fatalf("n=%d: batches hold %d entries", n, total)
		}
		if n > 0 && p.Values[0] != "user0@example.com" {
			t.Fatalf("n=%d: first value %q; want the normalized first occurrence", n, p.Values[0])
		}
	}
}

func TestModeNames(t *testing.T) {
	for m, want := range map[batch.Mode]string{batch.Add: "add", batch.RemoveEmails: "remove by address", batch.RemoveIDs: "remove by ID"} {
		if m.String() != want {
			t.Errorf("%d.String() = %q; want %q", int(m), m.String(), want)
		}
	}
}

func TestCSVHeaderWithNewlineStaysOneLine(t *testing.T) {
	_, err := batch.Read(strings.NewReader("\"na\nme\",phone\nJane,1\n"), "x.csv", batch.Add)
	if err == nil || strings.ContainsAny(err.Error(), "\n\r") || !strings.Contains(err.Error(), `"na\nme"`) {
		t.Fatalf("error %q; want one line that shows the header quoted", err)
	}
}
