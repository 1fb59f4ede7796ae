package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/server"
)

// listed is an entry as a round trip must keep it.
type listed struct {
	Email     string          `json:"email"`
	Origin    string          `json:"origin"`
	SourceID  *string         `json:"source_id"`
	Note      *string         `json:"note"`
	ExpiresAt *string         `json:"expires_at"`
	Evidence  json.RawMessage `json:"evidence"`
}

func (l listed) String() string {
	s := "-"
	if l.SourceID != nil {
		s = *l.SourceID
	}
	n := "-"
	if l.Note != nil {
		n = *l.Note
	}
	x := "-"
	if l.ExpiresAt != nil {
		x = *l.ExpiresAt
	}
	return l.Email + "/" + l.Origin + "/" + s + "/" + n + "/" + x + "/" + string(l.Evidence)
}

// entriesOf is the whole list of the service sb points at, sorted.
func entriesOf(t *testing.T, sb *sandbox) []string {
	t.Helper()
	var doc struct {
		Data []listed `json:"data"`
	}
	r := sb.run(t, nil, "suppressions", "list", "--all", "--json").want(t, 0)
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("list: %v: %s", err, r)
	}
	var out []string
	for _, e := range doc.Data {
		out = append(out, e.String())
	}
	slices.Sort(out)
	return out
}

// Every file shush writes of a list reads back to the same list: the CSV
// export (its formula guard removed on read), the NDJSON export, and the
// JSON of list --all, each re-imported into an empty shush serve with
// batch add, give the same addresses with the same origins, source IDs,
// notes, expiries and evidence; the run says the IDs and dates are new.
func TestExportsReimportToTheSameList(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	srcDB := filepath.Join(sb.home, "source.db")
	key := strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "ops", "--db", srcDB).want(t, 0).stdout)
	srcURL := startServe(t, sb, srcDB)
	src := sb.with("SHUSH_BASE_URL="+srcURL, "SHUSH_API_KEY="+key)

	// The list to keep: every origin, a source ID, and addresses a
	// spreadsheet would take for formulas.
	body := `{"entries":[
		{"email":"=1+2@example.com","origin":"bounce","source_id":"evt_1","evidence":{"provider":"sendgrid","kind":"import","status":"5.1.1",
			"diagnostic":"550 5.1.1 <=1+2@example.com>: user unknown, \"quoted\"","reported_at":"2025-11-01T10:42:01.000Z"}},
		{"email":"+tagged@example.com","origin":"complaint","note":"=HYPERLINK(\"x\"), ticket 7, \"quoted\"","expires_at":"2099-01-02T03:04:05.006Z"},
		{"email":"-dash@example.com","origin":"manual","expires_at":"2098-12-31T00:00:00.000Z","note":"mailbox full, 30 days"},
		{"email":"plain@example.com","origin":"complaint","source_id":"evt_2","evidence":{"provider":"postmark","kind":"complaint","event_id":"ev-9","message_id":"m@x"}},
		{"email":"o'brien@example.com","origin":"manual"}]}`
	req, _ := http.NewRequest(http.MethodPost, srcURL+"/suppressions/batch/add", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("seeding the list: %v %v", resp, err)
	}
	resp.Body.Close()
	want := entriesOf(t, src)
	if len(want) != 5 {
		t.Fatalf("the seeded list: %v", want)
	}

	files := map[string]string{}
	files["csv"] = filepath.Join(sb.home, "list.csv")
	src.run(t, nil, "suppressions", "export", "--output", files["csv"]).want(t, 0)
	files["ndjson"] = filepath.Join(sb.home, "list.ndjson")
	src.run(t, nil, "suppressions", "export", "--format", "ndjson", "--output", files["ndjson"]).want(t, 0)
	files["list json"] = writeFile(t, sb.home, "list.json", src.run(t, nil, "suppressions", "list", "--all", "--json").want(t, 0).stdout)

	for name, path := range files {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "copy.db")
			key := strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "ops", "--db", db).want(t, 0).stdout)
			dst := sb.with("SHUSH_BASE_URL="+startServe(t, sb, db), "SHUSH_API_KEY="+key)
			r := dst.run(t, nil, "suppressions", "batch", "add", "--file", path).want(t, 0)
			if got := entriesOf(t, dst); !slices.Equal(got, want) {
				t.Errorf("re-imported from %s:\n got %v\nwant %v\n%s", name, got, want, r)
			}
			if !strings.Contains(r.stderr, "IDs and dates are new: the file gives 5 entries their own ID and creation time") {
				t.Errorf("the run does not say the IDs and dates are new: %s", r)
			}
			// The same file again changes nothing: every entry is listed.
			r = dst.run(t, nil, "suppressions", "batch", "add", "--file", path).want(t, 0)
			if strings.Contains(r.stdout, `"outcome":"added"`) {
				t.Errorf("a second import added entries: %s", r)
			}
		})
	}
}

