package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

func manyEmails(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d@example.com", prefix, i)
	}
	return out
}

func TestBatchSizeLimits(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("limits", false)
		for _, n := range []int{0, 1, 100, 101} {
			emails := manyEmails(fmt.Sprintf("n%d-", n), n)
			t.Run(fmt.Sprintf("add %d", n), func(t *testing.T) {
				r := s.post("/suppressions/batch/add", key, jsonBody(t, map[string]any{"emails": emails}))
				if n == 0 || n == 101 {
					e := r.wantError(t, 422, api.ErrValidation)
					if !strings.Contains(e.Message, "`emails`") {
						t.Errorf("message %q does not name the field", e.Message)
					}
					if n == 101 && s.lookup(key, emails[0]) != "" {
						t.Error("a refused batch of 101 put an address on the list")
					}
					return
				}
				var resp api.BatchResponse
				if r.status != 201 {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				r.decode(t, &resp)
				if len(resp.Data) != n {
					t.Fatalf("%d items for %d addresses", len(resp.Data), n)
				}
			})
			t.Run(fmt.Sprintf("remove emails %d", n), func(t *testing.T) {
				r := s.post("/suppressions/batch/remove", key, jsonBody(t, map[string]any{"emails": emails}))
				if n == 0 || n == 101 {
					r.wantError(t, 422, api.ErrValidation)
					return
				}
				var resp api.BatchResponse
				if r.status != 200 {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
				r.decode(t, &resp)
				if len(resp.Data) != n {
					t.Fatalf("removed %d of %d", len(resp.Data), n)
				}
			})
			t.Run(fmt.Sprintf("remove ids %d", n), func(t *testing.T) {
				ids := make([]string, n)
				for i := range ids {
					ids[i] = uuid.Must(uuid.NewV7()).String()
				}
				r := s.post("/suppressions/batch/remove", key, jsonBody(t, map[string]any{"ids": ids}))
				if n == 0 || n == 101 {
					e := r.wantError(t, 422, api.ErrValidation)
					if !strings.Contains(e.Message, "`ids`") {
						t.Errorf("message %q does not name the field", e.Message)
					}
					return
				}
				if r.status != 200 {
					t.Fatalf("status %d: %s", r.status, r.body)
				}
			})
		}
	})
}

