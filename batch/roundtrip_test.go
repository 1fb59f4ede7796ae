package batch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// What shush writes reads back: a CSV export (formula guard and all), an
// NDJSON export, the JSON of a list or a run, the UI's results export and
// batch add's entries body, each with the addresses and, for an addition,
// the origins it gave.
func TestExportsReadBack(t *testing.T) {
	type got struct {
		value, origin, source, note string
	}
	for _, tc := range []struct {
		name, file, in string
		mode           batch.Mode
		format         batch.Format
		want           []got
	}{
		{name: "CSV export", file: "list.csv", mode: batch.Add, format: batch.CSV,
			in: "id,email,origin,source_id,created_at,note,expires_at\n" +
				"0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a,'=1+2@example.com,bounce,evt_1,2026-11-24T10:00:00.000Z,'=ticket 7,\n" +
				"0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6b,'-x@example.com,complaint,,2026-11-24T10:00:00.000Z,,\n" +
				"0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6c,plain@example.com,manual,,2026-11-24T10:00:00.000Z,,\n",
			want: []got{{"=1+2@example.com", "bounce", "evt_1", "=ticket 7"}, {"-x@example.com", "complaint", "", ""}, {"plain@example.com", "manual", "", ""}}},
		{name: "CSV export removed by ID", file: "list.csv", mode: batch.RemoveIDs, format: batch.CSV,
			in:   "id,email,origin,source_id,created_at\n0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a,'=1+2@example.com,bounce,,x\n",
			want: []got{{"0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a", "", "", ""}}},
		{name: "NDJSON export", file: "list.ndjson", mode: batch.Add, format: batch.NDJSON,
			in: `{"object":"suppression","id":"0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a","email":"a@example.com","origin":"bounce","source_id":"evt_9","created_at":"x","note":"n1"}` + "\n" +
				`{"object":"suppression","id":"0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6b","email":"b@example.com","origin":"complaint","source_id":null,"created_at":"x"}` + "\n",
			want: []got{{"a@example.com", "bounce", "evt_9", "n1"}, {"b@example.com", "complaint", "", ""}}},
		{name: "NDJSON from stdin", file: "", mode: batch.RemoveEmails, format: batch.NDJSON,
			in:   `{"object":"suppression","id":"x","email":"A@example.com"}` + "\n",
			want: []got{{"a@example.com", "", "", ""}}},
		{name: "a list's JSON", file: "list.json", mode: batch.Add, format: batch.JSONBody,
			in:   `{"object":"list","has_more":false,"data":[{"id":"x","email":"a@example.com","origin":"bounce","source_id":null,"created_at":"x"}]}`,
			want: []got{{"a@example.com", "bounce", "", ""}}},
		{name: "the UI's results export", file: "results.json", mode: batch.Add, format: batch.JSONBody,
			in:   `{"ticket":"T-1","target":"local list","mode":"add","started":"x","data":[{"address":"a@example.com","id":"x","outcome":"added","deleted":false}]}`,
			want: []got{{"a@example.com", "", "", ""}}},
		{name: "batch add's entries body", file: "body.json", mode: batch.Add, format: batch.JSONBody,
			in:   `{"entries":[{"email":"a@example.com","origin":"complaint"}]}`,
			want: []got{{"a@example.com", "complaint", "", ""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			items, format, err := batch.ReadFormat(strings.NewReader(tc.in), tc.file, tc.mode)
			if err != nil {
				t.Fatal(err)
			}
			if format != tc.format || len(items) != len(tc.want) {
				t.Fatalf("read %s with %d items %+v; want %s with %d", format, len(items), items, tc.format, len(tc.want))
			}
			for i, it := range items {
				g := got{it.Value, string(it.Origin), it.SourceID, it.Note}
				if g != tc.want[i] || !it.Valid() {
					t.Errorf("item %d = %+v; want %+v", i, it, tc.want[i])
				}
			}
		})
	}
}

func TestBadOriginsAndEntries(t *testing.T) {
	items, err := batch.Read(strings.NewReader("email,origin\na@example.com,bounced\nb@example.com,\n"), "x.csv", batch.Add)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || !strings.Contains(items[0].Problem, `origin "bounced" is not one of bounce, complaint, manual`) || items[0].Line != 2 ||
		!items[1].Valid() || items[1].Origin != "" {
		t.Errorf("a bad origin: %+v", items)
	}
	_, err = batch.Read(strings.NewReader(`{"email":"a@example.com"}`+"\nnot json\n"), "x", batch.Add)
	if err == nil || !strings.Contains(err.Error(), "line 2: it is not a JSON object") {
		t.Errorf("NDJSON with a broken line: %v", err)
	}
	items, err = batch.Read(strings.NewReader(`{"email":"a@example.com"}`+"\n"+`{"id":"x"}`+"\n"), "x", batch.Add)
	if err != nil || len(items) != 2 || !strings.Contains(items[1].Problem, `the line has no "email"`) || items[1].Line != 2 {
		t.Errorf("NDJSON without the field: %+v %v", items, err)
	}
	if _, err := batch.Read(strings.NewReader(`{"entries":[{"email":"a@example.com"}]}`), "x.json", batch.RemoveEmails); err == nil {
		t.Error("a removal took an entries body")
	}
}

// An input read in one pass keeps its origins: its run sends them (the
// service lists each entry with its origin), and each segment's journal
// holds its own, so that a resumed run sends them as the first attempt
// would have.
func TestInputSendsAndRecordsItsOrigins(t *testing.T) {
	var csv strings.Builder
	csv.WriteString("email,origin,source_id\n")
	origins := []api.Origin{api.OriginBounce, api.OriginComplaint, api.OriginManual}
	for i := range 250 {
		fmt.Fprintf(&csv, "user%03d@example.com,%s,%s\n", i, origins[i%3], map[bool]string{true: "evt", false: ""}[i == 7])
	}
	csv.WriteString("user000@example.com,complaint,\n") // a duplicate: the first occurrence's origin wins
	in, err := batch.ReadPlan(strings.NewReader(csv.String()), "x.csv", batch.Add, ticket.NewOwn(nil), ticket.ByRule)
	if err != nil {
		t.Fatal(err)
	}
	if in.Origins() != 167 {
		t.Errorf("Origins() = %d, want the 167 bounces and complaints (manual is no loss)", in.Origins())
	}
	svc := startService(t, 1000)
	dir := t.TempDir()
	rs := &batch.Runs{Dir: dir, Client: svc.client(), SegmentSize: 100}
	ri, err := rs.Start(context.Background(), in, batch.RunMeta{}, batch.Observer{})
	if err != nil || ri.Segments != 3 {
		t.Fatalf("the run: %+v, %v", ri, err)
	}
	listed := map[string]api.Entry{}
	for after := ""; ; {
		page, err := svc.client().List(context.Background(), client.ListParams{Limit: 100, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Data {
			listed[e.Email] = e
		}
		if !page.HasMore {
			break
		}
		after = page.Data[len(page.Data)-1].ID
	}
	for i := range 250 {
		e := listed[fmt.Sprintf("user%03d@example.com", i)]
		if e.Origin != origins[i%3] || (i == 7) != (e.SourceID != nil && *e.SourceID == "evt") {
			t.Errorf("user%03d is listed as %+v, want origin %s", i, e, origins[i%3])
		}
	}

	files, _ := filepath.Glob(filepath.Join(dir, ri.ID+".s*.jsonl"))
	if len(files) != 3 {
		t.Fatalf("journals %v", files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		line, _, _ := strings.Cut(string(b), "\n")
		var rec struct {
			Values  []string                 `json:"values"`
			Restore map[string]batch.Restore `json:"restore"`
		}
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%s: the plan record: %v", f, err)
		}
		if len(rec.Restore) != len(rec.Values) {
			t.Errorf("%s: %d values, %d origins", f, len(rec.Values), len(rec.Restore))
		}
		for _, v := range rec.Values {
			if _, ok := rec.Restore[v]; !ok {
				t.Errorf("%s: no origin for %s", f, v)
			}
		}
	}
}
