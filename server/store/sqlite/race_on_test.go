//go:build race

package sqlite

// raceDetector is true when the tests run with -race, under which every
// statement costs several times more.
const raceDetector = true
