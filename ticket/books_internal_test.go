package ticket

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// Every phrase of every book goes into its tree as expand spells it out:
// the same words, the same classes, however its choices are glued to
// its words ("m'{écrire|envoyer}", "should{n't| not}").
func TestBooksAddAsExpandSpells(t *testing.T) {
	added, spelled := &phraseBook{}, &phraseBook{}
	sp := spellings{}
	n := 0
	eachPhrase(t, func(c class, l string) {
		added.add(c, l, sp)
		for _, ws := range expand(l) {
			at := spelled
			for _, w := range ws {
				at = at.child(sp.of(w))
			}
			if at.class == 0 {
				at.class = c
			}
		}
		n++
	})
	if diff := sameBook(added, spelled, ""); diff != "" {
		t.Fatalf("of %d phrases, the tree differs from their spellings at %s", n, diff)
	}
	// A glued choice, on a small book: both spellings, one word each.
	b := &phraseBook{}
	b.add(cSuppress, "ne plus m'{écrire|envoyer}", spellings{})
	for _, phrase := range []string{"ne plus m'écrire", "ne plus m'envoyer"} {
		if c, k := b.at(wordsOf(nil, phrase), 0); c != cSuppress || k != 3 {
			t.Errorf("%q: class %d over %d words; want suppress over 3", phrase, c, k)
		}
	}
}

// eachPhrase calls fn with every phrase of the books' tree sections and
// its class.
func eachPhrase(t *testing.T, fn func(c class, phrase string)) {
	files, err := fs.Glob(langFiles, "lang/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no books: %v", err)
	}
	for _, f := range files {
		b, err := fs.ReadFile(langFiles, f)
		if err != nil {
			t.Fatal(err)
		}
		section := ""
		for l := range strings.Lines(string(b)) {
			switch l = strings.TrimSpace(l); {
			case l == "" || strings.HasPrefix(l, "#"):
			case strings.HasPrefix(l, "["):
				section = strings.Trim(l, "[]")
			default:
				if s, ok := sections[section]; ok {
					fn(s.class, l)
				}
			}
		}
	}
}

// sameBook is where two trees differ ("" for nowhere).
func sameBook(a, b *phraseBook, at string) string {
	if a.class != b.class {
		return fmt.Sprintf("%q: class %d, %d", at, a.class, b.class)
	}
	if (a.gap == nil) != (b.gap == nil) {
		return fmt.Sprintf("%q: a gap in one", at)
	}
	if a.gap != nil {
		if d := sameBook(a.gap, b.gap, at+" …"); d != "" {
			return d
		}
	}
	if len(a.next) != len(b.next) || len(a.accented) != len(b.accented) {
		return fmt.Sprintf("%q: %d/%d words after, %d/%d", at, len(a.next), len(a.accented), len(b.next), len(b.accented))
	}
	for w, n := range a.next {
		m, ok := b.next[w]
		if !ok {
			return fmt.Sprintf("%q: %q in one", at, w)
		}
		if d := sameBook(n, m, at+" "+w); d != "" {
			return d
		}
	}
	for w, ss := range a.accented {
		os := b.accented[w]
		if len(ss) != len(os) {
			return fmt.Sprintf("%q: %d spellings of %q, %d", at, len(ss), w, len(os))
		}
		for _, s := range ss {
			k := slices.IndexFunc(os, func(o spelled) bool { return o.spelling == s.spelling })
			if k < 0 {
				return fmt.Sprintf("%q: %q in one", at, s.spelling)
			}
			if d := sameBook(s.node, os[k].node, at+" "+s.spelling); d != "" {
				return d
			}
		}
	}
	return ""
}

// BenchmarkReadBooks reads every phrase book into its trees, as the first
// ticket a process reads does, beside a floor that only spells out every
// phrase of the books (expand), building nothing.
func BenchmarkReadBooks(b *testing.B) {
	b.Run("books", func(b *testing.B) {
		for b.Loop() {
			if _, err := readBooks(langFiles); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("floor-spell-out", func(b *testing.B) {
		files, _ := fs.Glob(langFiles, "lang/*.txt")
		for b.Loop() {
			words := 0
			for _, f := range files {
				data, err := fs.ReadFile(langFiles, f)
				if err != nil {
					b.Fatal(err)
				}
				for l := range strings.Lines(string(data)) {
					if l = strings.TrimSpace(l); l != "" && l[0] != '#' && l[0] != '[' {
						for _, ws := range expand(l) {
							words += len(ws)
						}
					}
				}
			}
			if words == 0 {
				b.Fatal("no words")
			}
		}
	})
}
