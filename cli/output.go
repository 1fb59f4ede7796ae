package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/shushlist/shush/internal/atomicfile"
	"github.com/shushlist/shush/safe"
)

// isTerminal reports whether w is an *os.File on a terminal. Writers that
// tests hand in are never terminals, so tests see the machine output.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// outputMode decides between human text and JSON: JSON when asked for
// (--json, -q, --jq), or when stdout is not a terminal (a pipe or a
// file), as a script expects.
type outputMode struct{ json bool }

func (a *app) output() outputMode {
	return outputMode{json: a.jsonAsked() || !a.io.StdoutTTY}
}

// jsonAsked reports whether the command line asks for JSON: --json, or
// -q/--quiet or --jq, which imply it.
func (a *app) jsonAsked() bool {
	return a.globals.json || a.globals.quiet || a.globals.jq != ""
}

// outputFile is where a command's --output goes: a file written whole or
// not at all (internal/atomicfile, mode 0600: what shush writes holds
// addresses), or stdout for "" and "-".
type outputFile struct {
	w    io.Writer
	file *atomicfile.File // nil for stdout
}

// openOutput opens --output path; "" and "-" are stdout, as for --file.
func (a *app) openOutput(path string) (*outputFile, error) {
	if path == "" || path == "-" {
		return &outputFile{w: a.io.Out}, nil
	}
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return nil, usageErr{err}
	}
	return &outputFile{w: f, file: f}, nil
}

func (o *outputFile) Write(p []byte) (int, error) { return o.w.Write(p) }

// commit puts the file in place (stdout needs nothing).
func (o *outputFile) commit() error {
	if o.file == nil {
		return nil
	}
	return o.file.Commit()
}

// abort drops a file not committed; it can be deferred.
func (o *outputFile) abort() {
	if o.file != nil {
		o.file.Abort()
	}
}

// writeJSON prints v as indented JSON with a final newline.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	// Exact JSON, and still safe when it lands on a terminal: C1 and
	// format characters (bidi overrides) as \u escapes.
	_, err := w.Write(safe.JSON(buf.Bytes()))
	return err
}

// writeJSONWithList prints v as writeJSON does, with one more field, name,
// an array of the strings of list, written as they come: a dry run of
// millions of addresses never holds their JSON whole.
func writeJSONWithList(w io.Writer, v any, name string, list iter.Seq[string]) error {
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		return err
	}
	head := bytes.TrimRight(buf.Bytes(), "\n")
	if !bytes.HasSuffix(head, []byte("}")) {
		return fmt.Errorf("writeJSONWithList: %T is not a JSON object", v)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(bytes.TrimRight(head[:len(head)-1], "\n"))
	key, _ := json.Marshal(name)
	fmt.Fprintf(bw, ",\n  %s: [", key)
	n := 0
	for s := range list {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n    ")
		bw.Write(safe.JSON(b))
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

// table writes aligned columns; cells are cleaned of control characters so
// that data from the service cannot move the cursor or change colours.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer) *table {
	return &table{tw: tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		if i > 0 {
			io.WriteString(t.tw, "\t")
		}
		io.WriteString(t.tw, safeText(c))
	}
	io.WriteString(t.tw, "\n")
}

func (t *table) flush() error { return t.tw.Flush() }

// safeText is outside text for a human-readable line: control and format
// characters show as visible escapes (\x1b, \u202e), never reach the
// terminal.
func safeText(s string) string { return safe.Text(s) }

// plural returns "1 entry" or "3 entries" style counts.
func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
