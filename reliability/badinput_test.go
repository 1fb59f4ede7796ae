package reliability

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var update = flag.Bool("update", false, "rewrite the bad-input table in docs/reliability.md from this run")

// Who a bad-input request claims to be.
const (
	authValid    = ""
	authNone     = "none"
	authBasic    = "basic"
	authEmpty    = "bearer-empty"
	authUnknown  = "unknown"
	authRevoked  = "revoked"
	authReadOnly = "read-only"
	authGarbage  = "garbage"
)

// badCase is one malformed request and the answer the contract gives it.
type badCase struct {
	what   string // what is wrong with it, for the table
	method string
	path   string
	auth   string
	ctype  string // "" means application/json when there is a body; "-" means none
	body   []byte
	header []string // extra header lines
	// send, when set, writes the request itself (slow or broken bodies);
	// it returns false when the client hangs up without an answer.
	send       func(conn net.Conn, head, body []byte) bool
	wantStatus int // 0: no answer expected (the client hung up)
	wantName   string
}

func b(s string) []byte { return []byte(s) }

func emailsJSON(n int, f func(i int) string) []byte {
	items := make([]string, n)
	for i := range items {
		items[i] = f(i)
	}
	out, _ := json.Marshal(map[string][]string{"emails": items})
	return out
}

