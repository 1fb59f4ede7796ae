// Package jsonstr owns writing a JSON string exactly as encoding/json's
// Marshal writes it, without its reflection: the records a run writes per
// batch and per entry (journals, --json documents) are built by hand, and
// must stay byte for byte what json.Marshal made of them.
package jsonstr

import "encoding/json"

// Append appends s as json.Marshal writes it: a string of printable ASCII
// without the characters it escapes (quote, backslash, <, >, &) as it is,
// anything else by json.Marshal itself.
func Append(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
