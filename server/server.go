package server

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/intake"
	"github.com/shushlist/shush/server/outbox"
	"github.com/shushlist/shush/server/store"
)

// Defaults of Options.
const (
	DefaultRate           = 10
	DefaultRequestTimeout = 30 * time.Second
	// DefaultMaxBodyBytesHeld lets 64 requests of the largest body size
	// be read at once.
	DefaultMaxBodyBytesHeld = 64 * MaxBody
)

// Options tune a Server. The zero value is a sensible default.
type Options struct {
	// Rate is how many requests per second each team may make on average;
	// a value <= 0 means DefaultRate.
	Rate float64
	// Burst is how many requests a team may make at once; a value <= 0
	// means max(1, ceil(Rate)).
	Burst int
	// Logger receives one record per request and the details of failures;
	// nil discards them.
	Logger *slog.Logger
	// RequestTimeout bounds the work of one request; a value <= 0 means
	// DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxBodyBytesHeld caps the bytes of request bodies that requests in
	// progress may hold at once, across all requests: each request with a
	// body reserves its Content-Length (MaxBody when unknown) until it is
	// answered, and one that does not fit is answered 503 with
	// Retry-After. A value below MaxBody means DefaultMaxBodyBytesHeld.
	MaxBodyBytesHeld int64
	// MaxBodyBytesPerTeam is one team's share of MaxBodyBytesHeld: the
	// bytes of bodies its requests may hold at once; a request past it is
	// answered 429 with Retry-After, and other teams keep the rest of the
	// budget. A value below MaxBody means a quarter of MaxBodyBytesHeld
	// (at least MaxBody).
	MaxBodyBytesPerTeam int64
	// MaxInFlightPerTeam caps the requests of one team under way at once
	// (429 with Retry-After past it); <= 0 means
	// DefaultMaxInFlightPerTeam.
	MaxInFlightPerTeam int
	// MaxExports caps the exports streaming at once across teams (503
	// with Retry-After past it); <= 0 means DefaultMaxExports, at most
	// half of the store's connection pool. Each export holds a read
	// connection for its whole stream; a cap below the pool keeps
	// connections for key look-ups and every other request.
	MaxExports int
	// MaxExportsPerTeam caps one team's exports at once (429 past it);
	// <= 0 means DefaultMaxExportsPerTeam.
	MaxExportsPerTeam int
	// ExportStallTimeout cuts an export whose client has not taken a
	// chunk of it for this long; <= 0 means DefaultExportStallTimeout.
	ExportStallTimeout time.Duration
	// ExportTimeout bounds one export from start to end; <= 0 means
	// DefaultExportTimeout.
	ExportTimeout time.Duration
	// ReadBudget is the work a team's costly reads (searches and narrowed
	// pages, bulk checks, exports, searches of the trail) may take per
	// second on average, measured; a team that spent it (up to four
	// budgets at once) gets 429 with Retry-After until it has some again,
	// so that one team's heavy reads leave the service to the others. <= 0
	// means DefaultReadBudget.
	ReadBudget time.Duration
	// MaxCostlyReadsPerTeam caps a team's costly reads under way at once
	// (429 past it); <= 0 means DefaultCostlyReadsPerTeam.
	MaxCostlyReadsPerTeam int
	// MaxWebhooksPerTeam caps a team's webhooks (each change writes an
	// event per webhook, in the change's transaction); one more is a 422.
	// <= 0 means DefaultMaxWebhooksPerTeam.
	MaxWebhooksPerTeam int
	// Metrics receives the service's measurements; nil keeps them
	// private (nothing exposes them).
	Metrics *Metrics
	// Deliveries is this process's webhook deliverer, woken when a change
	// queued events; nil leaves them to the deliverers' polls. A Service
	// sets it to the deliverer it runs.
	Deliveries *outbox.Deliverer
	// LocalImports lets every key keep its entries' own IDs and creation
	// times (an import right for all): the embedded local list, which is
	// the person's own database.
	LocalImports bool
	// Now is the service's clock, which an entry's expiry must be after;
	// nil is time.Now. Tests set it.
	Now func() time.Time
	// PublicURL is the service's address as the providers reach it
	// (serve --public-url), the base of the intake endpoints' URLs; ""
	// takes the address each request came to.
	PublicURL string
	// Intake tunes the check of the providers' requests: the client that
	// fetches SNS certificates, and the clock signed timestamps are
	// checked against.
	Intake intake.ReceiverOptions
	// OneClickRate and OneClickBurst are each client address's bucket of
	// one-click unsubscribe requests (POST and GET /u/{token}); <= 0 means
	// DefaultOneClickRate and DefaultOneClickBurst.
	OneClickRate  float64
	OneClickBurst int
}

// Server is the service as an http.Handler.
type Server struct {
	store   store.Store
	opts    Options
	log     *slog.Logger
	limiter *limiter
	mux     *http.ServeMux
	handler http.Handler // mux inside the layers
	metrics *Metrics
	keys    *keyCache
	// bodyHeld is the bytes of request bodies reserved now.
	bodyHeld atomic.Int64
	// bodies, requests and exports are what each team holds now: bytes
	// of bodies, requests under way, exports streaming.
	bodies, requests, exports teamCounts
	readiness                 readiness
	receiver                  *intake.Receiver
	intakeMetrics             *intakeMetrics
	intakes                   intakeCache
	// costs is each team's budget of costly reads.
	costs *readBudget
	// oneClickLimiter is each client address's bucket of one-click
	// requests, oneClick their counter.
	oneClickLimiter *limiter
	oneClick        *prometheus.CounterVec
}

