// Package atomicfile owns how shush writes a file a user keeps (the config
// file, keys, exports, run headers): whole or not at all, and durable once
// the write returns. The data goes to a temporary file in the same
// directory, which is synced, then renamed over the target, and the
// directory is synced so that the rename survives a power loss. A reader
// sees the old file or the new one, never half of one; a crash leaves at
// most a stray temporary file (named .NAME.*).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// WriteFile writes data to path as Create, Write and Commit do.
func WriteFile(path string, data []byte, perm fs.FileMode) error {
	f, err := Create(path, perm)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// File is a file being written to replace path. Nothing shows at path
// until Commit; Abort (or a failed Commit) leaves path as it was.
type File struct {
	path string
	tmp  *os.File
	done bool
}

// Create starts a file that will replace path, with mode perm (on
// Windows only the read-only bit of perm counts). path's directory must
// exist.
func Create(path string, perm fs.FileMode) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if runtime.GOOS != "windows" {
		if err := tmp.Chmod(perm); err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
			return nil, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
	}
	return &File{path: path, tmp: tmp}, nil
}

// Name is the path the file will replace.
func (f *File) Name() string { return f.path }

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.tmp.Write(p)
	if err != nil {
		return n, fmt.Errorf("cannot write %s: %w", f.path, unwrapPath(err))
	}
	return n, nil
}

// Commit syncs the data, puts the file at its path and syncs the
// directory. After a failure path is as it was.
func (f *File) Commit() error {
	if f.done {
		return errors.New("atomicfile: Commit after Commit or Abort")
	}
	f.done = true
	name := f.tmp.Name()
	err := f.tmp.Sync()
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, f.path)
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("cannot write %s: %w", f.path, unwrapPath(err))
	}
	if err := SyncDir(filepath.Dir(f.path)); err != nil {
		return fmt.Errorf("cannot write %s: %w", f.path, err)
	}
	return nil
}

// Abort drops what was written; path stays as it was. It does nothing
// after Commit, so that it can be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

// Rename moves oldpath to newpath (replacing it) and syncs the
// directories, so that the move survives a crash.
func Rename(oldpath, newpath string) error {
	if err := os.Rename(oldpath, newpath); err != nil {
		return err
	}
	if err := SyncDir(filepath.Dir(newpath)); err != nil {
		return err
	}
	if od := filepath.Dir(oldpath); od != filepath.Dir(newpath) {
		return SyncDir(od)
	}
	return nil
}

// SyncDir makes the entries of dir (a file created, renamed or removed in
// it) durable. Windows has no directory sync (its rename is durable on
// its own), so there it does nothing.
func SyncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	// Some file systems cannot sync a directory (EINVAL); the rename
	// itself happened.
	if errors.Is(err, syscall.EINVAL) {
		return nil
	}
	return err
}

// unwrapPath drops the *PathError's operation and temporary name, which
// mean nothing to a user: "permission denied", not "open .x.123: …".
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
