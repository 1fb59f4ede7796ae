//go:build !unix

package sqlite

// isQuota is false where there is no disk quota error to tell apart.
func isQuota(error) bool { return false }
