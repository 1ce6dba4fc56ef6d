// Package telemetry is what a long-lived hook-exec (serve) tells about
// itself: Prometheus metrics from the traces of its runs and the state of
// its executors and admission, and the health endpoints beside them.
package telemetry

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/admission"
)

// maxPoints bounds the point label's values: a point is the host's word,
// not a fixed set (Holaryn's are dotted names anyone may use); past this
// many, a new one counts as "other".
const maxPoints = 64

// Source is what the metrics read when scraped: the server's executors
// (and, through them, their engine's admission).
type Source struct {
	Backend   string
	Executors []*executor.Executor
}

// Metrics counts a server's runs and reads its sandboxes' state.
type Metrics struct {
	reg      *prometheus.Registry
	runs     *prometheus.CounterVec
	failures *prometheus.CounterVec
	duration *prometheus.HistogramVec
	phases   *prometheus.HistogramVec
	pooled   *prometheus.CounterVec
	reused   *prometheus.CounterVec
	requests *prometheus.CounterVec

	mu     sync.Mutex
	points map[string]bool
}

// New makes the metrics of a server whose state src reads.
func New(src func() Source) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), points: map[string]bool{}}
	m.runs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hookexec_runs_total",
		Help: "Hook runs finished, by the hook's dialect, the point, the backend and the final action."},
		[]string{"dialect", "point", "backend", "action"})
	m.failures = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hookexec_run_failures_total",
		Help: "Hook runs that failed, by failure kind (the failure policy then answered)."}, []string{"backend", "kind"})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hookexec_run_duration_seconds",
		Help: "A hook run from its start to its decision.", Buckets: latencyBuckets}, []string{"backend"})
	m.phases = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "hookexec_run_phase_seconds",
		Help: "Where a run's time went: queued, create, start, stream, exit, cleanup (runs that reached a sandbox).", Buckets: latencyBuckets},
		[]string{"backend", "phase"})
	m.pooled = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hookexec_runs_pooled_total",
		Help: "Runs that took a sandbox started ahead."}, []string{"backend"})
	m.reused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hookexec_runs_reused_total",
		Help: "Runs served by a sandbox that had served an earlier run of the same hook."}, []string{"backend"})
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "hookexec_server_requests_total",
		Help: "Requests a server answered, by kind (command, run, dispatch, control) and outcome (ok, declined, error)."},
		[]string{"kind", "outcome"})
	m.reg.MustRegister(m.runs, m.failures, m.duration, m.phases, m.pooled, m.reused, m.requests, &state{src: src},
		prometheus.NewGoCollector(), prometheus.NewProcessCollector(prometheus.ProcessCollectorOpts{}))
	return m
}

// latencyBuckets span a pooled run's milliseconds to a cold run's seconds.
var latencyBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// Observe counts one run from its trace.
func (m *Metrics) Observe(tr hook.Trace) {
	dialect := tr.Dialect
	if dialect == "" {
		dialect = string(hook.Holaryn)
	}
	m.runs.WithLabelValues(dialect, m.point(tr.Point), tr.Backend, string(tr.FinalAction)).Inc()
	if tr.Failure != nil {
		m.failures.WithLabelValues(tr.Backend, string(tr.Failure.Kind)).Inc()
	}
	m.duration.WithLabelValues(tr.Backend).Observe(float64(tr.DurationMS) / 1000)
	if p := tr.Phases; p != nil {
		for phase, ms := range map[string]int64{"queued": p.Queued, "create": p.Create, "start": p.Start, "stream": p.Stream, "exit": p.Exit, "cleanup": p.Cleanup} {
			m.phases.WithLabelValues(tr.Backend, phase).Observe(float64(ms) / 1000)
		}
	}
	if tr.Pooled {
		m.pooled.WithLabelValues(tr.Backend).Inc()
	}
	if tr.Reused {
		m.reused.WithLabelValues(tr.Backend).Inc()
	}
}

// Request counts one request a server answered.
func (m *Metrics) Request(kind, outcome string) {
	m.requests.WithLabelValues(kind, outcome).Inc()
}

// point is the label value of a point: itself, or "other" past maxPoints.
func (m *Metrics) point(p string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.points[p] {
		return p
	}
	if len(m.points) >= maxPoints {
		return "other"
	}
	m.points[p] = true
	return p
}

// Handler serves /metrics, and /healthz (the process answers) and /readyz
// (ready reports nil: the engine answers and the pools are warm).
func (m *Metrics) Handler(ready func(context.Context) error) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	return mux
}

// state reads the executors' pools and reused sandboxes and the
// admission limiter at each scrape.
type state struct{ src func() Source }

