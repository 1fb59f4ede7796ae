//go:build !unix

package server

import "io/fs"

// ownerUID reports no owner where files have no user ID (Windows: a
// file's access is its ACL, not a mode); tighten then only chmods, which
// there changes the read-only bit at most.
func ownerUID(fs.FileInfo) (int, bool) { return 0, false }
