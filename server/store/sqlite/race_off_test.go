//go:build !race

package sqlite

// raceDetector is true when the tests run with -race.
const raceDetector = false
