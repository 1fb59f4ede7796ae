//go:build unix

package sqlite

import (
	"errors"
	"syscall"
)

// isQuota reports a write refused for the user's disk quota.
func isQuota(err error) bool { return errors.Is(err, syscall.EDQUOT) }
