package server_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
)

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
)

// openAPIRouter loads and checks the service's OpenAPI document once.
func openAPIRouter(t *testing.T) routers.Router {
	t.Helper()
	specOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(server.OpenAPI())
		if err != nil {
			specErr = err
			return
		}
		if err := doc.Validate(context.Background()); err != nil {
			specErr = err
			return
		}
		specRouter, specErr = legacy.NewRouter(doc)
	})
	if specErr != nil {
		t.Fatalf("the OpenAPI document: %v", specErr)
	}
	return specRouter
}

// capture keeps what a handler answered, passing it on.
type capture struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (c *capture) WriteHeader(code int) {
	if c.status == 0 {
		c.status = code
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *capture) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	c.body.Write(b)
	return c.ResponseWriter.Write(b)
}

func (c *capture) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// checkedAgainstOpenAPI validates every answer of h against the OpenAPI
// document, and every request h accepted (status below 400): a test that
// runs through it fails when the service and its document disagree. The
// request body is copied as the handler reads it, so slow and capped
// bodies behave as without the check.
func checkedAgainstOpenAPI(t *testing.T, h http.Handler) http.Handler {
	router := openAPIRouter(t)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reqBody bytes.Buffer
		if r.Body != nil {
			r.Body = struct {
				io.Reader
				io.Closer
			}{io.TeeReader(r.Body, &reqBody), r.Body}
		}
		c := &capture{ResponseWriter: w}
		h.ServeHTTP(c, r)

		check := r.Clone(context.Background())
		check.Body = io.NopCloser(bytes.NewReader(reqBody.Bytes()))
		route, params, err := router.FindRoute(check)
		if err != nil {
			// Unknown paths are refused (401 before routing, then 404
			// or 405) or redirected to their clean form, and are rightly
			// not in the document.
			if c.status < 300 {
				t.Errorf("OpenAPI: %s %s answered %d but is not in the document: %v", r.Method, r.URL.Path, c.status, err)
			}
			return
		}
		in := &openapi3filter.RequestValidationInput{
			Request: check, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true},
		}
		if c.status < 400 {
			if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
				t.Errorf("OpenAPI: the accepted request %s %s does not match the document: %v", r.Method, r.URL.Path, err)
			}
		}
		out := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: in,
			Status:                 c.status,
			Header:                 c.Header(),
			Body:                   io.NopCloser(bytes.NewReader(c.body.Bytes())),
			Options:                in.Options,
		}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("OpenAPI: the answer %d to %s %s does not match the document: %v", c.status, r.Method, r.URL.Path, err)
		}
	})
}

