package server

import (
	"errors"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/shushlist/shush/server/store"
)

// Metrics are the service's Prometheus metrics. Every label has a bounded
// set of values: routes are the mux's patterns (or "unmatched"), never
// request paths; statuses are the status codes the service answers with.
type Metrics struct {
	reg *prometheus.Registry

	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	batchItems  *prometheus.HistogramVec
	rateLimited prometheus.Counter
	storeWrite  *prometheus.HistogramVec
	bodyRefused prometheus.Counter
	readyChecks prometheus.Counter

	teamRefused    *prometheus.CounterVec
	readWork       prometheus.Histogram
	exportsRefused *prometheus.CounterVec
	exportsCut     prometheus.Counter
	exportsRunning prometheus.Gauge

	bodyHeld, bodyPeak atomic.Int64
}

// NewMetrics returns a registry with the service's metrics and the Go
// runtime's and the process's.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shush_http_requests_total",
		Help: "Requests answered, by route pattern and status code.",
	}, []string{"route", "status"})
	m.latency = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "shush_http_request_duration_seconds",
		Help:    "Time from a request's arrival to the end of its answer, by route pattern.",
		Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
	}, []string{"route"})
	m.batchItems = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "shush_batch_items",
		Help:    "Distinct items per accepted batch request, by operation (add, remove).",
		Buckets: []float64{1, 2, 5, 10, 20, 50, 100},
	}, []string{"op"})
	m.rateLimited = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shush_rate_limited_total",
		Help: "Requests refused with 429 by the per-team rate limit.",
	})
	m.storeWrite = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "shush_store_write_duration_seconds",
		Help:    "Time of one change to the list until its commit is durable, by operation (add, remove).",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5},
	}, []string{"op"})
	m.bodyRefused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shush_request_body_refused_total",
		Help: "Requests answered 503 because the bytes of request bodies held at once reached the cap.",
	})
	m.readyChecks = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shush_readiness_checks_total",
		Help: "Times /readyz or /healthz asked the store whether it accepts writes (successes are reused for a second).",
	})
	m.teamRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shush_team_share_refused_total",
		Help: "Requests refused because their team reached its share: body (429, bytes of bodies being read), in_flight (429, requests under way), webhooks (422, webhooks of the team), read_budget (429, the work of its searches, checks and exports).",
	}, []string{"limit"})
	m.readWork = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "shush_read_work_seconds",
		Help:    "Work of one costly read (a search or narrowed page, a bulk check, an export, a search of the trail), as taken from its team's read budget.",
		Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5, 30},
	})
	m.exportsRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shush_exports_refused_total",
		Help: "Exports refused because too many streamed at once: team (429, the team's cap) or service (503, the cap across teams).",
	}, []string{"scope"})
	m.exportsCut = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "shush_exports_cut_total",
		Help: "Exports cut off because their client took nothing for the stall timeout, or the export timeout passed.",
	})
	m.exportsRunning = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "shush_exports_streaming",
		Help: "Exports streaming now (each holds a read connection of the store).",
	})
	m.reg.MustRegister(m.teamRefused, m.readWork, m.exportsRefused, m.exportsCut, m.exportsRunning)
	m.reg.MustRegister(m.requests, m.latency, m.batchItems, m.rateLimited, m.storeWrite, m.bodyRefused, m.readyChecks,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shush_request_body_bytes_held",
			Help: "Bytes of request bodies reserved by requests in progress.",
		}, func() float64 { return float64(m.bodyHeld.Load()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "shush_request_body_bytes_held_peak",
			Help: "The most bytes of request bodies ever reserved at once since start.",
		}, func() float64 { return float64(m.bodyPeak.Load()) }),
	)
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Register adds collectors of other parts of the service (for example the
// webhook outbox's depth and oldest age) to the same registry.
func (m *Metrics) Register(cs ...prometheus.Collector) error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, m.reg.Register(c))
	}
	return errors.Join(errs...)
}

// GaugeFunc registers a gauge whose value fn gives at each scrape. fn must
// be cheap and safe for concurrent use.
func (m *Metrics) GaugeFunc(name, help string, fn func() float64) error {
	return m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, fn))
}

func (m *Metrics) observeRequest(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// held notes n more (or, negative, fewer) body bytes held.
func (m *Metrics) held(n int64) {
	now := m.bodyHeld.Add(n)
	for {
		peak := m.bodyPeak.Load()
		if now <= peak || m.bodyPeak.CompareAndSwap(peak, now) {
			return
		}
	}
}

// poolStats registers the store's connection pool gauges (and the count
// of waits, a counter), when the store reports them.
func (m *Metrics) poolStats(st store.Store) {
	ps, ok := st.(store.PoolStatser)
	if !ok {
		return
	}
	for _, g := range []struct {
		name, help string
		get        func(store.PoolStats) float64
	}{
		{"shush_store_pool_connections_open", "Connections the store's pool holds open.", func(s store.PoolStats) float64 { return float64(s.Open) }},
		{"shush_store_pool_connections_in_use", "Connections of the store's pool in use.", func(s store.PoolStats) float64 { return float64(s.InUse) }},
		{"shush_store_pool_connections_max", "Most connections the store's pool may open.", func(s store.PoolStats) float64 { return float64(s.Max) }},
	} {
		get := g.get
		_ = m.GaugeFunc(g.name, g.help, func() float64 { return get(ps.PoolStats()) })
	}
	// A count since start only grows: a counter, named _total, so that
	// rate() and increase() apply.
	_ = m.reg.Register(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "shush_store_pool_waits_total",
		Help: "Times a request waited for a free connection of the store's pool.",
	}, func() float64 { return float64(ps.PoolStats().Waits) }))
}

// capacity registers the gauges of what teams hold now and the limits in
// force, read at each scrape. Servers that share a registry report the
// first one's.
func (m *Metrics) capacity(s *Server) {
	for _, g := range []struct {
		name, help string
		get        func() float64
	}{
		{"shush_requests_in_flight", "Requests of every team under way now (each team at most shush_limit_in_flight_per_team).",
			func() float64 { return float64(s.requests.now()) }},
		{"shush_limit_in_flight_per_team", "Most requests one team may have under way at once (--max-in-flight-per-team).",
			func() float64 { return float64(s.opts.MaxInFlightPerTeam) }},
		{"shush_limit_body_bytes", "Most bytes of request bodies held at once across teams (--max-body-bytes).",
			func() float64 { return float64(s.opts.MaxBodyBytesHeld) }},
		{"shush_limit_body_bytes_per_team", "Most bytes of request bodies one team may hold at once (--max-body-bytes-per-team).",
			func() float64 { return float64(s.opts.MaxBodyBytesPerTeam) }},
		{"shush_limit_webhooks_per_team", "Most webhooks one team may have (--max-webhooks-per-team).",
			func() float64 { return float64(s.opts.MaxWebhooksPerTeam) }},
		{"shush_limit_exports", "Most exports streaming at once across teams (--max-exports).",
			func() float64 { return float64(s.opts.MaxExports) }},
		{"shush_limit_exports_per_team", "Most exports one team may stream at once (--max-exports-per-team).",
			func() float64 { return float64(s.opts.MaxExportsPerTeam) }},
		{"shush_limit_export_stall_seconds", "An export whose client takes nothing for this long is cut (--export-stall-timeout).",
			func() float64 { return s.opts.ExportStallTimeout.Seconds() }},
	} {
		_ = m.GaugeFunc(g.name, g.help, g.get)
	}
}
