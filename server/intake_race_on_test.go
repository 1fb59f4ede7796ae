//go:build race

package server_test

// mixedEvents is the size of the mixed load of TestIntakeMixedEvents:
// under -race every request costs several times more, so a fifth.
const mixedEvents = 2000
