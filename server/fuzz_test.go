package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store/sqlite"
)

// fuzzPaths are the endpoints that read a request body.
var fuzzPaths = []string{"/suppressions/batch/add", "/suppressions/batch/remove", "/suppressions"}

// FuzzRequestBody sends any body, with any of a few content types, to the
// endpoints that read one, through the real handler over a real SQLite
// file. The service never panics and never answers 5xx; every error is
// the contract's JSON with a message; every success has the contract's
// shape.
func FuzzRequestBody(f *testing.F) {
	for _, seed := range []string{
		`{"emails":["a@example.com","B@Example.com "]}`,
		`{"emails":["a@example.com","a@example.com"]}`,
		`{"ids":["01a1fe15-ef7e-7c10-a222-42a32cbb09a1"]}`,
		`{"emails":["a@example.com"],"ids":[]}`,
		`{"email":"x@bücher.de"}`,
		`{"emails":null}`, `{"emails":[null,1,{}]}`, `{"emails":"a@b.co"}`, `{}`, `[]`, `null`, ``,
		`{"emails":["a@example.com"],"emails":[]}`, "{\"emails\":[\"\xff@x.com\"]}",
		`{"emails":[[[[[[[[[[]]]]]]]]]]}`, `{"emails":["` + "a\\u0000b@example.com" + `"]}`,
	} {
		for p := range fuzzPaths {
			f.Add(uint8(p), uint8(0), []byte(seed))
		}
	}
	f.Add(uint8(0), uint8(1), []byte(`{"emails":["a@example.com"]}`))
	f.Add(uint8(0), uint8(2), []byte(`{"emails":["a@example.com"]}`))

	st, err := sqlite.Open(context.Background(), filepath.Join(f.TempDir(), "shush.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { st.Close() })
	_, key, err := server.CreateKey(context.Background(), st, "fuzz", false)
	if err != nil {
		f.Fatal(err)
	}
	h := server.New(st, server.Options{Rate: 1e9})

	f.Fuzz(func(t *testing.T, path, ctype uint8, body []byte) {
		req := httptest.NewRequest("POST", fuzzPaths[int(path)%len(fuzzPaths)], bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		switch ctype % 3 {
		case 0:
			req.Header.Set("Content-Type", "application/json")
		case 1:
			req.Header.Set("Content-Type", "application/json; charset=utf-8")
		case 2:
			req.Header.Set("Content-Type", "text/plain")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		out := rec.Body.Bytes()
		if res.StatusCode >= 500 {
			t.Fatalf("POST %s %q: answered %d %s", req.URL.Path, body, res.StatusCode, out)
		}
		if ct := res.Header.Get("Content-Type"); ct != "application/json" {
			t.Fatalf("answer Content-Type %q", ct)
		}
		if res.StatusCode >= 400 {
			var e api.Error
			if err := json.Unmarshal(out, &e); err != nil || e.StatusCode != res.StatusCode || e.Name == "" || e.Message == "" {
				t.Fatalf("POST %s %q: error answer %d %s is not the contract's error body", req.URL.Path, body, res.StatusCode, out)
			}
			return
		}
		switch req.URL.Path {
		case "/suppressions":
			var s api.Suppression
			if err := json.Unmarshal(out, &s); err != nil || res.StatusCode != 201 || !api.IsID(s.ID) {
				t.Fatalf("single add %q: answered %d %s", body, res.StatusCode, out)
			}
		default:
			var r api.BatchResponse
			if err := json.Unmarshal(out, &r); err != nil || r.Data == nil || len(r.Data) > api.MaxBatch {
				t.Fatalf("POST %s %q: answered %d %s", req.URL.Path, body, res.StatusCode, out)
			}
			wantStatus := http.StatusCreated
			if req.URL.Path == "/suppressions/batch/remove" {
				wantStatus = http.StatusOK
			}
			if res.StatusCode != wantStatus {
				t.Fatalf("POST %s: status %d, want %d", req.URL.Path, res.StatusCode, wantStatus)
			}
			for _, d := range r.Data {
				if d.Object != "suppression" || !api.IsID(d.ID) {
					t.Fatalf("POST %s: item %+v", req.URL.Path, d)
				}
			}
		}
	})
}
