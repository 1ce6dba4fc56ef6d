package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/dispatch"
	"github.com/hookexec/hook-exec/host/registry"
)

// DefaultDrainTimeout bounds how long a stopping Server waits for the runs
// in flight.
const DefaultDrainTimeout = 30 * time.Second

// Server answers Requests with one executor.
type Server struct {
	Executor *executor.Executor
	// StateDir holds the registry boundaries are dispatched from (global
	// and profile hooks, project trust). Circuits stay in the executor.
	StateDir string
	// DrainTimeout bounds the wait for runs in flight once the context of
	// Serve is done; then they are cancelled. Default DefaultDrainTimeout.
	DrainTimeout time.Duration
	// Commands runs the command lines clients hand over (nil: every one
	// is declined).
	Commands CommandRunner
	// IdleExit stops the server after this long with no connection open
	// (0: never).
	IdleExit time.Duration
	// Status is what {"control": "status"} is answered with; the server
	// fills in Calls and InFlight.
	Status Status
	// Describe, when set, fills in the rest of a status: pools, reused
	// sandboxes, admission.
	Describe func(*Status)
	// Answered, when set, is told of each request answered: its kind
	// (command, run, dispatch, control, invalid), its outcome (ok,
	// declined, error) and how long it took. It never sees the event or
	// the output.
	Answered func(kind, outcome string, took time.Duration)

	mu       sync.Mutex
	conns    map[net.Conn]struct{}
	closing  bool
	stop     context.CancelFunc
	calls    int64
	inFlight int64
	idle     *time.Timer
}

// Serve accepts connections on ln until ctx is done, then stops reading new
// requests, lets the runs in flight finish within DrainTimeout, cancels
// those still running, and returns. It closes ln. The caller shuts the
// executor down.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.stop = cancel
	if s.IdleExit > 0 {
		s.idle = time.AfterFunc(s.IdleExit, s.idleOut)
	}
	s.mu.Unlock()
	runCtx, cancelRuns := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRuns()
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() {
		ln.Close()
		s.stopReading()
	})
	defer stop()
	var acceptErr error
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() == nil {
				acceptErr = fmt.Errorf("accept: %w", err)
				s.stopReading()
			}
			break
		}
		if !s.track(c) {
			c.Close()
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.untrack(c)
			s.serveConn(runCtx, c)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	drain := s.DrainTimeout
	if drain <= 0 {
		drain = DefaultDrainTimeout
	}
	select {
	case <-done:
		return acceptErr
	case <-time.After(drain):
	}
	cancelRuns()
	s.closeAll()
	<-done
	return errors.Join(acceptErr, fmt.Errorf("drain: runs still in flight after %v were cancelled", drain))
}

func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	if s.conns == nil {
		s.conns = map[net.Conn]struct{}{}
	}
	s.conns[c] = struct{}{}
	if s.idle != nil {
		s.idle.Stop()
	}
	return true
}

func (s *Server) untrack(c net.Conn) {
	s.mu.Lock()
	delete(s.conns, c)
	if s.idle != nil && len(s.conns) == 0 {
		s.idle.Reset(s.IdleExit)
	}
	s.mu.Unlock()
	c.Close()
}

// idleOut stops the server when its idle timer fired with no connection
// open (one that opened meanwhile stopped it too late).
func (s *Server) idleOut() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.conns) == 0 && s.stop != nil {
		s.stop()
	}
}

// stopReading makes every connection's next (or pending) read fail, so an
// idle connection ends at once and a busy one after its answer.
func (s *Server) stopReading() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closing = true
	for c := range s.conns {
		c.SetReadDeadline(time.Now())
	}
}

func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.Close()
	}
}

// serveConn answers the requests of one connection, one line each; a
// command line's call is the connection's last.
func (s *Server) serveConn(ctx context.Context, c net.Conn) {
	r := bufio.NewReaderSize(c, 64<<10)
	enc := json.NewEncoder(c)
	for {
		line, err := readLine(r)
		if err != nil {
			return
		}
		s.count(1)
		begin := time.Now()
		var req Request
		var resp Response
		// Read exactly: a member of another case or unknown is refused.
		if err := jsonv2.Unmarshal(line, &req, jsonv2.RejectUnknownMembers(true)); err != nil {
			resp = Response{Error: fmt.Sprintf("%v: %v", ErrRequest, err)}
		} else if req.Command != nil {
			s.call(ctx, c, r, *req.Command, func(outcome string) {
				s.count(-1)
				s.answered("command", outcome, begin)
			})
			return
		} else {
			resp = s.handle(ctx, req)
		}
		s.count(-1)
		outcome := "ok"
		if resp.Error != "" {
			outcome = "error"
		}
		s.answered(req.kind(), outcome, begin)
		if err := enc.Encode(resp); err != nil {
			return
		}
	}
}

