package docs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/cli"
)

// pages are the documents whose commands and links are checked: the
// README and every page of the manual.
func pages(t *testing.T) []string {
	t.Helper()
	found := []string{"../README.md"}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			found = append(found, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// command is what a command's --help says of it.
type command struct {
	path     string          // "shush suppressions list"
	children map[string]bool // names, without aliases
	aliases  []string        // the command's own aliases
	flags    map[string]bool // "--json", "-q", local and inherited
	takesArg bool            // its usage line names an argument
}

// tree reads the real command tree through the binary's own entry point,
// one --help at a time, as a user would.
type tree struct {
	t    *testing.T
	seen map[string]*command
}

var (
	flagLine    = regexp.MustCompile(`^\s+(?:-([A-Za-z0-9]), )?--([A-Za-z0-9][\w-]*)`)
	commandLine = regexp.MustCompile(`^\s+(\S+)\s`)
)

func (tr *tree) get(path []string) *command {
	key := strings.Join(path, " ")
	if c, ok := tr.seen[key]; ok {
		return c
	}
	var out, errb bytes.Buffer
	args := append(slices.Clone(path[1:]), "--help")
	if code := cli.Main(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}); code != 0 {
		tr.t.Fatalf("%s --help: exit %d: %s", key, code, errb.String())
	}
	c := &command{path: key, children: map[string]bool{}, flags: map[string]bool{}}
	section := ""
	for _, line := range strings.Split(out.String(), "\n") {
		if line != "" && !strings.HasPrefix(line, " ") {
			section = line
			continue
		}
		switch section {
		case "Usage:":
			use := strings.Fields(strings.TrimSpace(line))
			if len(use) > len(path) && !strings.HasPrefix(use[len(path)], "[") {
				c.takesArg = true
			}
		case "Aliases:":
			for i, a := range strings.Split(strings.TrimSpace(line), ",") {
				if a = strings.TrimSpace(a); i > 0 && a != "" {
					c.aliases = append(c.aliases, a)
				}
			}
		case "Available Commands:":
			if m := commandLine.FindStringSubmatch(line); m != nil {
				c.children[m[1]] = true
			}
		case "Flags:", "Global Flags:":
			if m := flagLine.FindStringSubmatch(line); m != nil {
				c.flags["--"+m[2]] = true
				if m[1] != "" {
					c.flags["-"+m[1]] = true
				}
			}
		}
	}
	tr.seen[key] = c
	return c
}

// child resolves name (or one of its aliases) below c; "" when none.
func (tr *tree) child(c *command, path []string, name string) string {
	if c.children[name] {
		return name
	}
	for ch := range c.children {
		if slices.Contains(tr.get(append(slices.Clone(path), ch)).aliases, name) {
			return ch
		}
	}
	return ""
}

// words splits a shell line into words and operators (|, ;, &&, &, $( and
// its closing parenthesis), honouring quotes and dropping a # comment.
func words(line string) []string {
	var out []string
	var cur strings.Builder
	inWord, open := false, 0
	flush := func() {
		if inWord {
			out = append(out, cur.String())
		}
		cur.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '\'' || ch == '"':
			end := strings.IndexByte(line[i+1:], ch)
			if end < 0 {
				end = len(line) - i - 1
			}
			cur.WriteString(line[i+1 : i+1+end])
			inWord = true
			i += end + 1
		case ch == ' ' || ch == '\t':
			flush()
		case ch == '#' && !inWord:
			flush()
			return out
		case ch == '|' || ch == ';' || ch == '&':
			// a|b inside a word is notation for alternatives
			if ch == '|' && inWord && i+1 < len(line) && line[i+1] != ' ' {
				cur.WriteByte(ch)
				continue
			}
			flush()
			if ch == '&' && i+1 < len(line) && line[i+1] == '&' {
				i++
			}
			out = append(out, string(ch))
		case ch == '$' && i+1 < len(line) && line[i+1] == '(':
			flush()
			out = append(out, ";")
			open++
			i++
		case ch == ')' && open > 0:
			flush()
			out = append(out, ";")
			open--
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	flush()
	return out
}

var assignment = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)

// shushWords returns the words after the program of a shush invocation
// (shush, ./shush or go run .), and whether the words are one.
func shushWords(ws []string) ([]string, bool) {
	for len(ws) > 0 && assignment.MatchString(ws[0]) {
		ws = ws[1:]
	}
	switch {
	case len(ws) > 0 && (ws[0] == "shush" || ws[0] == "./shush"):
		return ws[1:], true
	case len(ws) > 2 && ws[0] == "go" && ws[1] == "run" && ws[2] == ".":
		return ws[3:], true
	}
	return nil, false
}

// trim takes the notation of a usage line off a word: [--x], (--y, …
func trim(w string) string {
	return strings.Trim(w, "[]()…,.:")
}

// check resolves one invocation's words against the tree and returns what
// does not exist. Words joined by | are alternatives; after the path,
// every word starting with - must be a flag of the command reached. rest
// are the pipelines after it: one that starts with a flag or with a
// sibling command goes on the same usage line (notation), any other is a
// program the output is piped to.
func (tr *tree) check(ws []string, rest [][]string) []string {
	var problems []string
	var walk func(path []string, ws []string)
	walk = func(path []string, ws []string) {
		c := tr.get(path)
		i := 0
		for ; i < len(ws); i++ {
			w := trim(ws[i])
			if w == "" || strings.HasPrefix(w, "-") || len(c.children) == 0 {
				break
			}
			alts := strings.Split(w, "|")
			var resolved []string
			for _, a := range alts {
				if ch := tr.child(c, path, a); ch != "" {
					resolved = append(resolved, ch)
				}
			}
			switch {
			case len(resolved) == len(alts) && len(alts) > 1:
				for _, ch := range resolved {
					walk(append(slices.Clone(path), ch), ws[i+1:])
				}
				return
			case len(resolved) == 1 && len(alts) == 1:
				path = append(path, resolved[0])
				c = tr.get(path)
				continue
			case c.takesArg:
			default:
				problems = append(problems, fmt.Sprintf("%s has no command %q", c.path, w))
				return
			}
			break
		}
		for _, w := range ws[i:] {
			w = trim(w)
			if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
				continue
			}
			name, _, _ := strings.Cut(w, "=")
			if prefix, ok := strings.CutSuffix(name, "*"); ok {
				if !slices.ContainsFunc(slices.Collect(mapKeys(c.flags)), func(f string) bool { return strings.HasPrefix(f, prefix) }) {
					problems = append(problems, fmt.Sprintf("%s has no flag %s", c.path, name))
				}
				continue
			}
			if !c.flags[name] {
				problems = append(problems, fmt.Sprintf("%s has no flag %s", c.path, name))
			}
		}
		for _, more := range rest {
			if len(more) == 0 {
				continue
			}
			first := trim(more[0])
			parent := path[:len(path)-1]
			switch {
			case strings.HasPrefix(first, "-"):
				problems = append(problems, tr.check(append(path[1:], more...), nil)...)
			case len(parent) > 0 && tr.child(tr.get(parent), parent, first) != "":
				problems = append(problems, tr.check(append(slices.Clone(parent[1:]), more...), nil)...)
			default:
				return // piped to another program
			}
		}
	}
	walk([]string{"shush"}, ws)
	return problems
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// invocation is one shush command line of a page.
type invocation struct {
	where string // file:line
	words []string
	rest  [][]string
}

var inlineCode = regexp.MustCompile("`([^`]+)`")

// invocations finds every shush command line of a page: in sh code blocks
// (a line indented under one, starting with [ or -, goes on with it; a
// line ending in \ goes on with the next), and in inline code that starts
// with shush followed by a command or a flag.
func invocations(name, text string) []invocation {
	var found []invocation
	add := func(where string, ws []string) {
		// split at ; and &&, then each command at its pipes
		var cmds [][]string
		cur := []string{}
		for _, w := range ws {
			if w == ";" || w == "&" {
				cmds = append(cmds, cur)
				cur = []string{}
				continue
			}
			cur = append(cur, w)
		}
		cmds = append(cmds, cur)
		for _, cmd := range cmds {
			var pipes [][]string
			p := []string{}
			for _, w := range cmd {
				if w == "|" {
					pipes = append(pipes, p)
					p = []string{}
					continue
				}
				p = append(p, w)
			}
			pipes = append(pipes, p)
			for i, p := range pipes {
				if sw, ok := shushWords(p); ok {
					found = append(found, invocation{where, sw, pipes[i+1:]})
				}
			}
		}
	}
	lines := strings.Split(text, "\n")
	fence := ""
	var prose strings.Builder
	proseStart := map[int]int{} // offset in prose → line number
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if strings.HasPrefix(line, "```") {
			if fence == "" {
				fence = strings.TrimPrefix(line, "```")
				if fence == "" {
					fence = "plain"
				}
			} else {
				fence = ""
			}
			continue
		}
		if fence == "" {
			proseStart[prose.Len()] = i + 1
			prose.WriteString(line + "\n")
			continue
		}
		if fence != "sh" {
			continue
		}
		at := i + 1
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + lines[i]
		}
		for i+1 < len(lines) && regexp.MustCompile(`^\s+[\[-]`).MatchString(lines[i+1]) {
			i++
			line += " " + lines[i]
		}
		add(fmt.Sprintf("%s:%d", name, at), words(line))
	}
	p := prose.String()
	for _, m := range inlineCode.FindAllStringSubmatchIndex(p, -1) {
		code := strings.Join(strings.Fields(p[m[2]:m[3]]), " ")
		if !regexp.MustCompile(`^(?:[A-Z_]+=\S+ )*(?:shush|go run \.)(?: [a-z-]|$)`).MatchString(code) {
			continue
		}
		line := 0
		for off, n := range proseStart {
			if off <= m[0] && n > line {
				line = n
			}
		}
		add(fmt.Sprintf("%s:%d", name, line), words(code))
	}
	return found
}

