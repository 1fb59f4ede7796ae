//go:build !unix

package termprobe

import (
	"os"
	"time"
)

// On systems without Unix terminals termenv does not query the terminal,
// so there is nothing to guard against.
func isTerminal(*os.File) bool { return false }

func answered(time.Duration) bool { return true }
