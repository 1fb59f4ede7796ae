//go:build !unix

package cputime

import "time"

// process is 0 where there is no getrusage (Windows): the benchmarks then
// report no CPU figure, and everything else still builds.
func process() time.Duration { return 0 }
