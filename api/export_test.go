package api

// ValidEmail reports whether s is already a normalized, valid address.
func ValidEmail(s string) bool {
	n, err := NormalizeEmail(s)
	return err == nil && n == s
}
