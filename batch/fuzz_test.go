package batch_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
)

// FuzzRead checks that any input is either read into items that keep their
// line and are normalized, or refused with one sentence naming the file.
func FuzzRead(f *testing.F) {
	for _, seed := range []string{
		"a@example.com\nb@example.com\r\n",
		`["a@example.com", null, 1]`,
		`{"emails": ["a@example.com"]}`,
		"name,email\nJane,jane@example.com\n",
		"Jane <jane@example.com>, mailto:x@y.org?cc=z@w.net",
		"\uFEFF[\n}",
		"\x00\x01",
		// Other providers' files.
		"email,created,reason,status\na@example.com,1761993721,\"550 <a@example.com> no\",5.1.1\n",
		"address,code,error,created_at\nb@example.com,550,x,\"Mon, 03 Nov 2025 18:11:58 UTC\"\n",
		`{"Suppressions":[{"EmailAddress":"c@example.com","SuppressionReason":"HardBounce","Origin":"Recipient","CreatedAt":"2025-11-09T08:58:33-05:00"}]}`,
		`{"SuppressedDestinationSummaries":[{"EmailAddress":"d@example.com","Reason":"BOUNCE","LastUpdateTime":1762508400.5}],"NextToken":"x"}`,
		"e@example.com,COMPLAINT\n",
		`{"emailAddress": "f@example.com", "reason": "BOUNCE"}` + "\n",
		"id,email,origin,source_id,created_at\n6f1f3a2e-8d1c-4b7e-9a55-0c6f3b2d1e4a,g@example.com,bounce,,2025-11-10 23:47:56.678+00\n",
	} {
		f.Add([]byte(seed), "in.txt", uint8(0))
	}
	f.Fuzz(func(t *testing.T, data []byte, name string, m uint8) {
		mode := batch.Mode(m % 3)
		items, err := batch.Read(bytes.NewReader(data), name, mode)
		if err != nil {
			label := name
			switch {
			case label == "":
				label = "input"
			case strings.ContainsFunc(label, unicode.IsControl):
				label = api.Quote(label)
			}
			if !strings.HasPrefix(err.Error(), label+": ") || strings.ContainsAny(err.Error(), "\n\r") {
				t.Fatalf("error %q: want one line starting with the name", err)
			}
			return
		}
		checkItems(t, items, mode)
	})
}

// FuzzParseText checks pasted text the same way; it never fails.
func FuzzParseText(f *testing.F) {
	for _, seed := range []string{
		"Hi, please remove Jane <Jane@Example.com>\r\n> bob@example.org wrote:",
		"mailto:jane%40example.com?subject=x&cc=a@b.co",
		"0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b, x@y",
	} {
		f.Add(seed, uint8(0))
	}
	f.Fuzz(func(t *testing.T, s string, m uint8) {
		mode := batch.Mode(m % 3)
		checkItems(t, batch.ParseText(s, mode), mode)
	})
}

func checkItems(t *testing.T, items []batch.Item, mode batch.Mode) {
	t.Helper()
	for _, it := range items {
		if it.Line < 1 {
			t.Fatalf("item %+v has no line", it)
		}
		if it.Problem != "" {
			if it.Value != "" {
				t.Fatalf("invalid item %+v has a value", it)
			}
			continue
		}
		// An address, or a domain entry (@domain, *.domain) where the mode
		// takes addresses.
		n, err := api.NormalizeEntry(it.Value)
		ok := err == nil && n == it.Value
		if mode == batch.RemoveIDs {
			n, err = api.NormalizeID(it.Value)
			ok = err == nil && n == it.Value
		}
		if !ok {
			t.Fatalf("valid item %+v is not normalized for %v", it, mode)
		}
	}
}
