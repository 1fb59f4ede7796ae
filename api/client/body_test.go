package client_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/shushlist/shush/api/client"
)

// TestAnswerBodies: the client reads an answer's body as resty did: with
// or without a length, a gzip body the service sent unasked, and a body
// over the 8 MiB limit refused.
func TestAnswerBodies(t *testing.T) {
	items := make([]string, 300)
	for i := range items {
		items[i] = fmt.Sprintf(`{"object":"suppression","id":"id-%d","email":"user%d@example.com","created":true}`, i, i)
	}
	answer := `{"data":[` + strings.Join(items, ",") + `]}`
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write([]byte(answer))
	zw.Close()
	cases := []struct {
		name  string
		serve func(w http.ResponseWriter)
		want  string // "" for the 300 items
	}{
		{"length", func(w http.ResponseWriter) {
			w.Header().Set("Content-Length", fmt.Sprint(len(answer)))
			w.Write([]byte(answer))
		}, ""},
		{"chunked", func(w http.ResponseWriter) {
			for i := 0; i < len(answer); i += 700 {
				w.Write([]byte(answer[i:min(i+700, len(answer))]))
				w.(http.Flusher).Flush()
			}
		}, ""},
		{"gzip unasked", func(w http.ResponseWriter) {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(zipped.Bytes())
		}, ""},
		{"too large", func(w http.ResponseWriter) {
			w.Write([]byte(`{"data":[]}`))
			w.Write(bytes.Repeat([]byte(" "), 8<<20))
		}, "response body too large"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				tc.serve(w)
			}))
			defer srv.Close()
			c := client.New(srv.URL, "re_test", client.WithRetry(0, 0, 0))
			got, err := c.BatchAdd(context.Background(), []string{"a@example.com"})
			switch {
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("BatchAdd: %v; want an error saying %q", err, tc.want)
			case tc.want == "" && (err != nil || len(got) != 300 || got[299].ID != "id-299"):
				t.Fatalf("BatchAdd: %d items, %v; want the 300 answered", len(got), err)
			}
		})
	}
}