// TestOpenAPIDocument: the service serves its document without a key, it
// is a valid OpenAPI 3.1 document, and one accepted request per
// operation, checked against it, passes.
func TestOpenAPIDocument(t *testing.T) {
	openAPIRouter(t)
	s := startService(t, openSQLite(t), server.Options{})
	r := s.get("/openapi.json", "")
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" || !bytes.Equal(r.body, server.OpenAPI()) {
		t.Fatalf("GET /openapi.json: %d %q", r.status, r.header.Get("Content-Type"))
	}
	doc, err := openapi3.NewLoader().LoadFromData(r.body)
	if err != nil || !doc.IsOpenAPI31OrLater() {
		t.Fatalf("the served document is not OpenAPI 3.1: %v", err)
	}
	// What linters (redocly) ask of a published document: a licence, and
	// a description for every tag an operation has.
	if doc.Info.License == nil || doc.Info.License.Name != "MIT" {
		t.Errorf("info.license = %+v, want MIT as in LICENSE", doc.Info.License)
	}
	described := map[string]bool{}
	for _, tag := range doc.Tags {
		described[tag.Name] = tag.Description != ""
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for _, tag := range op.Tags {
				if !described[tag] {
					t.Errorf("%s %s has the tag %q, which the document does not describe", method, path, tag)
				}
			}
		}
	}
	key := s.key("ops", false)
	hook := s.createWebhook(key, "https://example.com/hook", "suppression.added")
	ids := s.add(key, "one@example.com", "two@example.com", "three@example.com")
	event := s.events(key, hook.ID)[0].ID
	wh := "/webhooks/" + hook.ID
	calls := []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/suppressions/batch/add", `{"emails":["four@example.com"]}`, 201},
		{"POST", "/suppressions/batch/remove", `{"emails":["four@example.com"]}`, 200},
		{"POST", "/suppressions/batch/remove", `{"ids":["` + ids[2] + `"]}`, 200},
		{"POST", "/suppressions", `{"email":"five@example.com"}`, 201},
		{"POST", "/suppressions", `{"email":"seven@example.com","note":"asked on #5","expires_at":"2999-01-01T00:00:00Z"}`, 201},
		{"POST", "/suppressions/batch/check", `{"emails":["one@example.com","nobody@example.com"]}`, 200},
		{"GET", "/suppressions?q=%40example.com&created_after=2020-01-01T00:00:00Z&created_before=2999-01-01T00:00:00Z", "", 200},
		{"GET", "/suppressions?limit=1&origin=manual", "", 200},
		{"GET", "/suppressions?after=" + ids[0], "", 200},
		{"GET", "/suppressions/" + ids[0], "", 200},
		{"GET", "/suppressions/two%40example.com", "", 200},
		{"DELETE", "/suppressions/two@example.com", "", 200},
		{"GET", "/livez", "", 200},
		{"GET", "/readyz", "", 200},
		{"GET", "/healthz", "", 200},
		{"GET", "/suppressions/" + ids[1], "", 404},
		{"POST", "/suppressions/batch/add", `{"emails":[]}`, 422},
		{"POST", "/suppressions/batch/add", `{"entries":[{"email":"six@example.com","origin":"bounce","source_id":"evt_1"}]}`, 201},
		{"POST", "/suppressions/batch/add", `{"entries":[{"email":"six@example.com","note":"bounced twice","expires_at":"2999-01-01T00:00:00Z"}]}`, 201},
		{"GET", "/audit?limit=2&type=suppression.added", "", 200},
		{"GET", "/suppressions/export", "", 200},
		{"GET", "/suppressions/domains", "", 200},
		{"GET", "/suppressions/export?format=ndjson&origin=manual", "", 200},
		{"GET", "/suppressions/export?q=one*", "", 200},
		{"GET", "/audit?email=two%40example.com", "", 200},
		{"GET", "/suppressions/two@example.com/audit", "", 200},
		{"GET", "/suppressions/" + ids[0] + "/audit", "", 200},
		{"POST", "/webhooks", `{"endpoint":"https://example.org/in","events":["suppression.removed","email.sent"]}`, 201},
		{"GET", "/webhooks?limit=5", "", 200},
		{"GET", wh, "", 200},
		{"PATCH", wh, `{"events":["suppression.added","suppression.removed"]}`, 200},
		{"GET", wh + "/events?limit=2", "", 200},
		{"GET", wh + "/events/" + event, "", 200},
		{"GET", wh + "/events/" + event + "/attempts", "", 200},
		{"POST", wh + "/events/" + event + "/replay", "", 200},
		{"POST", wh + "/signing-secret/rotate", "", 200},
		{"DELETE", wh, "", 200},
		{"PATCH", "/team", `{"protected":["support@acme.test","@acme.test"],"complaint_removal":"confirm"}`, 200},
		{"GET", "/team", "", 200},
		{"POST", "/suppressions/erase", `{"emails":["two@example.com","never@example.com"]}`, 200},
		{"POST", "/agents", `{"name":"Jane Doe","public_key":"` + agentKey(t) + `"}`, 201},
		{"GET", "/agents", "", 200},
		{"DELETE", "/agents/Jane%20Doe", "", 200},
	}
	seen := map[string]bool{}
	calls = append(calls, intakeCalls(t, s, key)...)
	for _, c := range calls {
		var body []byte
		ct := ""
		if c.body != "" {
			body, ct = []byte(c.body), "application/json"
		}
		got := s.do(c.method, c.path, key, ct, body)
		if got.status != c.status {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, got.status, c.status, got.body)
		}
		req, _ := http.NewRequest(c.method, c.path, nil)
		if route, _, err := openAPIRouter(t).FindRoute(req); err == nil {
			seen[route.Method+" "+route.Path] = true
		}
	}
	// One-click unsubscribe takes a form, not JSON, and no key.
	seen["GET /team/unsubscribe-key"] = true
	team, secret := s.unsubscribeKey(key)
	tok := api.MintOneClick(team, secret, "oc@example.com", time.Now())
	if r := s.get("/u/"+tok, ""); r.status != http.StatusOK {
		t.Errorf("GET /u/{token}: %d", r.status)
	}
	if r := s.oneClick(tok, false); r.status != http.StatusOK {
		t.Errorf("POST /u/{token}: %d", r.status)
	}
	seen["GET /u/{token}"], seen["POST /u/{token}"] = true, true
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !seen[method+" "+path] && path != "/openapi.json" {
				t.Errorf("no accepted request checks %s %s", method, path)
			}
		}
	}
}

// An NDJSON export is text to the validator, as CSV is.
func init() {
	openapi3filter.RegisterBodyDecoder("application/x-ndjson", openapi3filter.PlainBodyDecoder)
}
