package bounce_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shushlist/shush/bounce"
)

const benchMessages = 10_000

// writeMbox writes an mbox of n messages taken in turn from the fixtures
// that are mail (every kind: DSNs, feedback reports, each server's text,
// auto-replies, unknown ones), escaped as mboxrd.
func writeMbox(b *testing.B, n int) string {
	b.Helper()
	files, err := filepath.Glob("testdata/*.eml")
	if err != nil {
		b.Fatal(err)
	}
	var fixtures [][]byte
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := bounce.Parse(bytes.NewReader(raw)); err == nil {
			fixtures = append(fixtures, raw)
		}
	}
	path := filepath.Join(b.TempDir(), "bounces.mbox")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		fmt.Fprintf(w, "From MAILER-DAEMON Mon Nov 23 09:%02d:%02d 2026\n", i/60%60, i%60)
		raw := fixtures[i%len(fixtures)]
		for line := range bytes.Lines(raw) {
			if bytes.HasPrefix(bytes.TrimLeft(line, ">"), []byte("From ")) {
				w.WriteByte('>')
			}
			w.Write(line)
		}
		if !bytes.HasSuffix(raw, []byte("\n")) {
			w.WriteString("\n")
		}
		w.WriteString("\n")
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkMbox reads an mbox of 10,000 mixed bounces. "floor" does the
// least of the same work: it splits the mbox at its separators and reads
// each message with net/mail.ReadMessage and its body to the end; "parse"
// is Messages and Parse, reporting messages/s and its time as a multiple
// of the floor's in the same run (x_floor).
func BenchmarkMbox(b *testing.B) {
	path := writeMbox(b, benchMessages)
	var floor time.Duration
	b.Run("floor", func(b *testing.B) {
		for b.Loop() {
			if n := floorPass(b, path); n != benchMessages {
				b.Fatalf("read %d messages", n)
			}
		}
		floor = b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(benchMessages/floor.Seconds(), "msgs/s")
	})
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			n := 0
			for m, err := range bounce.Messages(path, nil) {
				if err != nil {
					b.Fatal(err)
				}
				rs, err := m.Parse()
				if err != nil || len(rs) == 0 {
					b.Fatalf("%s: %v", m.Source, err)
				}
				n++
			}
			if n != benchMessages {
				b.Fatalf("read %d messages", n)
			}
		}
		per := b.Elapsed() / time.Duration(b.N)
		b.ReportMetric(benchMessages/per.Seconds(), "msgs/s")
		if floor > 0 {
			b.ReportMetric(float64(per)/float64(floor), "x_floor")
		}
	})
}

// floorPass splits the mbox at "From " lines after an empty line and
// reads each message's header and body with net/mail.
func floorPass(b *testing.B, path string) int {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	var msg bytes.Buffer
	n, prevEmpty := 0, true
	flush := func() {
		if msg.Len() == 0 {
			return
		}
		m, err := mail.ReadMessage(bytes.NewReader(msg.Bytes()))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, m.Body); err != nil {
			b.Fatal(err)
		}
		n++
		msg.Reset()
	}
	for {
		line, err := r.ReadSlice('\n')
		if prevEmpty && bytes.HasPrefix(line, []byte("From ")) {
			flush()
		} else {
			msg.Write(line)
		}
		prevEmpty = len(line) == 1
		if err != nil {
			break
		}
	}
	flush()
	return n
}
