// Package serve is hook-exec's local socket protocol: a Server that answers
// hook runs from a long-lived executor (with sandboxes started ahead), the
// wire types, and a small Go Client.
//
// The protocol is one JSON object per line each way: a Request names an
// absolute script path, its pin and its event; the Response carries the
// decision in the hook's dialect and the trace.
package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/dispatch"
	"github.com/hookexec/hook-exec/serve/hostcall"
)

// MaxRequestBytes bounds one request line.
const MaxRequestBytes = 32 << 20

// ErrRequest: a request the server cannot map to a hook.
var ErrRequest = errors.New("invalid request")

// Request is one run, or one boundary: one JSON object on one line. With
// Point set (and no Script) it dispatches every registered hook at that
// point, as `hook-exec dispatch` does.
type Request struct {
	Script        string            `json:"script,omitempty"` // absolute path of the .sh or .py file
	SHA256        string            `json:"sha256,omitempty"`
	HookID        string            `json:"hook_id,omitempty"`
	Dialect       string            `json:"dialect,omitempty"`
	Scope         string            `json:"scope,omitempty"`
	Mode          string            `json:"mode,omitempty"`
	FailurePolicy string            `json:"failure_policy,omitempty"`
	Matcher       string            `json:"matcher,omitempty"`
	TimeoutMS     int64             `json:"timeout_ms,omitempty"`
	Image         string            `json:"image,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	Event         json.RawMessage   `json:"event"`

	// A boundary: its point, the workspace whose trusted project hooks
	// apply, the profile, and a session hooks document whose script paths
	// start at SessionDir.
	Point        string          `json:"point,omitempty"`
	Workspace    string          `json:"workspace,omitempty"`
	Profile      string          `json:"profile,omitempty"`
	SessionHooks json.RawMessage `json:"session_hooks,omitempty"`
	SessionDir   string          `json:"session_dir,omitempty"`

	// Command hands the server a host command line (see package
	// hostcall): the connection carries that one call.
	Command *hostcall.Command `json:"command,omitempty"`
	// Control asks the server itself: "status" is answered with its
	// Status, "ping" with pong (it reads and answers requests), "stop"
	// stops it as a signal would.
	Control string `json:"control,omitempty"`
}

// Status is a server's answer to {"control": "status"}.
type Status struct {
	PID      int       `json:"pid"`
	Socket   string    `json:"socket"`
	Started  time.Time `json:"started"`
	Backend  string    `json:"backend"`
	Runtime  string    `json:"runtime,omitempty"`
	StateDir string    `json:"state_dir"`
	Pool     int       `json:"pool"`
	Reuse    bool      `json:"reuse"`
	// IdleExit is how long the server stays with nothing to do ("": for
	// ever).
	IdleExit string `json:"idle_exit,omitempty"`
	// Calls counts the requests answered; InFlight those being answered.
	Calls    int64 `json:"calls"`
	InFlight int64 `json:"in_flight"`
	// Pools are the shapes kept started ahead, ReusedIdle the reused
	// sandboxes waiting, Admission the engine's bound on creations.
	Pools      []PoolStatus     `json:"pools,omitempty"`
	ReusedIdle int              `json:"reused_idle"`
	Admission  *AdmissionStatus `json:"admission,omitempty"`
}

// PoolStatus is one shape of a server's pools.
type PoolStatus struct {
	Image  string `json:"image"`
	Ready  int    `json:"ready"`
	Target int    `json:"target"`
	Misses uint64 `json:"misses"`
}

// AdmissionStatus is the engine's admission as the server sees it.
type AdmissionStatus struct {
	Limit    int `json:"limit"`
	InFlight int `json:"in_flight"`
	Queued   int `json:"queued"`
	Shed     int `json:"shed"`
}

// Response answers one Request on one line. Error is set, and nothing else,
// when the request could not be run at all.
type Response struct {
	Decision json.RawMessage `json:"decision,omitempty"` // in the hook's dialect
	Trace    *hook.Trace     `json:"trace,omitempty"`
	// Dispatch answers a boundary: decision, final event and traces.
	Dispatch *dispatch.Result `json:"dispatch,omitempty"`
	Warning  string           `json:"warning,omitempty"`
	Status   *Status          `json:"status,omitempty"`
	Pong     bool             `json:"pong,omitempty"`
	Error    string           `json:"error,omitempty"`
}

// Hook returns the hook definition a request asks to run.
func (r Request) Hook() (hook.Hook, error) {
	if !filepath.IsAbs(r.Script) {
		return hook.Hook{}, fmt.Errorf("%w: script must be an absolute path", ErrRequest)
	}
	dialect := hook.DefaultDialect
	if r.Dialect != "" {
		d, err := hook.ParseDialect(r.Dialect)
		if err != nil {
			return hook.Hook{}, fmt.Errorf("%w: %w", ErrRequest, err)
		}
		dialect = d
	}
	h := hook.Hook{
		ID: r.HookID, Dialect: dialect, Scope: hook.Scope(r.Scope), Mode: hook.Mode(r.Mode),
		FailurePolicy: hook.FailurePolicy(r.FailurePolicy), Matcher: r.Matcher,
		Timeout: time.Duration(r.TimeoutMS) * time.Millisecond, Image: r.Image, Env: r.Env,
		PluginDir: filepath.Dir(r.Script), Script: filepath.Base(r.Script), SHA256: r.SHA256,
	}
	if h.ID == "" {
		h.ID = h.Script
	}
	return h, nil
}