func (s *Server) answered(kind, outcome string, begin time.Time) {
	if s.Answered != nil {
		s.Answered(kind, outcome, time.Since(begin))
	}
}

// kind names what a request asks, for the log and the metrics.
func (r *Request) kind() string {
	switch {
	case r.Control != "":
		return "control"
	case r.Point != "":
		return "dispatch"
	case r.Script != "":
		return "run"
	}
	return "invalid"
}

// count adds a request begun (1) or answered (-1).
func (s *Server) count(d int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight += d
	if d < 0 {
		s.calls++
	}
}

func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, chunk...)
		if len(line) > MaxRequestBytes {
			return nil, errors.New("request too large")
		}
		if !isPrefix {
			return line, nil
		}
	}
}

// Handle answers one request line (not a command line's call, which
// takes the connection).
func (s *Server) Handle(ctx context.Context, line []byte) Response {
	var req Request
	// Read exactly: a member of another case or unknown is refused.
	if err := jsonv2.Unmarshal(line, &req, jsonv2.RejectUnknownMembers(true)); err != nil {
		return Response{Error: fmt.Sprintf("%v: %v", ErrRequest, err)}
	}
	if req.Command != nil {
		return Response{Error: fmt.Sprintf("%v: a command line is a call of its own connection", ErrRequest)}
	}
	return s.handle(ctx, req)
}

func (s *Server) handle(ctx context.Context, req Request) Response {
	switch req.Control {
	case "":
	case "status":
		s.mu.Lock()
		st := s.Status
		st.Calls, st.InFlight = s.calls, s.inFlight-1 // not this one
		s.mu.Unlock()
		if s.Describe != nil {
			s.Describe(&st)
		}
		return Response{Status: &st}
	case "ping":
		return Response{Pong: true}
	case "stop":
		s.mu.Lock()
		if s.stop != nil {
			s.stop()
		}
		s.mu.Unlock()
		return Response{}
	default:
		return Response{Error: fmt.Sprintf("%v: control %q: want status, ping or stop", ErrRequest, req.Control)}
	}
	if req.Point != "" {
		return s.dispatch(ctx, req)
	}
	h, err := req.Hook()
	if err != nil {
		return Response{Error: err.Error()}
	}
	res, err := s.Executor.Run(ctx, h, req.Event)
	if err != nil {
		return Response{Error: err.Error()}
	}
	d, err := hook.Encode(h.Dialect, res.Trace.Point, res.Decision, res.Trace.Failure)
	if err != nil {
		return Response{Error: fmt.Sprintf("encode decision: %v", err)}
	}
	out := Response{Decision: json.RawMessage(d), Warning: res.Warning}
	if !res.Async && !res.Skipped {
		out.Trace = &res.Trace
	}
	return out
}

// dispatch answers a boundary from a snapshot taken now.
func (s *Server) dispatch(ctx context.Context, req Request) Response {
	if req.Script != "" {
		return Response{Error: fmt.Sprintf("%v: a request has a script (one hook) or a point (a boundary), not both", ErrRequest)}
	}
	b := dispatch.Boundary{StateDir: s.StateDir, Profile: req.Profile, Workspace: req.Workspace}
	if len(req.SessionHooks) > 0 {
		if !filepath.IsAbs(req.SessionDir) {
			return Response{Error: fmt.Sprintf("%v: session_dir must be an absolute path", ErrRequest)}
		}
		b.Session, b.SessionDir = req.SessionHooks, req.SessionDir
	}
	src, err := b.Sources()
	if err != nil {
		return Response{Error: err.Error()}
	}
	snap, err := registry.Take(src)
	if err != nil {
		return Response{Error: err.Error()}
	}
	d, err := dispatch.New(dispatch.Options{Executor: s.Executor, AllowRoots: b.AllowRoots()})
	if err != nil {
		return Response{Error: err.Error()}
	}
	res, err := d.Dispatch(ctx, snap, req.Point, req.Event)
	if err != nil {
		return Response{Error: err.Error()}
	}
	return Response{Dispatch: res}
}
