//go:build unix

package termprobe

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// answered sends a cursor position request (CSI 6n) to the terminal on
// stdout and reports whether an answer (ESC [ row ; col R) comes within
// wait. The answer is read and dropped, so it does not reach the program's
// input. A process in the background of its terminal does not probe (it
// would be stopped), and termenv does not query there either.
func answered(wait time.Duration) bool {
	fd := int(os.Stdout.Fd())
	pgrp, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	if err != nil || pgrp != unix.Getpgrp() {
		return true
	}
	state, err := term.MakeRaw(fd)
	if err != nil {
		return true
	}
	defer term.Restore(fd, state)
	if _, err := os.Stdout.WriteString("\x1b[6n"); err != nil {
		return true
	}
	deadline := time.Now().Add(wait)
	buf := make([]byte, 64)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		var fds unix.FdSet
		fds.Set(fd)
		tv := unix.NsecToTimeval(int64(left))
		n, err := unix.Select(fd+1, &fds, nil, nil, &tv)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return true // cannot tell: let termenv do as it does
		}
		if n == 0 {
			return false
		}
		m, err := unix.Read(fd, buf)
		if err != nil || m == 0 {
			return true
		}
		for _, c := range buf[:m] {
			if c == 'R' {
				return true
			}
		}
	}
}
