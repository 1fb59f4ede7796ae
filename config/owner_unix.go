//go:build unix

package config

import (
	"io/fs"
	"syscall"
)

// ownerOf is the user ID that owns a file.
func ownerOf(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
