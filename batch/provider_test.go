package batch_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// providerWant is a fixture's expected reading (NAME.want.json beside
// it), written by hand from the provider's documented shape.
type providerWant struct {
	Preset  string      `json:"preset"`
	Ignored []string    `json:"ignored"`
	Entries []wantEntry `json:"entries"`
	Invalid []struct {
		Line    int    `json:"line"`
		Raw     string `json:"raw"`
		Problem string `json:"problem"`
	} `json:"invalid"`
	Warnings []string `json:"warnings"`
}

// Every provider fixture is found by its header or shape and reads as
// its want file says: each entry with its origin and evidence, each
// invalid entry with its line, each warning; the plan carries the same
// to the run.
func TestProviderFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/providers/*")
	n := 0
	for _, file := range files {
		if strings.HasSuffix(file, ".want.json") {
			continue
		}
		n++
		t.Run(filepath.Base(file), func(t *testing.T) { checkFixture(t, file) })
	}
	if n < 14 {
		t.Fatalf("found %d fixtures, want one per format (14)", n)
	}
}

// checkFixture reads a fixture as its want file says, items and plan.
func checkFixture(t *testing.T, file string) {
	var want providerWant
	b, err := os.ReadFile(file + ".want.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := batch.ReadAs(f, file, batch.Add, batch.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	if got.Preset == nil || got.Preset.Name != want.Preset {
		t.Fatalf("read as %v, want %q", got.Preset, want.Preset)
	}
	if want.Ignored != nil && !slices.Equal(got.Preset.Ignored, want.Ignored) {
		t.Errorf("ignored %q, want %q", got.Preset.Ignored, want.Ignored)
	}
	checkEntries(t, got.Items, want)
	if !slices.Equal(got.Warnings, want.Warnings) && len(got.Warnings)+len(want.Warnings) > 0 {
		t.Errorf("warnings %q\nwant %q", got.Warnings, want.Warnings)
	}
	if _, err := f.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	checkFixturePlan(t, f, file, want)
}

// checkFixturePlan: the plan keeps what each entry says for the run.
func checkFixturePlan(t *testing.T, f *os.File, file string, want providerWant) {
	t.Helper()
	in, err := batch.ReadPlanAs(f, file, batch.Add, ticket.Own{}, ticket.ByRule, batch.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	plan := in.Plan()
	if in.Preset == nil || in.Preset.Name != want.Preset || len(plan.Values) != len(want.Entries) {
		t.Fatalf("plan: preset %v, %d values; want %q, %d", in.Preset, len(plan.Values), want.Preset, len(want.Entries))
	}
	for _, w := range want.Entries {
		to := plan.Restore[w.Email]
		if to.Origin != w.Origin || !sameEvidence(to.Evidence, w.Evidence) {
			t.Errorf("plan: %s is to be listed as %+v, want origin %s evidence %+v", w.Email, to, w.Origin, w.Evidence)
		}
	}
}

func checkEntries(t *testing.T, items []batch.Item, want providerWant) {
	t.Helper()
	var valid, invalid []batch.Item
	for _, it := range items {
		if it.Valid() {
			valid = append(valid, it)
		} else {
			invalid = append(invalid, it)
		}
	}
	if len(valid) != len(want.Entries) {
		t.Fatalf("%d entries, want %d: %+v", len(valid), len(want.Entries), valid)
	}
	for i, w := range want.Entries {
		checkEntry(t, i, valid[i], w)
	}
	if len(invalid) != len(want.Invalid) {
		t.Fatalf("%d invalid entries, want %d: %+v", len(invalid), len(want.Invalid), invalid)
	}
	for i, w := range want.Invalid {
		it := invalid[i]
		if it.Line != w.Line || w.Raw != "" && it.Raw != w.Raw || w.Problem != "" && it.Problem != w.Problem {
			t.Errorf("invalid %d = line %d raw %q problem %q; want line %d raw %q problem %q", i, it.Line, it.Raw, it.Problem, w.Line, w.Raw, w.Problem)
		}
	}
}

// wantEntry is one expected entry of a fixture.
type wantEntry = struct {
	Email     string        `json:"email"`
	Origin    api.Origin    `json:"origin"`
	SourceID  string        `json:"source_id"`
	ID        string        `json:"id"`
	CreatedAt string        `json:"created_at"`
	Evidence  *api.Evidence `json:"evidence"`
}

func checkEntry(t *testing.T, i int, it batch.Item, w wantEntry) {
	t.Helper()
	var ev *api.Evidence
	var id, created string
	if it.Extra != nil {
		ev, id = it.Extra.Evidence, it.Extra.ID
		if !it.Extra.CreatedAt.IsZero() {
			created = it.Extra.CreatedAt.UTC().Format(api.TimestampLayout)
		}
	}
	if it.Value != w.Email || it.Origin != w.Origin || it.SourceID != w.SourceID || id != w.ID || created != w.CreatedAt {
		t.Errorf("entry %d = %s %s source %q id %q created %q; want %s %s source %q id %q created %q",
			i, it.Value, it.Origin, it.SourceID, id, created, w.Email, w.Origin, w.SourceID, w.ID, w.CreatedAt)
	}
	if !sameEvidence(ev, w.Evidence) {
		got, _ := json.Marshal(ev)
		exp, _ := json.Marshal(w.Evidence)
		t.Errorf("entry %d (%s) evidence\n got %s\nwant %s", i, w.Email, got, exp)
	}
}

func sameEvidence(a, b *api.Evidence) bool {
	if a == nil || b == nil {
		return a == b
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// A provider's format named with --format reads a file whose header has
// more than its columns (the rest named as not kept); a file that is none
// of the provider's says why, on its first line; plain reads a provider's
// file as a list, without its meaning.
func TestProviderFormatNamed(t *testing.T) {
	bounces := "email,created,reason,status,subuser\na@example.com,1761993721,550 no such user,5.1.1,team-eu\n"
	dump, err := os.ReadFile("testdata/providers/postmark-dump.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, in, format string
		preset           string   // "" for none
		ignored          []string // of the preset
		err              string   // "" for none
	}{
		{"named, more columns than its own", bounces, batch.FormatSendGrid, "SendGrid bounces CSV", []string{"subuser"}, ""},
		// Unnamed, the extra column keeps it a plain CSV: a guess would
		// be shown as fact.
		{"unnamed, more columns: a plain CSV", bounces, batch.FormatAuto, "", nil, ""},
		{"not the provider's", "email,name\na@example.com,Ann\n", batch.FormatMailgun, "", nil, "line 1: it is not a Mailgun CSV"},
		{"a provider without CSV", "email\na@example.com\n", batch.FormatPostmark, "", nil, "its export is JSON"},
		{"plain: no meaning", "email,created\nb@example.com,1761993721\n", batch.FormatPlain, "", nil, ""},
		{"plain: a dump is no request body", string(dump), batch.FormatPlain, "", nil, "neither"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := batch.ReadAs(strings.NewReader(tc.in), "export.csv", batch.Add, tc.format)
			switch {
			case tc.err != "":
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
			case err != nil:
				t.Fatal(err)
			case tc.preset == "" && (got.Preset != nil || got.Items[0].Origin != ""):
				t.Fatalf("read with a provider's meaning: %+v", got)
			case tc.preset != "" && (got.Preset == nil || got.Preset.Name != tc.preset || !slices.Equal(got.Preset.Ignored, tc.ignored)):
				t.Fatalf("preset %+v, want %s ignoring %v", got.Preset, tc.preset, tc.ignored)
			}
		})
	}
	if _, err := batch.CheckFormat("brevo"); err == nil {
		t.Fatal("an unknown format was taken")
	}
}

// A removal by address reads a provider's file for its addresses only;
// a removal by ID refuses a provider's format by name.
func TestProviderFilesForRemoval(t *testing.T) {
	f, _ := os.Open("testdata/providers/ses-list-suppressed-destinations.json")
	defer f.Close()
	got, err := batch.ReadAs(f, "ses.json", batch.RemoveEmails, batch.FormatAuto)
	if err != nil || len(got.Items) != 3 || got.Items[0].Value != "ses.bounce@example.com" || got.Items[0].Origin != "" {
		t.Fatalf("%+v, %v", got.Items, err)
	}
	if _, err := batch.ReadAs(strings.NewReader("id\n0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a\n"), "x.csv", batch.RemoveIDs, batch.FormatSES); err == nil {
		t.Fatal("a provider's format read IDs")
	}
}
