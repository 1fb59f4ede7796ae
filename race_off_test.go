//go:build !race

package main

// raceDetector is true when the tests run with -race, which slows the
// in-process service about fivefold.
const raceDetector = false
