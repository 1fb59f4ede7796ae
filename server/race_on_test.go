//go:build race

package server_test

// isolationRatio is how many times slower another team's requests may be
// while an attack runs. Under -race every goroutine's work costs several
// times more, so the attack's share of the two cores grows and the bound
// with it; it still fails the attacks before their fixes, which cost
// hundreds of times the baseline or every request.
const isolationRatio = 60

// raceDetector is true when the tests run with -race.
const raceDetector = true