// TestDocumentedCommandsExist: every shush command line the README and
// the manual show — in sh blocks and in inline code, with shush, ./shush
// or go run . — names commands and flags the real command tree has
// (aliases count, a|b is either, --x-* a family of flags). The binary's own
// entry point answers --help for each command named.
func TestDocumentedCommandsExist(t *testing.T) {
	tr := newTree(t)
	total := 0
	for _, page := range pages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, inv := range invocations(page, string(b)) {
			total++
			for _, p := range tr.check(inv.words, inv.rest) {
				t.Errorf("%s: shush %s: %s", inv.where, strings.Join(inv.words, " "), p)
			}
		}
	}
	if total < 150 {
		t.Errorf("found %d shush command lines in the README and the manual; the finder has lost them", total)
	}
	t.Logf("%d shush command lines checked against %d commands", total, len(tr.seen))
}

// newTree reads the command tree with an empty home: no config, no list.
func newTree(t *testing.T) *tree {
	t.Helper()
	home := t.TempDir()
	for _, v := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "SHUSH_CONFIG_DIR"} {
		t.Setenv(v, filepath.Join(home, v))
	}
	for _, v := range []string{"SHUSH_BASE_URL", "SHUSH_API_KEY", "SHUSH_PROFILE", "SHUSH_DB", "RESEND_API_KEY", "RESEND_BASE_URL"} {
		t.Setenv(v, "")
	}
	return &tree{t: t, seen: map[string]*command{}}
}

