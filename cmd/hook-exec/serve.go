package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
)

// serveRequest is one run asked of `hook-exec serve`: one JSON object on
// one line, answered by one JSON line.
type serveRequest struct {
	Script        string            `json:"script"` // absolute path of the .sh or .py file
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
}

type serveResponse struct {
	Decision json.RawMessage `json:"decision,omitempty"` // in the hook's dialect
	Trace    *hook.Trace     `json:"trace,omitempty"`
	Warning  string          `json:"warning,omitempty"`
	Error    string          `json:"error,omitempty"`
}

// maxRequestBytes bounds one request line.
const maxRequestBytes = 32 << 20

func cmdServe(ctx context.Context, args []string, io stdio) int {
	fs := newFlagSet("serve", io.err)
	socket := fs.String("socket", "", "unix socket `PATH` to listen on (required)")
	backendFlag := fs.String("backend", "", "engine: docker (default; env HOOKEXEC_BACKEND), containerd or local")
	poolSize := fs.Int("pool", 2, "sandboxes per shape started ahead (0: none)")
	if _, err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	if *socket == "" {
		return usageErr(io.err, "serve: --socket is required")
	}
	eng, err := openEngine(backendName(*backendFlag))
	if err != nil {
		return usageErr(io.err, "serve: %v", err)
	}
	defer eng.Close()
	ex, err := executor.New(executor.Options{
		Backend: eng.Backend, DefaultImage: eng.defaultImage, Pool: *poolSize, Admission: eng.admission(io, ""),
		Logf: func(format string, a ...any) { fmt.Fprintf(io.err, format+"\n", a...) },
	})
	if err != nil {
		return usageErr(io.err, "serve: %v", err)
	}
	os.Remove(*socket)
	ln, err := net.Listen("unix", *socket)
	if err != nil {
		return usageErr(io.err, "serve: %v", err)
	}
	os.Chmod(*socket, 0o600)
	fmt.Fprintf(io.err, "hook-exec: serving on %s\n", *socket)
	var conns sync.WaitGroup
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		c, err := ln.Accept()
		if err != nil {
			break
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			defer c.Close()
			serveConn(ctx, ex, c)
		}()
	}
	conns.Wait()
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := ex.Shutdown(sctx); err != nil {
		fmt.Fprintf(io.err, "hook-exec: serve: %v\n", err)
	}
	os.Remove(*socket)
	return exitOK
}

// serveConn answers the requests of one connection, one line each.
func serveConn(ctx context.Context, ex *executor.Executor, c net.Conn) {
	r := bufio.NewReaderSize(c, 64<<10)
	enc := json.NewEncoder(c)
	for {
		line, err := readLine(r)
		if err != nil {
			return
		}
		enc.Encode(serveOne(ctx, ex, line))
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
		if len(line) > maxRequestBytes {
			return nil, errors.New("request too large")
		}
		if !isPrefix {
			return line, nil
		}
	}
}

func serveOne(ctx context.Context, ex *executor.Executor, line []byte) serveResponse {
	var req serveRequest
	if err := json.Unmarshal(line, &req); err != nil {
		return serveResponse{Error: "invalid request: " + err.Error()}
	}
	if !filepath.IsAbs(req.Script) {
		return serveResponse{Error: "script must be an absolute path"}
	}
	dialect := hook.Holaryn
	if req.Dialect != "" {
		d, err := hook.ParseDialect(req.Dialect)
		if err != nil {
			return serveResponse{Error: err.Error()}
		}
		dialect = d
	}
	h := hook.Hook{
		ID: req.HookID, Dialect: dialect, Scope: hook.Scope(req.Scope), Mode: hook.Mode(req.Mode),
		FailurePolicy: hook.FailurePolicy(req.FailurePolicy), Matcher: req.Matcher,
		Timeout: time.Duration(req.TimeoutMS) * time.Millisecond, Image: req.Image, Env: req.Env,
		PluginDir: filepath.Dir(req.Script), Script: filepath.Base(req.Script), SHA256: req.SHA256,
	}
	if h.ID == "" {
		h.ID = h.Script
	}
	res, err := ex.Run(ctx, h, req.Event)
	if err != nil {
		return serveResponse{Error: err.Error()}
	}
	d, _ := hook.Encode(dialect, res.Decision)
	out := serveResponse{Decision: json.RawMessage(d), Warning: res.Warning}
	if !res.Async && !res.Skipped {
		out.Trace = &res.Trace
	}
	return out
}
