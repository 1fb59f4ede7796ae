package bounce_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/bounce"
)

var update = flag.Bool("update", false, "rewrite the golden .json of each fixture from this run (review the diff)")

// golden is what a fixture's .json holds: the reports, or the error.
type golden struct {
	Reports []report `json:"reports,omitempty"`
	Error   string   `json:"error,omitempty"`
}

// report is bounce.Report with its empty fields left out, so a golden
// file shows what was found.
type report struct {
	Recipient         string `json:"recipient"`
	Kind              string `json:"kind"`
	Status            string `json:"status,omitempty"`
	Action            string `json:"action,omitempty"`
	Diagnostic        string `json:"diagnostic,omitempty"`
	ReportingMTA      string `json:"reporting_mta,omitempty"`
	RemoteMTA         string `json:"remote_mta,omitempty"`
	MessageID         string `json:"message_id,omitempty"`
	OriginalMessageID string `json:"original_message_id,omitempty"`
	OriginalMailFrom  string `json:"original_mail_from,omitempty"`
	ReportedAt        string `json:"reported_at,omitempty"`
	FeedbackType      string `json:"feedback_type,omitempty"`
	Shape             string `json:"shape,omitempty"`
	EventID           string `json:"event_id"`
}

func toGolden(rs []bounce.Report, err error) golden {
	if err != nil {
		return golden{Error: err.Error()}
	}
	var g golden
	for _, r := range rs {
		at := ""
		if !r.ReportedAt.IsZero() {
			at = r.ReportedAt.Format(time.RFC3339)
		}
		g.Reports = append(g.Reports, report{
			Recipient: r.Recipient, Kind: string(r.Kind), Status: r.Status, Action: r.Action,
			Diagnostic: r.Diagnostic, ReportingMTA: r.ReportingMTA, RemoteMTA: r.RemoteMTA,
			MessageID: r.MessageID, OriginalMessageID: r.OriginalMessageID,
			OriginalMailFrom: r.OriginalMailFrom, ReportedAt: at, FeedbackType: r.FeedbackType,
			Shape: r.Shape, EventID: r.EventID,
		})
	}
	return g
}

// TestFixtures parses every message of testdata/*.eml and compares its
// reports with the golden .json beside it.
func TestFixtures(t *testing.T) {
	files, err := filepath.Glob("testdata/*.eml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 40 {
		t.Fatalf("%d fixtures, want at least 40", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".eml")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(toGolden(bounce.Parse(bytes.NewReader(raw)))); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			path := strings.TrimSuffix(file, ".eml") + ".json"
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./bounce -run TestFixtures -update, then review the file)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("reports differ from %s\ngot:\n%s\nwant:\n%s", path, got, want)
			}
		})
	}
}

// TestEventID: a report's event ID is the report message's Message-ID and
// the recipient, or, without a Message-ID, the SHA-256 of the raw message;
// the same message read twice gives the same IDs.
func TestEventID(t *testing.T) {
	raw, err := os.ReadFile("testdata/qmail.eml") // qmail writes no Message-ID
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	rs, err := bounce.Parse(bytes.NewReader(raw))
	if err != nil || len(rs) != 2 {
		t.Fatalf("%v, %v", rs, err)
	}
	want := "sha256:" + hex.EncodeToString(sum[:]) + "/t.nakamura@isp.example"
	if rs[0].EventID != want {
		t.Errorf("event ID %q, want %q", rs[0].EventID, want)
	}
	withID := append([]byte("Message-ID: <report-1@mx.example>\n"), raw...)
	again, _ := bounce.Parse(bytes.NewReader(withID))
	twice, _ := bounce.Parse(bytes.NewReader(withID))
	if again[1].EventID != "report-1@mx.example/ops@remote.example" || twice[1].EventID != again[1].EventID {
		t.Errorf("event IDs %q, %q; want report-1@mx.example/ops@remote.example both times", again[1].EventID, twice[1].EventID)
	}
}