func nested(depth int) []byte {
	return b(`{"emails":["new@nested.example.com"],"x":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
}

const (
	add    = "/suppressions/batch/add"
	remove = "/suppressions/batch/remove"
	one    = "/suppressions"
)

func badCases() []badCase {
	const uuid = "01a1fe15-ef7e-7c10-a222-42a32cbb09a1"
	return []badCase{
		// Authentication.
		{what: "no Authorization header", method: "POST", path: add, auth: authNone, body: b(`{"emails":["new@example.com"]}`), wantStatus: 401, wantName: "missing_api_key"},
		{what: "Basic instead of Bearer", method: "POST", path: add, auth: authBasic, body: b(`{"emails":["new@example.com"]}`), wantStatus: 401, wantName: "missing_api_key"},
		{what: "Bearer with no key", method: "POST", path: add, auth: authEmpty, body: b(`{"emails":["new@example.com"]}`), wantStatus: 401, wantName: "missing_api_key"},
		{what: "unknown key", method: "POST", path: add, auth: authUnknown, body: b(`{"emails":["new@example.com"]}`), wantStatus: 403, wantName: "invalid_api_key"},
		{what: "key that is not a shush key", method: "GET", path: one, auth: authGarbage, wantStatus: 403, wantName: "invalid_api_key"},
		{what: "revoked key", method: "POST", path: add, auth: authRevoked, body: b(`{"emails":["new@example.com"]}`), wantStatus: 403, wantName: "invalid_api_key"},
		{what: "read-only key adds", method: "POST", path: add, auth: authReadOnly, body: b(`{"emails":["new@example.com"]}`), wantStatus: 403, wantName: "restricted_api_key"},
		{what: "read-only key removes", method: "POST", path: remove, auth: authReadOnly, body: b(`{"emails":["keep-1@example.com"]}`), wantStatus: 403, wantName: "restricted_api_key"},
		{what: "read-only key adds one", method: "POST", path: one, auth: authReadOnly, body: b(`{"email":"new@example.com"}`), wantStatus: 403, wantName: "restricted_api_key"},
		{what: "read-only key deletes one", method: "DELETE", path: one + "/keep-1@example.com", auth: authReadOnly, wantStatus: 403, wantName: "restricted_api_key"},

		// Methods, paths and content types.
		{what: "GET on batch add", method: "GET", path: add, wantStatus: 405, wantName: "method_not_allowed"},
		{what: "PUT on batch add", method: "PUT", path: add, body: b(`{"emails":["new@example.com"]}`), wantStatus: 405, wantName: "method_not_allowed"},
		{what: "DELETE on batch remove", method: "DELETE", path: remove, wantStatus: 405, wantName: "method_not_allowed"},
		{what: "PATCH on the list", method: "PATCH", path: one, body: b(`{"email":"new@example.com"}`), wantStatus: 405, wantName: "method_not_allowed"},
		{what: "unknown path", method: "POST", path: "/suppressions/batch/replace", body: b(`{"emails":["new@example.com"]}`), wantStatus: 404, wantName: "not_found"},
		{what: "unknown top-level path", method: "GET", path: "/admin", wantStatus: 404, wantName: "not_found"},
		{what: "no Content-Type", method: "POST", path: add, ctype: "-", body: b(`{"emails":["new@example.com"]}`), wantStatus: 415, wantName: "validation_error"},
		{what: "Content-Type text/plain", method: "POST", path: add, ctype: "text/plain", body: b(`{"emails":["new@example.com"]}`), wantStatus: 415, wantName: "validation_error"},
		{what: "form-encoded body", method: "POST", path: add, ctype: "application/x-www-form-urlencoded", body: b(`emails=new@example.com`), wantStatus: 415, wantName: "validation_error"},
		{what: "Content-Type that does not parse", method: "POST", path: add, ctype: "application/json; charset", body: b(`{"emails":["new@example.com"]}`), wantStatus: 415, wantName: "validation_error"},
		{what: "gzip body the service was not told how to read", method: "POST", path: add, header: []string{"Content-Encoding: gzip"},
			body: b("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\xaaV"), wantStatus: 400, wantName: "validation_error"},

		// Bodies that are not JSON objects.
		{what: "empty body", method: "POST", path: add, body: b(``), ctype: "application/json", wantStatus: 400, wantName: "validation_error"},
		{what: "white space only", method: "POST", path: add, body: b("  \n"), wantStatus: 400, wantName: "validation_error"},
		{what: "not JSON", method: "POST", path: add, body: b(`emails: new@example.com`), wantStatus: 400, wantName: "validation_error"},
		{what: "truncated JSON", method: "POST", path: add, body: b(`{"emails":["new@example.com"`), wantStatus: 400, wantName: "validation_error"},
		{what: "array instead of object", method: "POST", path: add, body: b(`["new@example.com"]`), wantStatus: 400, wantName: "validation_error"},
		{what: "string instead of object", method: "POST", path: add, body: b(`"new@example.com"`), wantStatus: 400, wantName: "validation_error"},
		{what: "null body", method: "POST", path: add, body: b(`null`), wantStatus: 400, wantName: "validation_error"},
		{what: "number body", method: "POST", path: add, body: b(`42`), wantStatus: 400, wantName: "validation_error"},
		{what: "trailing garbage after the object", method: "POST", path: add, body: b(`{"emails":["new@example.com"]} x`), wantStatus: 400, wantName: "validation_error"},
		{what: "two objects", method: "POST", path: add, body: b(`{"emails":["new@example.com"]}{"emails":["new2@example.com"]}`), wantStatus: 400, wantName: "validation_error"},
		{what: "invalid UTF-8 in the body", method: "POST", path: add, body: b("{\"emails\":[\"n\xffw@example.com\"]}"), wantStatus: 400, wantName: "validation_error"},
		{what: "byte-order mark before the JSON", method: "POST", path: add, body: b("\ufeff{\"emails\":[\"new@example.com\"]}"), wantStatus: 400, wantName: "validation_error"},
		{what: "JSON nested 100,000 deep", method: "POST", path: add, body: nested(100000), wantStatus: 400, wantName: "validation_error"},
		{what: "JSON nested 10,001 deep", method: "POST", path: add, body: nested(10001), wantStatus: 400, wantName: "validation_error"},
		{what: "body over 1 MiB", method: "POST", path: add, body: emailsJSON(60000, func(i int) string { return fmt.Sprintf("huge-%d@example.com", i) }), wantStatus: 413, wantName: "validation_error"},
		{what: "body over 1 MiB, chunked", method: "POST", path: add, body: emailsJSON(60000, func(i int) string { return fmt.Sprintf("huge-%d@example.com", i) }),
			send: sendChunked, wantStatus: 413, wantName: "validation_error"},
		{what: "Content-Length of 10 GB announced", method: "POST", path: add, ctype: "application/json", send: sendHugeLength, wantStatus: 413, wantName: "validation_error"},

		// Fields of batch add.
		{what: "`emails` missing", method: "POST", path: add, body: b(`{}`), wantStatus: 422, wantName: "missing_required_field"},
		{what: "`emails` misspelled", method: "POST", path: add, body: b(`{"Emails":["new@example.com"]}`), wantStatus: 422, wantName: "missing_required_field"},
		{what: "`emails` null", method: "POST", path: add, body: b(`{"emails":null}`), wantStatus: 422, wantName: "validation_error"},
		{what: "`emails` empty", method: "POST", path: add, body: b(`{"emails":[]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "101 addresses", method: "POST", path: add, body: emailsJSON(101, func(i int) string { return fmt.Sprintf("n%d@example.com", i) }), wantStatus: 422, wantName: "validation_error"},
		{what: "`emails` a string", method: "POST", path: add, body: b(`{"emails":"new@example.com"}`), wantStatus: 400, wantName: "validation_error"},
		{what: "`emails` an object", method: "POST", path: add, body: b(`{"emails":{"0":"new@example.com"}}`), wantStatus: 400, wantName: "validation_error"},
		{what: "an address that is a number", method: "POST", path: add, body: b(`{"emails":["new@example.com",42]}`), wantStatus: 400, wantName: "validation_error"},
		{what: "an address that is null", method: "POST", path: add, body: b(`{"emails":["new@example.com",null]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "an address that is an object", method: "POST", path: add, body: b(`{"emails":[{"email":"new@example.com"}]}`), wantStatus: 400, wantName: "validation_error"},
		{what: "an address that is a boolean", method: "POST", path: add, body: b(`{"emails":[true]}`), wantStatus: 400, wantName: "validation_error"},
		{what: "`emails` given twice", method: "POST", path: add, body: b(`{"emails":["new@example.com"],"emails":["new2@example.com"]}`), wantStatus: 400, wantName: "validation_error"},
		{what: "no domain", method: "POST", path: add, body: b(`{"emails":["bob@"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "no local part", method: "POST", path: add, body: b(`{"emails":["@example"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "no @", method: "POST", path: add, body: b(`{"emails":["bob.example.com"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "domain without a dot", method: "POST", path: add, body: b(`{"emails":["bob@localhost"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "space in the local part", method: "POST", path: add, body: b(`{"emails":["bo b@example.com"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "display name", method: "POST", path: add, body: b(`{"emails":["Bob <bob@example.com>"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "local part of 65 characters", method: "POST", path: add, body: b(`{"emails":["` + strings.Repeat("a", 65) + `@example.com"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "address of 258 characters", method: "POST", path: add, body: b(`{"emails":["abcdefghij@` + strings.Repeat("b", 60) + "." + strings.Repeat("c", 60) + "." + strings.Repeat("d", 60) + "." + strings.Repeat("e", 60) + `.com"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "label starting with a hyphen", method: "POST", path: add, body: b(`{"emails":["bob@-example.com"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "empty domain label", method: "POST", path: add, body: b(`{"emails":["bob@example..com"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "NUL character in an address", method: "POST", path: add, body: b(`{"emails":["bo\u0000b@example.com"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "lone surrogate escape in an address", method: "POST", path: add, body: b(`{"emails":["bo\ud800b@example.com"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "one bad address among good ones", method: "POST", path: add, body: b(`{"emails":["new1@example.com","new2@example.com","bob@","new3@example.com"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "a 100 KB address", method: "POST", path: add, body: b(`{"emails":["` + strings.Repeat("x", 100000) + `@example.com"]}`), wantStatus: 422, wantName: "validation_error"},

		// Fields of batch remove.
		{what: "neither `emails` nor `ids`", method: "POST", path: remove, body: b(`{}`), wantStatus: 422, wantName: "missing_required_field"},
		{what: "both `emails` and `ids`", method: "POST", path: remove, body: b(`{"emails":["keep-1@example.com"],"ids":["` + uuid + `"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "`ids` null", method: "POST", path: remove, body: b(`{"ids":null}`), wantStatus: 422, wantName: "validation_error"},
		{what: "`ids` empty", method: "POST", path: remove, body: b(`{"ids":[]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "an ID that is not a UUID", method: "POST", path: remove, body: b(`{"ids":["not-a-uuid"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "an ID that is a number", method: "POST", path: remove, body: b(`{"ids":[12345]}`), wantStatus: 400, wantName: "validation_error"},
		{what: "`ids` a string", method: "POST", path: remove, body: b(`{"ids":"` + uuid + `"}`), wantStatus: 400, wantName: "validation_error"},
		{what: "`ids` given twice", method: "POST", path: remove, body: b(`{"ids":["` + uuid + `"],"ids":["` + uuid + `"]}`), wantStatus: 400, wantName: "validation_error"},
		{what: "UUID with braces", method: "POST", path: remove, body: b(`{"ids":["{` + uuid + `}"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "`emails` null on remove", method: "POST", path: remove, body: b(`{"emails":null}`), wantStatus: 422, wantName: "validation_error"},
		{what: "a bad address among addresses to remove", method: "POST", path: remove, body: b(`{"emails":["keep-1@example.com","bob@"]}`), wantStatus: 422, wantName: "validation_error"},
		{what: "101 IDs", method: "POST", path: remove, body: func() []byte {
			ids := make([]string, 101)
			for i := range ids {
				ids[i] = fmt.Sprintf("01a1fe15-ef7e-7c10-a222-%012d", i)
			}
			out, _ := json.Marshal(map[string][]string{"ids": ids})
			return out
		}(), wantStatus: 422, wantName: "validation_error"},

		// Single add, get, delete and list.
		{what: "single add without `email`", method: "POST", path: one, body: b(`{}`), wantStatus: 422, wantName: "missing_required_field"},
		{what: "single add with `email` null", method: "POST", path: one, body: b(`{"email":null}`), wantStatus: 422, wantName: "validation_error"},
		{what: "single add with `email` an array", method: "POST", path: one, body: b(`{"email":["new@example.com"]}`), wantStatus: 400, wantName: "validation_error"},
		{what: "single add of an invalid address", method: "POST", path: one, body: b(`{"email":"bob@"}`), wantStatus: 422, wantName: "validation_error"},
		{what: "get an unknown ID", method: "GET", path: one + "/" + uuid, wantStatus: 404, wantName: "not_found"},
		{what: "get an address not on the list", method: "GET", path: one + "/nobody@example.com", wantStatus: 404, wantName: "not_found"},
		{what: "get something that is neither ID nor address", method: "GET", path: one + "/%25%00%ff", wantStatus: 422, wantName: "validation_error"},
		{what: "delete an unknown ID", method: "DELETE", path: one + "/" + uuid, wantStatus: 404, wantName: "not_found"},
		{what: "list with limit 0", method: "GET", path: one + "?limit=0", wantStatus: 422, wantName: "validation_error"},
		{what: "list with limit 101", method: "GET", path: one + "?limit=101", wantStatus: 422, wantName: "validation_error"},
		{what: "list with limit not a number", method: "GET", path: one + "?limit=ten", wantStatus: 422, wantName: "validation_error"},
		{what: "list with a cursor that is not an ID", method: "GET", path: one + "?after=bob", wantStatus: 422, wantName: "validation_error"},
		{what: "list with both after and before", method: "GET", path: one + "?after=" + uuid + "&before=" + uuid, wantStatus: 422, wantName: "validation_error"},
		{what: "list with an unknown origin", method: "GET", path: one + "?origin=spam", wantStatus: 422, wantName: "validation_error"},

		// Transport-level abuse.
		{what: "100 KB header", method: "GET", path: one, header: []string{"X-Padding: " + strings.Repeat("a", 100<<10)}, wantStatus: 431},
		{what: "body sent one byte every 20 ms", method: "POST", path: add, body: b(`{"emails":["bob@"]}`), send: sendSlowly, wantStatus: 422, wantName: "validation_error"},
		{what: "body stops half-way and the client hangs up", method: "POST", path: add, body: b(`{"emails":["new-stalled@example.com"]}`), send: sendHalfAndHangUp},
		{what: "Content-Length longer than the body, then hang-up", method: "POST", path: add, body: b(`{"emails":["new-short@example.com"]}`), header: []string{"X-Length-Plus: 100"}, send: sendHalfAndHangUp},
	}
}

// sendChunked writes the body with chunked transfer encoding.
func sendChunked(conn net.Conn, head, body []byte) bool {
	head = bytes.Replace(head, b(fmt.Sprintf("Content-Length: %d\r\n", len(body))), b("Transfer-Encoding: chunked\r\n"), 1)
	w := bufio.NewWriter(conn)
	w.Write(head)
	for len(body) > 0 {
		n := min(len(body), 32<<10)
		fmt.Fprintf(w, "%x\r\n", n)
		w.Write(body[:n])
		w.WriteString("\r\n")
		body = body[n:]
	}
	w.WriteString("0\r\n\r\n")
	if err := w.Flush(); err != nil {
		// The service may answer 413 and close before reading it all.
		return true
	}
	return true
}

// sendHugeLength announces 10 GB and sends a little over 1 MiB of it.
func sendHugeLength(conn net.Conn, head, _ []byte) bool {
	head = bytes.Replace(head, b("Content-Length: 0\r\n"), b("Content-Length: 10000000000\r\n"), 1)
	conn.Write(head)
	conn.Write(bytes.Repeat(b(" "), 1<<20+4096))
	return true
}

// sendSlowly writes the body a byte at a time.
func sendSlowly(conn net.Conn, head, body []byte) bool {
	conn.Write(head)
	for _, c := range body {
		if _, err := conn.Write([]byte{c}); err != nil {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// sendHalfAndHangUp writes half the body (or all of it, under a
// Content-Length 100 bytes longer), waits, and closes the connection
// without reading an answer.
func sendHalfAndHangUp(conn net.Conn, head, body []byte) bool {
	if bytes.Contains(head, b("X-Length-Plus: 100\r\n")) {
		head = bytes.Replace(head, b(fmt.Sprintf("Content-Length: %d\r\n", len(body))), b(fmt.Sprintf("Content-Length: %d\r\n", len(body)+100)), 1)
		conn.Write(head)
		conn.Write(body)
	} else {
		conn.Write(head)
		conn.Write(body[:len(body)/2])
	}
	time.Sleep(300 * time.Millisecond)
	conn.Close()
	return false
}

// badResult is what the service answered to one case.
type badResult struct {
	status  int
	name    string
	message string
}

// TestBadInput sends every malformed request to a real `shush serve`
// over SQLite and checks that each gets the contract's answer, that none
// gets a 5xx, and that the list never changes. The table in
// docs/reliability.md is this test's output: it fails when the table
// differs (run with -update to rewrite it).
func TestBadInput(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "shush.db")
	keys := map[string]string{
		authValid:    createKey(t, dsn, "badinput", false),
		authReadOnly: createKey(t, dsn, "badinput", true),
		authRevoked:  createKey(t, dsn, "badinput", false),
	}
	revokeKey(t, dsn, keys[authRevoked])
	p := serve(t, dsn, "--rate", "100000")
	p.waitHealthy()
	c := newClient(p.url, keys[authValid])
	if _, a := c.add(t.Context(), []string{"keep-1@example.com", "keep-2@example.com", "keep-3@example.com"}); a.err != nil || a.status != 201 {
		t.Fatalf("seed the list: %v %d %s", a.err, a.status, a.body)
	}
	snapshot := func() []string {
		var out []string
		for _, e := range c.list(t) {
			out = append(out, e.ID+" "+e.Email+" "+string(e.Origin)+" "+e.CreatedAt.String())
		}
		return out
	}
	before := snapshot()
	host := strings.TrimPrefix(p.url, "http://")

	cases := badCases()
	if len(cases) < 60 {
		t.Fatalf("only %d cases; the table promises at least 60", len(cases))
	}
	results := make([]badResult, len(cases))
	for i, bc := range cases {
		res, err := sendBad(host, bc, keys)
		if err != nil {
			t.Errorf("#%d %s: %v", i+1, bc.what, err)
			continue
		}
		results[i] = res
		if res.status >= 500 {
			t.Errorf("#%d %s: answered %d %s", i+1, bc.what, res.status, res.message)
		}
		if res.status != bc.wantStatus || (bc.wantName != "" && res.name != bc.wantName) {
			t.Errorf("#%d %s: answered %d %s (%s), want %d %s", i+1, bc.what, res.status, res.name, res.message, bc.wantStatus, bc.wantName)
		}
		if res.status != 0 && bc.wantName != "" && res.message == "" {
			t.Errorf("#%d %s: the answer has no message", i+1, bc.what)
		}
		if after := snapshot(); !slices.Equal(before, after) {
			t.Fatalf("#%d %s changed the list:\nbefore %v\nafter  %v", i+1, bc.what, before, after)
		}
	}
	if resp, err := http.Get(p.url + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the service is not healthy after the bad input: %v", err)
	} else {
		resp.Body.Close()
	}
	checkTable(t, renderTable(cases, results))
}

// sendBad writes the case's request on a fresh connection and reads the
// answer.
func sendBad(host string, bc badCase, keys map[string]string) (badResult, error) {
	conn, err := net.DialTimeout("tcp", host, 5*time.Second)
	if err != nil {
		return badResult{}, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	var h bytes.Buffer
	fmt.Fprintf(&h, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n", bc.method, bc.path, host)
	switch bc.auth {
	case authValid, authReadOnly, authRevoked:
		fmt.Fprintf(&h, "Authorization: Bearer %s\r\n", keys[bc.auth])
	case authBasic:
		h.WriteString("Authorization: Basic dXNlcjpwYXNz\r\n")
	case authEmpty:
		h.WriteString("Authorization: Bearer \r\n")
	case authUnknown:
		h.WriteString("Authorization: Bearer shush_0123456789abcdef_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n")
	case authGarbage:
		h.WriteString("Authorization: Bearer re_123456789\r\n")
	}
	switch {
	case bc.ctype == "-":
	case bc.ctype != "":
		fmt.Fprintf(&h, "Content-Type: %s\r\n", bc.ctype)
	case bc.body != nil:
		h.WriteString("Content-Type: application/json\r\n")
	}
	for _, line := range bc.header {
		h.WriteString(line + "\r\n")
	}
	fmt.Fprintf(&h, "Content-Length: %d\r\n\r\n", len(bc.body))
	if bc.send != nil {
		if !bc.send(conn, h.Bytes(), bc.body) {
			return badResult{}, nil
		}
	} else if _, err := conn.Write(append(h.Bytes(), bc.body...)); err != nil {
		// The service may answer and close before the body is read.
		_ = err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return badResult{}, fmt.Errorf("no answer: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	res := badResult{status: resp.StatusCode}
	var e struct {
		StatusCode int    `json:"statusCode"`
		Name       string `json:"name"`
		Message    string `json:"message"`
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && json.Unmarshal(body, &e) == nil {
		if e.StatusCode != resp.StatusCode {
			return res, fmt.Errorf("statusCode %d in a %d answer", e.StatusCode, resp.StatusCode)
		}
		res.name, res.message = e.Name, e.Message
	} else {
		res.message = "(not JSON) " + strings.TrimSpace(string(body))
	}
	return res, nil
}

// showRequest is a short, markdown-safe picture of the request: bytes
// that are not printable text are shown as \xNN.
func showRequest(bc badCase) string {
	s := bc.method + " " + bc.path
	if len(bc.body) > 0 {
		body := bc.body
		more := ""
		if len(body) > 60 {
			body, more = body[:40], fmt.Sprintf("… (%d bytes)", len(bc.body))
		}
		s += " " + printable(body) + more
	}
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func printable(p []byte) string {
	var w strings.Builder
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		switch {
		case r == utf8.RuneError && size <= 1, r < 0x20, r == 0x7f, r == '\ufeff':
			for _, c := range p[:max(size, 1)] {
				fmt.Fprintf(&w, "\\x%02x", c)
			}
		default:
			w.Write(p[:size])
		}
		p = p[max(size, 1):]
	}
	return w.String()
}

func cell(s string) string {
	return strings.NewReplacer("|", "\\|", "\n", " ", "\r", " ").Replace(s)
}

func renderTable(cases []badCase, results []badResult) string {
	var w strings.Builder
	w.WriteString("| # | what is wrong | request | status | name | message |\n|---|---|---|---|---|---|\n")
	for i, bc := range cases {
		r := results[i]
		status, name, msg := fmt.Sprint(r.status), r.name, r.message
		if r.status == 0 {
			status, msg = "—", "(the client hung up; nothing is answered and nothing changes)"
		}
		if len(msg) > 200 {
			msg = msg[:200] + "…"
		}
		fmt.Fprintf(&w, "| %d | %s | %s | %s | %s | %s |\n", i+1, cell(bc.what), cell(showRequest(bc)), status, cell(name), cell(msg))
	}
	return w.String()
}

const (
	tableStart = "<!-- bad-input table: generated by go test ./reliability -run TestBadInput -update -->\n"
	tableEnd   = "<!-- end of bad-input table -->\n"
)

// checkTable compares the table with docs/reliability.md, or writes it
// there under -update.
func checkTable(t *testing.T, table string) {
	t.Helper()
	path := filepath.Join("..", "docs", "reliability.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	s := string(doc)
	i, j := strings.Index(s, tableStart), strings.Index(s, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the bad-input table markers", path)
	}
	current := s[i+len(tableStart) : j]
	if current == table {
		return
	}
	if *update {
		s = s[:i+len(tableStart)] + table + s[j:]
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the bad-input table in %s", path)
		return
	}
	t.Errorf("the bad-input table in %s is out of date; run go test ./reliability -run TestBadInput -update and review the diff.\nwant:\n%s", path, table)
}
