package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// result is a run's figures.
type result struct {
	URLs      []string       `json:"urls"`
	Clients   int            `json:"clients"`
	Seconds   float64        `json:"seconds"`
	Mix       string         `json:"mix"`
	Batch     int            `json:"batch"`
	Filled    int            `json:"filled,omitempty"`
	FillSecs  float64        `json:"fill_seconds,omitempty"`
	Ops       []opResult     `json:"ops"`
	Requests  int            `json:"requests"`
	PerSecond float64        `json:"requests_per_second"`
	Errors    map[string]int `json:"errors_by_status"`
}

type opResult struct {
	Op        string  `json:"op"`
	Requests  int     `json:"requests"`
	PerSecond float64 `json:"requests_per_second"`
	ItemsPS   float64 `json:"addresses_per_second,omitempty"`
	P50ms     float64 `json:"p50_ms"`
	P95ms     float64 `json:"p95_ms"`
	P99ms     float64 `json:"p99_ms"`
	// Unfinished requests were in flight when the run ended; whether the
	// service applied them is unknown.
	Unfinished int `json:"unfinished,omitempty"`
}

func mixString(mix [numOps]int) string {
	parts := make([]string, 0, numOps)
	for o, w := range mix {
		parts = append(parts, fmt.Sprintf("%s=%d", opNames[o], w))
	}
	return strings.Join(parts, ",")
}

func summarize(res *result, samples []*sample) {
	secs := res.Seconds
	var all []time.Duration
	for o := range numOps {
		var lat []time.Duration
		items, unfinished := 0, 0
		for _, s := range samples {
			lat = append(lat, s.latency[o]...)
			items += s.items[o]
			unfinished += s.unfinished[o]
		}
		all = append(all, lat...)
		r := opResult{Op: opNames[o], Requests: len(lat), PerSecond: float64(len(lat)) / secs, Unfinished: unfinished}
		if items > 0 {
			r.ItemsPS = float64(items) / secs
		}
		r.P50ms, r.P95ms, r.P99ms = percentiles(lat)
		res.Ops = append(res.Ops, r)
		res.Requests += len(lat)
	}
	for _, s := range samples {
		for status, n := range s.byStatus {
			res.Errors[status] += n
		}
	}
	total := opResult{Op: "all", Requests: len(all), PerSecond: float64(len(all)) / secs}
	total.P50ms, total.P95ms, total.P99ms = percentiles(all)
	res.Ops = append(res.Ops, total)
	res.PerSecond = total.PerSecond
}

func percentiles(lat []time.Duration) (p50, p95, p99 float64) {
	if len(lat) == 0 {
		return 0, 0, 0
	}
	slices.Sort(lat)
	at := func(p float64) float64 {
		i := int(p*float64(len(lat))+0.5) - 1
		i = max(0, min(i, len(lat)-1))
		return float64(lat[i].Microseconds()) / 1000
	}
	return at(0.50), at(0.95), at(0.99)
}

func printTable(w io.Writer, r result) {
	fmt.Fprintf(w, "target %s, %d clients, %.1fs, mix %s, batch %d\n", strings.Join(r.URLs, " "), r.Clients, r.Seconds, r.Mix, r.Batch)
	if r.Filled > 0 {
		fmt.Fprintf(w, "filled %d addresses first in %.1fs\n", r.Filled, r.FillSecs)
	}
	fmt.Fprintf(w, "%-7s %9s %9s %11s %9s %9s %9s\n", "op", "requests", "req/s", "addresses/s", "p50 ms", "p95 ms", "p99 ms")
	for _, o := range r.Ops {
		items := "-"
		if o.ItemsPS > 0 {
			items = fmt.Sprintf("%.0f", o.ItemsPS)
		}
		fmt.Fprintf(w, "%-7s %9d %9.1f %11s %9.2f %9.2f %9.2f\n", o.Op, o.Requests, o.PerSecond, items, o.P50ms, o.P95ms, o.P99ms)
	}
	var cut []string
	for _, o := range r.Ops {
		if o.Unfinished > 0 {
			cut = append(cut, fmt.Sprintf("%s %d", o.Op, o.Unfinished))
		}
	}
	if len(cut) > 0 {
		fmt.Fprintf(w, "in flight at the end, outcome unknown: %s\n", strings.Join(cut, ", "))
	}
	if len(r.Errors) == 0 {
		fmt.Fprintln(w, "errors: none")
		return
	}
	statuses := make([]string, 0, len(r.Errors))
	for s := range r.Errors {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	parts := make([]string, len(statuses))
	for i, s := range statuses {
		parts[i] = fmt.Sprintf("%s: %d", s, r.Errors[s])
	}
	fmt.Fprintf(w, "errors by status: %s\n", strings.Join(parts, ", "))
}
