package cli

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"golang.org/x/term"
)

// Long listings for a person: the addresses a dry run, a removal or an
// undo would touch, every one, as the UI's review shows them. On a
// terminal they go in columns, through a pager when taller than the
// screen; elsewhere one a line.

// page writes text to w: through the pager when w is a terminal and the
// text is taller than it, else as it is.
func (a *app) page(w io.Writer, text string) error {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(w) {
		_, err := io.WriteString(w, text)
		return err
	}
	_, height, err := term.GetSize(int(f.Fd()))
	argv := pagerCommand(os.LookupEnv)
	if err != nil || strings.Count(text, "\n") < height-2 || len(argv) == 0 {
		_, err := io.WriteString(w, text)
		return err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(text), f, a.io.ErrOut
	if _, set := os.LookupEnv("LESS"); !set {
		// As gh does: quit when it fits, keep colours, leave the text on
		// the screen after quitting (so that a question after it is read
		// with the list in view).
		cmd.Env = append(os.Environ(), "LESS=FRX")
	}
	if err := cmd.Run(); err != nil {
		// No pager to run (or it failed): the text still reaches the
		// person.
		_, werr := io.WriteString(w, text)
		return werr
	}
	return nil
}

// pagerCommand is the pager to run: SHUSH_PAGER, else PAGER, else less;
// nil when paging is off (the variable set to "" or cat).
func pagerCommand(lookup func(string) (string, bool)) []string {
	p, ok := lookup(envPager)
	if !ok {
		p, ok = lookup("PAGER")
	}
	if !ok {
		p = "less"
	}
	argv := strings.Fields(p)
	if len(argv) == 0 || argv[0] == "cat" {
		return nil
	}
	return argv
}

// columns lays values out as ls does: down the columns, as many as fit
// width, each value cleaned of control characters; one a line off a
// terminal (width 0), where a script reads them.
func columns(values []string, width int) string {
	var b strings.Builder
	if width <= 0 {
		for _, v := range values {
			b.WriteString(safeText(v) + "\n")
		}
		return b.String()
	}
	cells := make([]string, len(values))
	widest := 0
	for i, v := range values {
		cells[i] = safeText(v)
		widest = max(widest, len([]rune(cells[i])))
	}
	const indent, gap = 2, 2
	cols := max(1, (width-indent+gap)/(widest+gap))
	rows := (len(cells) + cols - 1) / cols
	for r := range rows {
		b.WriteString(strings.Repeat(" ", indent))
		for c := range cols {
			i := c*rows + r
			if i >= len(cells) {
				break
			}
			cell := cells[i]
			if c < cols-1 && (c+1)*rows+r < len(cells) {
				cell += strings.Repeat(" ", widest+gap-len([]rune(cell)))
			}
			b.WriteString(cell)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// widthOf is the width of w when it is a terminal, else 0.
func widthOf(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !isTerminal(w) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 80
	}
	return width
}

// touchList is the addresses (or IDs) a person is about to touch, headed by
// what would happen to them, for page.
func touchList(head string, values []string, width int) string {
	return fmt.Sprintf("%s\n%s", head, columns(values, width))
}
