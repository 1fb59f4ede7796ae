package server_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
)

// snippet returns the text of the first fenced block of lang in the
// document.
func snippet(t *testing.T, doc, lang string) string {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\n```" + lang + "\n(.*?)\n```\n").FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("%s has no %s block", doc, lang)
	}
	return m[1]
}

// TestOneClickSnippets: the Go and JavaScript snippets of
// docs/one-click.md, as they stand, mint links the service accepts: each
// link's POST lists its address. The JavaScript one runs when node is
// installed.
func TestOneClickSnippets(t *testing.T) {
	s := startService(t, openSQLite(t), server.Options{})
	key := s.key("acme", false)
	r := s.get("/team/unsubscribe-key", key)
	var k api.UnsubscribeKey
	r.decode(t, &k)
	doc := filepath.Join("..", "docs", "one-click.md")

	mint := map[string]func(t *testing.T, email string) string{
		"go": func(t *testing.T, email string) string {
			dir := t.TempDir()
			src := strings.Replace(snippet(t, doc, "go"), "package unsubscribe", "package main", 1)
			src = strings.Replace(src, "import (", "import (\n\t\"fmt\"\n\t\"os\"", 1)
			src += "\n\nfunc main() {\n\tlink, err := Link(os.Args[1], os.Args[2], os.Args[3], time.Now())\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\tfmt.Println(link)\n}\n"
			write(t, filepath.Join(dir, "main.go"), src)
			write(t, filepath.Join(dir, "go.mod"), "module snippet\n\ngo 1.21\n")
			cmd := exec.Command("go", "run", ".", s.url, k.Key, email)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go run the Go snippet: %v", err)
			}
			return strings.TrimSpace(string(out))
		},
		"js": func(t *testing.T, email string) string {
			node, err := exec.LookPath("node")
			if err != nil {
				t.Skip("node is not installed: the JavaScript snippet is not run")
			}
			file := filepath.Join(t.TempDir(), "link.js")
			write(t, file, snippet(t, doc, "js")+"\nconsole.log(unsubscribeLink(process.argv[2], process.argv[3], process.argv[4]));\n")
			out, err := exec.Command(node, file, s.url, k.Key, email).Output()
			if err != nil {
				t.Fatalf("node runs the JavaScript snippet: %v", err)
			}
			return strings.TrimSpace(string(out))
		},
	}
	for lang, email := range map[string]string{"go": "Gopher@Example.com", "js": "node.user@bücher.example"} {
		t.Run(lang, func(t *testing.T) {
			link := mint[lang](t, email)
			if !strings.HasPrefix(link, s.url+"/u/") {
				t.Fatalf("the %s snippet's link does not start with %s/u/", lang, s.url)
			}
			token := strings.TrimPrefix(link, s.url+"/u/")
			if got := api.MintOneClick("acme", mustSecret(t, k.Key), email, timeOf(t, token)); got != token {
				t.Errorf("the %s snippet mints another token than shush for the same address and day", lang)
			}
			wantPage(t, lang+" snippet's link", s.oneClick(token, false))
			norm, _ := api.NormalizeEmail(email)
			if s.lookup(key, norm) == "" {
				t.Errorf("the %s snippet's link did not list %s", lang, norm)
			}
			// Altered by one character, it is refused.
			if r := s.oneClick(token[:len(token)-1]+flipChar(token[len(token)-1]), false); r.status != http.StatusNotFound {
				t.Errorf("an altered %s token: %d, want 404", lang, r.status)
			}
		})
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustSecret(t *testing.T, key string) []byte {
	t.Helper()
	_, secret, err := api.ParseUnsubscribeKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return secret
}

// timeOf is the issue day a token carries.
func timeOf(t *testing.T, token string) time.Time {
	t.Helper()
	tok, err := api.ParseOneClick(token)
	if err != nil {
		t.Fatalf("the snippet's token does not parse: %v", err)
	}
	return tok.Issued
}

func flipChar(c byte) string {
	if c == 'A' {
		return "B"
	}
	return "A"
}