// New returns the service over st. The caller keeps ownership of st.
func New(st store.Store, opts Options) *Server {
	if !(opts.Rate > 0) { // also NaN
		opts.Rate = DefaultRate
	}
	if opts.Burst <= 0 {
		opts.Burst = max(1, int(math.Ceil(min(opts.Rate, math.MaxInt32))))
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.RequestTimeout <= 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.MaxBodyBytesHeld < MaxBody {
		opts.MaxBodyBytesHeld = DefaultMaxBodyBytesHeld
	}
	if opts.Metrics == nil {
		opts.Metrics = NewMetrics()
	}
	capacityDefaults(&opts, st)
	if opts.Now == nil {
		opts.Now = time.Now
	}
	s := &Server{
		store:   st,
		opts:    opts,
		log:     opts.Logger,
		limiter: newLimiter(opts.Rate, opts.Burst),
		mux:     http.NewServeMux(),
		metrics: opts.Metrics,
		costs:   newReadBudget(opts.ReadBudget, opts.MaxCostlyReadsPerTeam),
	}
	if !(opts.OneClickRate > 0) {
		s.opts.OneClickRate = DefaultOneClickRate
	}
	if opts.OneClickBurst <= 0 {
		s.opts.OneClickBurst = DefaultOneClickBurst
	}
	s.oneClickLimiter = newLimiter(s.opts.OneClickRate, s.opts.OneClickBurst)
	s.oneClick = newOneClickCounter(s.metrics)
	s.metrics.poolStats(st)
	s.metrics.capacity(s)
	s.keys = newKeyCache(st, KeyCacheTTL, s.metrics)
	s.receiver, s.intakeMetrics = intake.NewReceiver(opts.Intake), newIntakeMetrics(s.metrics)
	s.routes()
	s.handler = s.chain()
	return s
}

// eventsQueued is the store's count of changes that queued webhook
// events, and whether it keeps one (store.EventCounter): a change that
// leaves it as it was queued nothing, and the deliverer need not read the
// outbox for it.
func (s *Server) eventsQueued() (uint64, bool) {
	if c, ok := s.store.(store.EventCounter); ok {
		return c.EventsQueued(), true
	}
	return 0, false
}

// wakeDeliveries tells this process's deliverer that events may be due.
func (s *Server) wakeDeliveries() {
	if s.opts.Deliveries != nil {
		s.opts.Deliveries.Wake()
	}
}

// Metrics is the registry the service reports to (Options.Metrics, or
// its own when none was given), for other parts of the process to add
// their gauges, such as a delivery outbox's depth and oldest age.
func (s *Server) Metrics() *Metrics { return s.metrics }

const requestIDHeader = "X-Request-Id"

// ServeHTTP answers one request through the layers (see layers): request
// ID and log, metrics, framing, deadline, key, rate limit, body budget,
// and then the route.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r)
}

// bodyWeight is how many bytes of body a request may make the service
// hold: its Content-Length, at most MaxBody (a longer body is refused
// after MaxBody bytes), or MaxBody when the length is not known up front.
func bodyWeight(r *http.Request) int64 {
	switch {
	case r.ContentLength > 0:
		return min(r.ContentLength, MaxBody)
	case r.ContentLength < 0 || len(r.TransferEncoding) > 0:
		return MaxBody
	}
	return 0
}

// holdBody reserves n bytes of the body budget, or reports false when
// they do not fit.
func (s *Server) holdBody(n int64) bool {
	for {
		cur := s.bodyHeld.Load()
		if cur+n > s.opts.MaxBodyBytesHeld {
			return false
		}
		if s.bodyHeld.CompareAndSwap(cur, cur+n) {
			s.metrics.held(n)
			return true
		}
	}
}

func (s *Server) releaseBody(n int64) {
	s.bodyHeld.Add(-n)
	s.metrics.held(-n)
}

// unmatched answers a path no route has (404), or a method the path's
// routes do not take (405, with Allow), in the contract's JSON.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) {
	h, _ := s.mux.Handler(r)
	probe := &probeWriter{header: make(http.Header)}
	h.ServeHTTP(probe, r)
	switch probe.status {
	case http.StatusMethodNotAllowed:
		allow := probe.header.Get("Allow")
		w.Header().Set("Allow", allow)
		writeProblem(w, r, s.log, newProblem(http.StatusMethodNotAllowed, api.ErrMethodNotAllowed,
			"Method %s is not allowed on this path; allowed: %s.", api.Quote(r.Method), allow))
	case http.StatusNotFound, 0:
		writeProblem(w, r, s.log, newProblem(http.StatusNotFound, api.ErrNotFound, "Endpoint not found."))
	default:
		// A redirect to the cleaned path: pass it on as the mux made it.
		for k, v := range probe.header {
			w.Header()[k] = v
		}
		w.WriteHeader(probe.status)
	}
}

// requestID keeps a caller's request ID when it is short and plain, so logs
// can be matched across services, and makes one otherwise.
func requestID(in string) string {
	if len(in) > 0 && len(in) <= 64 {
		ok := true
		for i := 0; i < len(in); i++ {
			c := in[i]
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
				ok = false
				break
			}
		}
		if ok {
			return in
		}
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// recorder notes what a handler wrote, for the request log.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
	wrote  bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// probeWriter catches the mux's own 404/405/redirect answer so that it can
// be given in the contract's form.
type probeWriter struct {
	header http.Header
	status int
}

func (p *probeWriter) Header() http.Header { return p.header }
func (p *probeWriter) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
}
func (p *probeWriter) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	return len(b), nil
}

var errNoKey = errors.New("server: route reached without a key")