// TestErrorRows walks the contract's error table for the batch endpoints.
func TestErrorRows(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("errors", false)
		big := `{"emails":["` + strings.Repeat("a", server.MaxBody) + `@example.com"]}`
		deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
		huge := `{"emails":[` + strings.TrimSuffix(strings.Repeat(`"a@example.com",`, 60000), ",") + `]}`
		cases := []struct {
			name, path, ctype, body string
			status                  int
			errName                 string
			mention                 []string
		}{
			{"not json", "add", "application/json", `{"emails": [`, 400, api.ErrValidation, []string{"not valid JSON"}},
			{"empty body", "add", "application/json", ``, 400, api.ErrValidation, []string{"empty"}},
			{"array body", "add", "application/json", `["a@example.com"]`, 400, api.ErrValidation, []string{"JSON object"}},
			{"null body", "add", "application/json", `null`, 400, api.ErrValidation, []string{"JSON object"}},
			{"trailing garbage", "add", "application/json", `{"emails":["a@example.com"]} x`, 400, api.ErrValidation, nil},
			{"two objects", "add", "application/json", `{"emails":["a@example.com"]}{}`, 400, api.ErrValidation, nil},
			{"invalid utf-8", "add", "application/json", "{\"emails\":[\"a\xff@example.com\"]}", 400, api.ErrValidation, []string{"UTF-8"}},
			{"deep nesting", "add", "application/json", `{"x":` + deep + `}`, 400, api.ErrValidation, nil},
			{"emails a string", "add", "application/json", `{"emails":"a@example.com"}`, 400, api.ErrValidation, []string{"`emails`", "array"}},
			{"emails an object", "add", "application/json", `{"emails":{"a":1}}`, 400, api.ErrValidation, []string{"`emails`"}},
			{"item a number", "add", "application/json", `{"emails":["a@example.com",7]}`, 400, api.ErrValidation, []string{"emails[1]", "string"}},
			{"item an array", "add", "application/json", `{"emails":[["a@example.com"]]}`, 400, api.ErrValidation, []string{"emails[0]"}},
			{"duplicate field", "add", "application/json", `{"emails":["a@example.com"],"emails":null}`, 400, api.ErrValidation, []string{"`emails`", "more than once"}},
			{"entry field twice", "add", "application/json", `{"entries":[{"email":"s0@x.example"},{"email":"s7@x.example","email":"s8@x.example","origin":"manual"}]}`, 422, api.ErrValidation, []string{"entries[1]", `"email"`, "more than once"}},
			{"entry origin twice", "add", "application/json", `{"entries":[{"email":"s9@x.example","origin":"bounce","origin":"manual"}]}`, 422, api.ErrValidation, []string{"entries[0]", `"origin"`, "more than once"}},
			{"entry field twice escaped", "add", "application/json", `{"entries":[{"email":"s9@x.example","em\u0061il":"s10@x.example"}]}`, 422, api.ErrValidation, []string{"entries[0]", `"email"`}},
			{"wrong content type", "add", "text/plain", `{"emails":["a@example.com"]}`, 415, api.ErrValidation, []string{"Content-Type"}},
			{"no content type", "add", "", `{"emails":["a@example.com"]}`, 415, api.ErrValidation, []string{"Content-Type"}},
			{"form content type", "add", "application/x-www-form-urlencoded", `emails=a@example.com`, 415, api.ErrValidation, nil},
			{"too large", "add", "application/json", big, 413, api.ErrValidation, []string{"1 MiB"}},
			{"huge array", "add", "application/json", huge, 422, api.ErrValidation, []string{"60000", "at most 100"}},
			{"missing emails", "add", "application/json", `{"email":"a@example.com"}`, 422, api.ErrMissingRequiredField, []string{"`emails`"}},
			{"emails null", "add", "application/json", `{"emails":null}`, 422, api.ErrValidation, []string{"`emails`", "null"}},
			{"item null", "add", "application/json", `{"emails":["a@example.com",null]}`, 422, api.ErrValidation, []string{"emails[1]", "null"}},
			{"invalid address", "add", "application/json", `{"emails":["a@example.com","b@example.com","c@example.com","bob@"]}`, 422, api.ErrValidation, []string{`emails[3] ("bob@") is not a valid email address`}},
			{"several invalid", "add", "application/json", `{"emails":["x","bob@","ok@example.com","y"]}`, 422, api.ErrValidation, []string{`emails[0] ("x")`, "2 more items"}},
			{"remove neither", "remove", "application/json", `{}`, 422, api.ErrMissingRequiredField, []string{"`emails`", "`ids`"}},
			{"remove both", "remove", "application/json", `{"emails":["a@example.com"],"ids":["0190a0f0-0000-7000-8000-000000000000"]}`, 422, api.ErrValidation, []string{"not both"}},
			{"remove both one null", "remove", "application/json", `{"emails":null,"ids":["0190a0f0-0000-7000-8000-000000000000"]}`, 422, api.ErrValidation, nil},
			{"remove emails null", "remove", "application/json", `{"emails":null}`, 422, api.ErrValidation, []string{"null"}},
			{"remove ids null", "remove", "application/json", `{"ids":null}`, 422, api.ErrValidation, []string{"`ids`", "null"}},
			{"remove bad id", "remove", "application/json", `{"ids":["0190a0f0-0000-7000-8000-000000000000","nope"]}`, 422, api.ErrValidation, []string{`ids[1] ("nope") is not a suppression ID`}},
			{"remove ids wrong type", "remove", "application/json", `{"ids":[true]}`, 400, api.ErrValidation, []string{"ids[0]"}},
			{"single missing", "one", "application/json", `{}`, 422, api.ErrMissingRequiredField, []string{"`email`"}},
			{"single null", "one", "application/json", `{"email":null}`, 422, api.ErrValidation, []string{"`email`"}},
			{"single wrong type", "one", "application/json", `{"email":["a@example.com"]}`, 400, api.ErrValidation, []string{"`email`"}},
			{"single invalid", "one", "application/json", `{"email":"a@@example.com"}`, 422, api.ErrValidation, []string{"`email`", `"a@@example.com"`}},
		}
		paths := map[string]string{"add": "/suppressions/batch/add", "remove": "/suppressions/batch/remove", "one": "/suppressions"}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := s.do("POST", paths[c.path], key, c.ctype, []byte(c.body))
				e := r.wantError(t, c.status, c.errName)
				for _, m := range c.mention {
					if !strings.Contains(e.Message, m) {
						t.Errorf("message %q does not mention %q", e.Message, m)
					}
				}
				if len(e.Message) > 400 {
					t.Errorf("message is %d bytes long: it should be one sentence", len(e.Message))
				}
			})
		}
		// Nothing of the refused requests reached the list.
		if r := s.get("/suppressions?limit=100", key); !strings.Contains(string(r.body), `"data":[]`) {
			t.Errorf("refused requests changed the list: %s", r.body)
		}
	})
}