// Where the service takes no origins (the hosted one), the entries are
// added as manual and the run says how many bounces and complaints that
// concerns; the addresses still round-trip.
func TestOriginsToAServiceWithoutThemAreAnnounced(t *testing.T) {
	t.Parallel()
	// The hosted service has no trail, and refuses a body it does not know.
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := readBody(r)
			if strings.HasPrefix(r.URL.Path, "/audit") || strings.Contains(string(b), `"entries"`) {
				routeNotFound(w)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	sb := newSandbox(t).at(svc)
	in := writeFile(t, sb.home, "list.csv", "id,email,origin,source_id,created_at\nx,'=1@example.com,bounce,,t\ny,b@example.com,manual,,t\n")
	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", in).want(t, 0)
	if !strings.Contains(r.stderr, "1 address will be listed as plain manual entries, without the origin, note, expiry or evidence the file gives: "+svc.url+" takes plain addresses only") {
		t.Errorf("no notice that the origins are dropped: %s", r)
	}
	if got := svc.emails(t); !slices.Equal(got, []string{"=1@example.com", "b@example.com"}) {
		t.Errorf("the list: %v", got)
	}
}

// An export re-imported with --keep-ids by a key with the import right
// keeps every entry's ID and creation time (the list moved whole), and
// the report says so; a key without the right is refused (exit 4, before
// anything is listed), and the local list (the person's own database)
// allows it to its key.
func TestKeepIDsRoundTrip(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	srcDB := filepath.Join(sb.home, "source.db")
	key := strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "ops", "--db", srcDB).want(t, 0).stdout)
	src := sb.with("SHUSH_BASE_URL="+startServe(t, sb, srcDB), "SHUSH_API_KEY="+key)
	in := writeFile(t, sb.home, "in.txt", "a@example.com\nb@example.com\nc@example.com\n")
	src.run(t, nil, "suppressions", "batch", "add", "--file", in, "--note", "moved with its IDs", "--expires", "400d").want(t, 0)
	export := filepath.Join(sb.home, "list.csv")
	src.run(t, nil, "suppressions", "export", "--output", export).want(t, 0)
	list := func(s *sandbox) []string {
		doc := decode[struct {
			Data []struct {
				ID        string  `json:"id"`
				Email     string  `json:"email"`
				CreatedAt string  `json:"created_at"`
				Note      *string `json:"note"`
				ExpiresAt *string `json:"expires_at"`
			}
		}](t, s.run(t, nil, "suppressions", "list", "--all", "--json").want(t, 0))
		var out []string
		for _, e := range doc.Data {
			out = append(out, e.ID+" "+e.Email+" "+e.CreatedAt+" "+*e.Note+" "+*e.ExpiresAt)
		}
		slices.Sort(out)
		return out
	}
	want := list(src)

	dstDB := filepath.Join(sb.home, "target.db")
	plain := strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "ops", "--db", dstDB).want(t, 0).stdout)
	importer := strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "ops", "--import", "--db", dstDB).want(t, 0).stdout)
	url := startServe(t, sb, dstDB)
	r := sb.with("SHUSH_BASE_URL="+url, "SHUSH_API_KEY="+plain).run(t, nil, "suppressions", "batch", "add", "--file", export, "--keep-ids").want(t, 4)
	if !strings.Contains(r.stderr, "import right") {
		t.Errorf("the refusal does not say why: %s", r)
	}
	dst := sb.with("SHUSH_BASE_URL="+url, "SHUSH_API_KEY="+importer)
	r = dst.run(t, nil, "suppressions", "batch", "add", "--file", export, "--keep-ids").want(t, 0)
	if got := list(dst); !slices.Equal(got, want) {
		t.Fatalf("moved with --keep-ids:\n got %v\nwant %v", got, want)
	}
	if !strings.Contains(r.stderr, "IDs kept: 3 entries listed with the ID and creation time the file gives.") {
		t.Errorf("the report does not say the IDs were kept: %s", r)
	}

	// The local list: its own key may.
	local := sb.with("SHUSH_DB=" + filepath.Join(sb.home, "local.db"))
	local.run(t, nil, "suppressions", "batch", "add", "--file", export, "--keep-ids").want(t, 0)
	if got := list(local); !slices.Equal(got, want) {
		t.Fatalf("the local list with --keep-ids:\n got %v\nwant %v", got, want)
	}
}
