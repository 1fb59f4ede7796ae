// Package cputime owns one measure benchmarks share: the CPU time the
// whole process has used, user and system.
package cputime

import "time"

// Process is the CPU time (user and system) the process has used so far,
// or 0 where the system does not say (see the per-OS files).
func Process() time.Duration { return process() }
