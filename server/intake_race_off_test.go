//go:build !race

package server_test

// mixedEvents is the size of the mixed load of TestIntakeMixedEvents.
const mixedEvents = 10000
