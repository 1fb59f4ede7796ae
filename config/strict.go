package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// CheckDirChain refuses a directory that other users could replace, as
// OpenSSH's StrictModes judges the directories above a user's files: the
// directory and each one above it, up to the root, must be owned by root
// or by this user, and not writable by group or others unless sticky
// (/tmp: there only a file's owner may rename it). Whoever may write to
// one of them may rename the directory below and put their own in its
// place: a config that sends keys elsewhere, a list of their own.
// Directories not made yet are skipped; what names the directory is said
// in the error (the config directory, the data directory).
func CheckDirChain(dir, what string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil
	}
	for p := abs; ; p = filepath.Dir(p) {
		// What p is, in the error: the directory itself, or one above.
		which := what + " " + p
		if p != abs {
			which = p + ", which holds " + what + " " + abs + ","
		}
		fi, err := os.Stat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("cannot examine %s: %w", which, err)
		case fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0:
			return fmt.Errorf("%s can be written by other users (mode %04o), who could replace what it holds: run chmod go-w %s",
				which, fi.Mode().Perm(), p)
		default:
			if uid, ok := ownerOf(fi); ok && uid != 0 && uid != os.Getuid() {
				return fmt.Errorf("%s belongs to another user (uid %d), who could replace what it holds: use a directory of your own, or run chown %d %s",
					which, uid, os.Getuid(), p)
			}
		}
		if filepath.Dir(p) == p {
			return nil
		}
	}
}
