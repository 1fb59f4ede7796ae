package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile("^#{1,6} +(.+?) *#*$")
)

// anchors are the fragment names GitHub gives a page's headings: lower
// case, letters, digits, - and _ kept, spaces as -, punctuation dropped,
// and -1, -2 … after a name already taken.
func anchors(text string) map[string]bool {
	found := map[string]bool{}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		m := heading.FindStringSubmatch(line)
		if fence || m == nil {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(m[1]) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		name := b.String()
		for i := 1; found[name]; i++ {
			name = b.String() + "-" + strconv.Itoa(i)
		}
		found[name] = true
	}
	return found
}

// withoutCode blanks fenced blocks and inline code, where [x](y) is text.
func withoutCode(text string) string {
	lines := strings.Split(text, "\n")
	fence := false
	for i, line := range lines {
		if strings.HasPrefix(line, "```") {
			fence = !fence
			lines[i] = ""
			continue
		}
		if fence {
			lines[i] = ""
		}
	}
	return inlineCode.ReplaceAllString(strings.Join(lines, "\n"), "``")
}

// TestRelativeLinksResolve: every relative link of the README and the
// manual names a file or directory of the repository, and its #fragment a
// heading of the page it names.
func TestRelativeLinksResolve(t *testing.T) {
	checked := 0
	for _, page := range pages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(withoutCode(string(b)), "\n") {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`).MatchString(target) {
					continue // https:, mailto:
				}
				checked++
				file, frag, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
					if _, err := os.Stat(path); err != nil {
						t.Errorf("%s:%d: %s: no such file", page, i+1, target)
						continue
					}
				}
				if frag == "" {
					continue
				}
				text, err := os.ReadFile(path)
				if err != nil || !anchors(string(text))[frag] {
					t.Errorf("%s:%d: %s: %s has no heading #%s", page, i+1, target, path, frag)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d relative links; the finder has lost them", checked)
	}
	t.Logf("%d relative links resolve", checked)
}

// TestReadmeIsAFirstPage: the README stays a first page (at most 250
// lines) with the two commands in their block, every page of the manual is
// linked from the README or the manual's contents, and CI runs the
// README's test command.
func TestReadmeIsAFirstPage(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 250 {
		t.Errorf("the README is %d lines; a first page is at most 250 (move the rest to docs/)", n)
	}
	_, block, _ := strings.Cut(readme, "## The two commands\n\n```sh\n")
	block, _, _ = strings.Cut(block, "```")
	var test string
	for _, line := range strings.Split(block, "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		if strings.HasPrefix(cmd, "go test") {
			test = strings.TrimSpace(cmd)
		}
	}
	if !strings.Contains(block, "go run .") || test == "" {
		t.Fatalf("the README's two commands (go run . and go test) are not in its block under \"## The two commands\": %q", block)
	}
	ci, err := os.ReadFile("../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	// CI runs it with -json, to summarise the skips.
	if want := strings.Replace(test, "go test", "go test -json", 1); !strings.Contains(string(ci), "\n"+want+" ") {
		t.Errorf(".ci/run does not run the README's test command %q (as %q)", test, want)
	}
	index, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob("*.md")
	for _, p := range pages {
		if p != "README.md" && !strings.Contains(readme, "(docs/"+p) && !strings.Contains(string(index), "("+p) {
			t.Errorf("docs/%s is linked from neither the README nor docs/README.md", p)
		}
	}
}