var (
	poolReady   = prometheus.NewDesc("hookexec_pool_ready_sandboxes", "Sandboxes started ahead and waiting, per image.", []string{"backend", "image"}, nil)
	poolTarget  = prometheus.NewDesc("hookexec_pool_target_sandboxes", "Sandboxes the pool keeps ready, per image (it grows while runs find none).", []string{"backend", "image"}, nil)
	poolMisses  = prometheus.NewDesc("hookexec_pool_misses_total", "Runs that found no sandbox of their shape ready, per image.", []string{"backend", "image"}, nil)
	sandboxes   = prometheus.NewDesc("hookexec_sandboxes", "Sandboxes the server holds now: started ahead, reused (idle or being reset), and those of the runs in flight.", []string{"backend"}, nil)
	circuits    = prometheus.NewDesc("hookexec_circuits_opened_total", "Circuits opened: a hook that failed 3 times in a row in a session, whose later runs are refused (circuit_open) until a trial run succeeds.", []string{"backend"}, nil)
	circuitsNow = prometheus.NewDesc("hookexec_circuits_open", "Circuits open now (a trial run's included), in the server's memory and its state directory.", []string{"backend"}, nil)
	reusedIdle  = prometheus.NewDesc("hookexec_reused_idle_sandboxes", "Reused sandboxes idle, reset and waiting for a run of their hook.", []string{"backend"}, nil)
	reuseRetire = prometheus.NewDesc("hookexec_reused_retired_total", "Reused sandboxes retired (a doubt, a failure, their runs or age).", []string{"backend"}, nil)
	admLimit    = prometheus.NewDesc("hookexec_admission_limit", "The engine's adaptive bound on sandbox creations at once.", []string{"backend"}, nil)
	admInflight = prometheus.NewDesc("hookexec_admission_inflight", "Sandbox creations in flight.", []string{"backend"}, nil)
	admQueued   = prometheus.NewDesc("hookexec_admission_queued", "Runs and refills waiting for a creation slot.", []string{"backend"}, nil)
	admShed     = prometheus.NewDesc("hookexec_admission_shed_total", "Runs refused because the engine could not have had their sandbox ready in time (overloaded).", []string{"backend"}, nil)
)

func (s *state) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{sandboxes, circuits, circuitsNow, poolReady, poolTarget, poolMisses, reusedIdle, reuseRetire, admLimit, admInflight, admQueued, admShed} {
		ch <- d
	}
}

func (s *state) Collect(ch chan<- prometheus.Metric) {
	src := s.src()
	sum := Summarize(src.Executors)
	for _, p := range sum.Pools {
		ch <- prometheus.MustNewConstMetric(poolReady, prometheus.GaugeValue, float64(p.Ready), src.Backend, p.Image)
		ch <- prometheus.MustNewConstMetric(poolTarget, prometheus.GaugeValue, float64(p.Target), src.Backend, p.Image)
		ch <- prometheus.MustNewConstMetric(poolMisses, prometheus.CounterValue, float64(p.Misses), src.Backend, p.Image)
	}
	ch <- prometheus.MustNewConstMetric(sandboxes, prometheus.GaugeValue, float64(sum.Held), src.Backend)
	ch <- prometheus.MustNewConstMetric(circuits, prometheus.CounterValue, float64(sum.CircuitsOpened), src.Backend)
	ch <- prometheus.MustNewConstMetric(circuitsNow, prometheus.GaugeValue, float64(sum.CircuitsOpen), src.Backend)
	ch <- prometheus.MustNewConstMetric(reusedIdle, prometheus.GaugeValue, float64(sum.ReusedIdle), src.Backend)
	ch <- prometheus.MustNewConstMetric(reuseRetire, prometheus.CounterValue, float64(sum.ReuseRetired), src.Backend)
	if a := sum.Admission; a != nil {
		ch <- prometheus.MustNewConstMetric(admLimit, prometheus.GaugeValue, float64(a.Limit), src.Backend)
		ch <- prometheus.MustNewConstMetric(admInflight, prometheus.GaugeValue, float64(a.InFlight), src.Backend)
		ch <- prometheus.MustNewConstMetric(admQueued, prometheus.GaugeValue, float64(a.Queued), src.Backend)
		ch <- prometheus.MustNewConstMetric(admShed, prometheus.CounterValue, float64(a.Shed), src.Backend)
	}
}

// Summary is a server's executors' state at one moment, summed.
type Summary struct {
	// Pools per image, in the order first seen.
	Pools []executor.PoolStats
	// Held counts the sandboxes held: ready, reused (idle or being
	// reset), and those of the runs in flight.
	Held, ReusedIdle, CircuitsOpen int
	ReuseRetired, CircuitsOpened   uint64
	// Admission is nil without a limiter (a backend that prepares no
	// sandboxes).
	Admission *AdmissionSummary
}

// AdmissionSummary is the engine's admission as the executors see it:
// the largest limit, and their creations, waiters and sheds summed (they
// share the engine's slots across processes; each counts its own).
type AdmissionSummary struct {
	Limit, InFlight, Queued, Shed int
}

// Summarize reads and sums the executors' state now.
func Summarize(executors []*executor.Executor) Summary {
	var sum Summary
	pools := map[string]int{} // image -> index in sum.Pools
	seen := map[*admission.Limiter]bool{}
	for _, ex := range executors {
		st := ex.Stats()
		for _, p := range st.Pools {
			i, ok := pools[p.Image]
			if !ok {
				i = len(sum.Pools)
				pools[p.Image] = i
				sum.Pools = append(sum.Pools, executor.PoolStats{Image: p.Image})
			}
			sum.Pools[i].Ready += p.Ready
			sum.Pools[i].Target += p.Target
			sum.Pools[i].Misses += p.Misses
			sum.Held += p.Ready
		}
		sum.Held += st.ReusedIdle + st.ReusedResetting + st.Running
		sum.ReusedIdle += st.ReusedIdle
		sum.ReuseRetired += st.ReuseRetired
		sum.CircuitsOpened += st.CircuitsOpened
		sum.CircuitsOpen += st.CircuitsOpen
		a := ex.Admission()
		if a == nil || seen[a] {
			continue
		}
		seen[a] = true
		if sum.Admission == nil {
			sum.Admission = &AdmissionSummary{}
		}
		n, q := a.Load()
		sum.Admission.Limit = max(sum.Admission.Limit, a.Limit())
		sum.Admission.InFlight += n
		sum.Admission.Queued += q
		sum.Admission.Shed += a.Stats().Shed
	}
	return sum
}