// all reads every command below path and returns the flags any of them
// has.
func (tr *tree) all(path []string, flags map[string][]string) {
	c := tr.get(path)
	for f := range c.flags {
		flags[f] = append(flags[f], c.path)
	}
	for ch := range c.children {
		if ch != "help" {
			tr.all(append(slices.Clone(path), ch), flags)
		}
	}
}

// hidden reports whether some command takes flag though its help does not
// show it (a deprecated flag kept so that deployments start): given as
// --flag=true, a value no such flag's parser would take as --help.
func (tr *tree) hidden(flag string, commands []string) bool {
	for _, c := range commands {
		args := append(strings.Fields(c)[1:], flag+"=true", "--help")
		var out, errb bytes.Buffer
		if cli.Main(context.Background(), args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errb}) == 0 && strings.Contains(out.String(), "Usage:") {
			return true
		}
	}
	return false
}

var flagSpan = regexp.MustCompile(`^--[a-z][a-z0-9-]*`)

// TestDocumentedFlagsExist: every flag the README and the manual name on
// its own in inline code (`--resume`, a row of the serve flags' table,
// `--tls-cert/--tls-key`) is a flag of some command of the real tree;
// a deprecated flag its help hides counts when a command still takes it.
func TestDocumentedFlagsExist(t *testing.T) {
	tr := newTree(t)
	flags := map[string][]string{}
	tr.all([]string{"shush"}, flags)
	var commands []string
	for path := range tr.seen {
		commands = append(commands, path)
	}
	slices.Sort(commands)
	total := 0
	for _, page := range pages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range inlineCode.FindAllStringSubmatch(line, -1) {
				if !flagSpan.MatchString(m[1]) {
					continue
				}
				for _, w := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ' ' || r == '/' }) {
					name, _, _ := strings.Cut(w, "=")
					if !flagSpan.MatchString(name) || name != flagSpan.FindString(name) {
						continue
					}
					total++
					if len(flags[name]) == 0 && !tr.hidden(name, commands) {
						t.Errorf("%s:%d: `%s`: no command of shush has %s", page, i+1, m[1], name)
					}
				}
			}
		}
	}
	if total < 100 {
		t.Errorf("found %d flags in inline code; the finder has lost them", total)
	}
	t.Logf("%d flags in inline code, %d flags in the tree", total, len(flags))
}
