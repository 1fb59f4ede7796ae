//go:build !race

package server_test

// isolationRatio is how many times slower another team's requests may be
// while an attack runs: generous, for two busy cores, and far below what
// the attacks cost before their fixes (hundreds of times the baseline, or
// every request refused).
const isolationRatio = 20

// raceDetector is true when the tests run with -race.
const raceDetector = false