func TestContentTypeParametersAndUnknownFields(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("ctype", false)
		r := s.do("POST", "/suppressions/batch/add", key, "Application/JSON; charset=utf-8",
			[]byte(`{"emails":["a@example.com"],"extra":{"deep":[1,2,3]},"Emails":5}`))
		if r.status != http.StatusCreated {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		// Invalid JSON escapes inside a string and a UTF-8 BOM are not
		// server errors.
		r = s.do("POST", "/suppressions/batch/add", key, "application/json", []byte("\xef\xbb\xbf{\"emails\":[\"a@example.com\"]}"))
		if r.status >= 500 {
			t.Errorf("a body with a BOM: status %d", r.status)
		}
	})
}

// TestHostileRequests sends what a careless or hostile client might; the
// service must answer each with a 4xx JSON error, never a 5xx.
func TestHostileRequests(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("hostile", false)
		bodies := []string{
			`{"emails":[` + strings.Repeat(`{"a":`, 5000) + strings.Repeat(`}`, 5000) + `]}`,
			`{"emails":["\ud800@example.com"]}`,
			`{"emails":["a@example.com\u0000"]}`,
			`{"emails":["` + strings.Repeat("é", 300) + `@example.com"]}`,
			`{"emails":["a@` + strings.Repeat("x", 70) + `.com"]}`,
			`{"emails":["a@xn--.com","a@-x.com","a@.com","a@b..com","@b.com"]}`,
			`{"emails":[1e999]}`,
			`{"emails":["a@example.com"],"ids":[]}`,
			`{"ids":[""]}`,
			`{"emails":{}}`,
			`{"":null,"emails":[]}`,
			`{"emails":[]}` + strings.Repeat(" ", 1000),
			"\x00\x01\x02",
			strings.Repeat("{", 100000),
		}
		for i, b := range bodies {
			for _, path := range []string{"/suppressions/batch/add", "/suppressions/batch/remove", "/suppressions"} {
				r := s.post(path, key, b)
				if r.status < 400 && r.status != 201 && r.status != 200 || r.status >= 500 {
					t.Errorf("body %d to %s: status %d: %s", i, path, r.status, r.body)
				}
			}
		}
		headerTricks := [][]string{
			{"Authorization", "Bearer " + key, "Authorization", "Bearer " + key},
			{"Content-Length", "5"},
			{"Transfer-Encoding", "chunked"},
			{"Content-Type", "application/json; charset=\"unterminated"},
			{"Content-Type", "application/json, text/plain"},
		}
		for i, h := range headerTricks {
			r := s.do("POST", "/suppressions/batch/add", key, "application/json", []byte(`{"emails":["h@example.com"]}`), h...)
			if r.status >= 500 {
				t.Errorf("header trick %d: status %d: %s", i, r.status, r.body)
			}
		}
		for _, p := range []string{"/suppressions/%ff%fe", "/suppressions/" + strings.Repeat("a", 10000), "/suppressions/a%00b@example.com",
			"/suppressions?limit=%zz", "/suppressions?limit=99999999999999999999", "/suppressions?after=&before="} {
			r := s.get(p, key)
			if r.status >= 500 || r.status < 400 && r.status != 200 {
				t.Errorf("GET %s: status %d: %s", p, r.status, r.body)
			}
		}
	})
}
