package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/shushlist/shush/config"
)

// shush runs Main, as the binary does, on the service svc names (through
// its variables), with stdin in; stdout and stderr are buffers, not
// terminals.
func shush(t *testing.T, svc *testService, in string, args ...string) (int, string, string) {
	t.Helper()
	if svc != nil {
		t.Setenv(config.EnvBaseURL, svc.URL)
		t.Setenv(config.EnvAPIKey, svc.Key)
	}
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, IO{In: strings.NewReader(in), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

// errorOf reads the error document Main wrote to stderr.
func errorOf(t *testing.T, stderr string) errorJSON {
	t.Helper()
	var doc errorJSON
	if err := json.Unmarshal([]byte(stderr), &doc); err != nil {
		t.Fatalf("stderr is not the JSON error document: %v\n%s", err, stderr)
	}
	return doc
}

func TestJQFiltersTheOutput(t *testing.T) {
	svc := newTestService(t)
	added := svc.add(t, "a@example.com", "b@example.com", "c@example.com")

	code, out, errOut := shush(t, svc, "", "suppressions", "list", "--jq", ".data[] | [.email, .id] | @tsv")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "c@example.com\t" + added[2].ID + "\nb@example.com\t" + added[1].ID + "\na@example.com\t" + added[0].ID + "\n"
	if out != want {
		t.Errorf("--jq @tsv printed %q, want %q", out, want)
	}

	// Numbers stay numbers; objects print as indented JSON.
	code, out, _ = shush(t, svc, "", "suppressions", "list", "--jq=.data | length")
	if code != ExitOK || out != "3\n" {
		t.Errorf("--jq length: exit %d, %q", code, out)
	}
	code, out, _ = shush(t, svc, "", "suppressions", "get", "b@example.com", "--jq", "{email, origin}")
	if code != ExitOK || out != "{\n  \"email\": \"b@example.com\",\n  \"origin\": \"manual\"\n}\n" {
		t.Errorf("--jq object: exit %d, %q", code, out)
	}
}

func TestJQMistakesAreUsageErrors(t *testing.T) {
	svc := newTestService(t)
	svc.add(t, "a@example.com")
	for _, c := range []struct{ expr, says string }{
		{".data[", "--jq: "},
		{"nosuchfunction(1)", "--jq: "},
		{".data | error(\"boom\")", "--jq: "},
	} {
		code, out, errOut := shush(t, svc, "", "suppressions", "list", "--jq", c.expr)
		if code == ExitOK || out != "" {
			t.Errorf("--jq %q: exit %d, stdout %q", c.expr, code, out)
			continue
		}
		doc := errorOf(t, errOut)
		if !strings.HasPrefix(doc.Error.Message, c.says) || doc.Error.Status != nil {
			t.Errorf("--jq %q: %+v", c.expr, doc.Error)
		}
	}
	code, _, errOut := shush(t, svc, "", "suppressions", "list", "--jq", ".data[")
	if code != ExitUsage || errorOf(t, errOut).Error.Name != "usage_error" {
		t.Errorf("a --jq that does not parse: exit %d %s", code, errOut)
	}
}

func TestErrorsAreOneDocumentWithTheirExitStatus(t *testing.T) {
	svc := newTestService(t)
	cases := []struct {
		name   string
		env    map[string]string
		args   []string
		code   int
		errNm  string
		status int // 0: null
		says   string
	}{
		{"not listed", nil, []string{"suppressions", "get", "nobody@example.com"}, ExitNotListed, "not_found", 404, "nobody@example.com is not on the list"},
		{"bad key", map[string]string{config.EnvAPIKey: "shush_0000000000000000_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, []string{"suppressions", "list"}, ExitRefused, "invalid_api_key", 403, "API key is invalid or revoked"},
		{"bad flag value", nil, []string{"suppressions", "list", "--limit", "many"}, ExitUsage, "usage_error", 0, "--limit"},
		{"bad limit", nil, []string{"suppressions", "list", "--limit", "0"}, ExitUsage, "usage_error", 0, "--limit must be between 1 and 100, not 0"},
		{"unknown flag", nil, []string{"suppressions", "list", "--colour"}, ExitUsage, "usage_error", 0, "--colour"},
		{"bad argument", nil, []string{"suppressions", "add", "bob@"}, ExitUsage, "usage_error", 0, `"bob@" is not a valid email address`},
		{"extra argument", nil, []string{"suppressions", "list", "extra"}, ExitUsage, "usage_error", 0, `takes no arguments, got "extra"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(config.EnvBaseURL, svc.URL)
			t.Setenv(config.EnvAPIKey, svc.Key)
			for k, v := range c.env {
				t.Setenv(k, v)
			}
			code, out, errOut := shush(t, nil, "", c.args...)
			if code != c.code || out != "" {
				t.Errorf("exit %d, stdout %q; want exit %d and nothing", code, out, c.code)
			}
			doc := errorOf(t, errOut)
			if c.errNm != "" && doc.Error.Name != c.errNm {
				t.Errorf("name %q, want %q (%s)", doc.Error.Name, c.errNm, doc.Error.Message)
			}
			switch {
			case c.status == 0 && doc.Error.Status != nil:
				t.Errorf("status %d, want null", *doc.Error.Status)
			case c.status != 0 && (doc.Error.Status == nil || *doc.Error.Status != c.status):
				t.Errorf("status %s, want %d", errOut, c.status)
			}
			if !strings.Contains(doc.Error.Message, c.says) || strings.Contains(errOut, svc.Key) {
				t.Errorf("message %q; want it to say %q, without the key", doc.Error.Message, c.says)
			}
			if strings.Count(strings.TrimSpace(errOut), "\n{") > 0 {
				t.Errorf("more than one document on stderr:\n%s", errOut)
			}
		})
	}
}

func TestUnknownSubcommandSuggestsTheMeantOne(t *testing.T) {
	isolate(t)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"suppressions", "delet", "x@example.com"}, `unknown command "delet" for shush suppressions; did you mean remove? (see shush suppressions --help)`},
		{[]string{"suppressions", "lst"}, "did you mean get or list?"},
		{[]string{"webhooks", "replya"}, "did you mean replay?"},
		{[]string{"runs", "zzz"}, `unknown command "zzz" for shush runs (see shush runs --help)`},
	} {
		code, out, errOut := shush(t, nil, "", c.args...)
		if code != ExitUsage || out != "" {
			t.Errorf("%v: exit %d, stdout %q", c.args, code, out)
		}
		if msg := errorOf(t, errOut).Error.Message; !strings.Contains(msg, c.says) {
			t.Errorf("%v: %q; want it to say %q", c.args, msg, c.says)
		}
	}
}
