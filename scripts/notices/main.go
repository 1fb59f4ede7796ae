// Command notices writes the third-party notices of the shush binary: the
// licence texts and NOTICE files of every module linked into it (and of
// Go itself, whose runtime and standard library are linked too), read
// from the module cache. The modules are those `go list -deps` names for
// the package given, for the target -goos and -goarch name (by default
// this machine's), so that each release archive lists what its own binary
// holds (a Windows binary links modules a Linux one does not).
//
//	go run ./scripts/notices [-version v1.2.3] [-goos OS -goarch ARCH] [PACKAGE] > THIRD_PARTY_NOTICES.txt
//
// A module without a licence file is an error (what cannot be shipped with
// its licence must not be shipped), unless readmeOnly names it: its
// authors state its licence only in its README, whose licence section is
// then shipped.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
)

// module is a module of the build graph, as go list describes it.
type module struct {
	Path    string
	Version string
	Dir     string
	Main    bool
	Replace *module
}

// legalFile matches the files a module's authors ship its terms in:
// LICENSE, LICENCE, COPYING, NOTICE, PATENTS, UNLICENSE and their
// variants (LICENSE.txt, LICENSE-SQLITE, NOTICE.md).
var legalFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|patents|unlicense)([-._].*)?$`)

// readmeOnly lists the modules whose licence is stated only in their
// README, with that licence, as checked by hand.
var readmeOnly = map[string]string{
	// "## License\n\nMIT" (README.md of v0.0.1; linked on Windows,
	// through bubbletea).
	"github.com/mattn/go-localereader": "MIT",
}

func main() {
	version := flag.String("version", "", "the release the notices are for, named in their heading")
	flag.StringVar(&target.goos, "goos", runtime.GOOS, "the target's operating system")
	flag.StringVar(&target.goarch, "goarch", runtime.GOARCH, "the target's architecture")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: go run ./scripts/notices [-version V] [-goos OS -goarch ARCH] [PACKAGE]   (writes to stdout)")
		flag.PrintDefaults()
	}
	flag.Parse()
	pkg := "."
	if flag.NArg() > 1 {
		flag.Usage()
		os.Exit(2)
	} else if flag.NArg() == 1 {
		pkg = flag.Arg(0)
	}
	if err := run(os.Stdout, pkg, *version); err != nil {
		fmt.Fprintln(os.Stderr, "notices:", err)
		os.Exit(1)
	}
}

// target is the platform whose build graph is read.
var target struct{ goos, goarch string }

func run(w io.Writer, pkg, version string) error {
	mods, err := linked(pkg)
	if err != nil {
		return err
	}
	goos, goarch := target.goos, target.goarch
	bw := bufio.NewWriter(w)
	title := "shush"
	if version != "" {
		title += " " + version
	}
	fmt.Fprintf(bw, "Third-party notices of %s (%s/%s)\n\n", title, goos, goarch)
	fmt.Fprintf(bw, "The shush binary is built with Go and the %d modules listed here. Each one's\n", len(mods))
	fmt.Fprintf(bw, "licence and notice files follow as its authors ship them.\n\n")
	fmt.Fprintf(bw, "  %-60s %s\n", "Go (runtime and standard library)", runtime.Version())
	for _, m := range mods {
		fmt.Fprintf(bw, "  %-60s %s\n", m.Path, m.Version)
	}
	goroot := goEnv("GOROOT")
	if err := section(bw, "Go "+runtime.Version(), goroot, []string{"LICENSE", "PATENTS"}); err != nil {
		return err
	}
	for _, m := range mods {
		files, err := legalFiles(m.Dir)
		if err != nil {
			return err
		}
		if len(files) == 0 {
			if err := readmeSection(bw, m); err != nil {
				return err
			}
			continue
		}
		if err := section(bw, m.Path+" "+m.Version, m.Dir, files); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// linked lists the modules (not the main one) whose packages pkg links,
// sorted by path, each with its directory in the module cache (downloaded
// when missing).
func linked(pkg string) ([]module, error) {
	out, err := goCmd("list", "-deps", "-json=Module", pkg)
	if err != nil {
		return nil, err
	}
	seen := map[string]module{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct{ Module *module }
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("read go list's answer: %w", err)
		}
		m := p.Module
		if m == nil || m.Main {
			continue // the standard library, or shush itself
		}
		if m.Replace != nil {
			m = m.Replace
		}
		seen[m.Path] = *m
	}
	mods := make([]module, 0, len(seen))
	for _, m := range seen {
		if m.Dir == "" {
			dir, err := download(m)
			if err != nil {
				return nil, err
			}
			m.Dir = dir
		}
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b module) int { return cmp.Compare(a.Path, b.Path) })
	return mods, nil
}

// download puts a module in the module cache and returns its directory.
func download(m module) (string, error) {
	out, err := goCmd("mod", "download", "-json", m.Path+"@"+m.Version)
	if err != nil {
		return "", err
	}
	var d struct{ Dir, Error string }
	if err := json.Unmarshal(out, &d); err != nil || d.Dir == "" {
		return "", fmt.Errorf("download %s@%s: %s", m.Path, m.Version, cmp.Or(d.Error, fmt.Sprint(err)))
	}
	return d.Dir, nil
}

// legalFiles lists the licence and notice files at the top of dir.
func legalFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && legalFile.MatchString(e.Name()) {
			out = append(out, e.Name())
		}
	}
	// LICENSE before NOTICE before PATENTS, as a reader expects them.
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(strings.ToUpper(a), strings.ToUpper(b)) })
	return out, nil
}

// section writes a heading for what, then each file of dir.
func section(w io.Writer, what, dir string, files []string) error {
	fmt.Fprintf(w, "\n%s\n%s\n", strings.Repeat("=", 78), what)
	for _, name := range files {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s\n%s\n\n", strings.Repeat("-", 78), name)
		b = bytes.TrimRight(bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n")), "\n")
		w.Write(b)
		fmt.Fprintln(w)
	}
	return nil
}

// readmeSection writes the licence section of the README of a module
// that readmeOnly names, which has no licence file.
func readmeSection(w io.Writer, m module) error {
	licence, ok := readmeOnly[m.Path]
	if !ok {
		return fmt.Errorf("%s %s has no licence file in %s", m.Path, m.Version, m.Dir)
	}
	b, err := os.ReadFile(filepath.Join(m.Dir, "README.md"))
	if err != nil {
		return fmt.Errorf("%s %s has no licence file, and its README cannot be read: %w", m.Path, m.Version, err)
	}
	_, text, ok := strings.Cut(string(b), "## License")
	if !ok || !strings.Contains(text, licence) {
		return fmt.Errorf("%s %s: its README no longer says %s; check its licence again", m.Path, m.Version, licence)
	}
	fmt.Fprintf(w, "\n%s\n%s %s\n%s\nREADME.md (the module has no licence file; its README says)\n\n## License%s\n",
		strings.Repeat("=", 78), m.Path, m.Version, strings.Repeat("-", 78), strings.TrimRight(text, "\n"))
	return nil
}

func goCmd(args ...string) ([]byte, error) {
	cmd := exec.Command("go", args...)
	// The graph of the release build: the target's, without cgo.
	cmd.Env = append(os.Environ(), "GOOS="+target.goos, "GOARCH="+target.goarch, "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

func goEnv(name string) string {
	out, err := goCmd("env", name)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
