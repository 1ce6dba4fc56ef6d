// Package engine opens the configured backend and finds reference images:
// the one place that turns a backend's name (a flag, HOOKEXEC_BACKEND) into
// a connected backend, sweeps what dead hook-exec processes left behind,
// and knows where each language's reference image is. The CLI, serve and
// the e2e suites open engines through it (hookexectest opens Docker
// itself, so that it does not compile the Kubernetes client).
package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/backend/kubernetes"
	"github.com/hookexec/hook-exec/images"
	"github.com/hookexec/hook-exec/internal/admission"
	"github.com/hookexec/hook-exec/internal/statedir"
	"github.com/hookexec/hook-exec/launcher"
)

var (
	// ErrUnknownBackend: a name that is not one of [Names].
	ErrUnknownBackend = errors.New("unknown backend")
	// ErrNoImages: the backend (local) holds no images.
	ErrNoImages = errors.New("the backend holds no images")
	// ErrNoSandboxes: the backend (local) leaves no sandboxes to sweep.
	ErrNoSandboxes = errors.New("the backend leaves no sandboxes")
)

// SweepTimeout bounds the background sweep of orphans at open.
const SweepTimeout = 10 * time.Second

// Name resolves a backend's name: given, then HOOKEXEC_BACKEND, then docker.
func Name(given string) string {
	if given != "" {
		return given
	}
	if v := os.Getenv("HOOKEXEC_BACKEND"); v != "" {
		return v
	}
	return "docker"
}

// RuntimeName resolves an OCI runtime's name: given, then HOOKEXEC_RUNTIME;
// "" is the engine's default.
func RuntimeName(given string) string {
	if given != "" {
		return given
	}
	return os.Getenv("HOOKEXEC_RUNTIME")
}

// Options say which engine to open and how.
type Options struct {
	// Backend is docker, containerd, kubernetes or local; "" resolves through [Name].
	Backend string
	// Runtime is the OCI runtime every sandbox runs under: runc, runsc
	// (gVisor), or another the engine knows (see the backends' SetRuntime);
	// "" means HOOKEXEC_RUNTIME, then the engine's default (runc). A runtime
	// the engine lacks fails Open with backend.ErrRuntime.
	Runtime string
	// ContainerdAddress is the containerd socket; "" means
	// HOOKEXEC_CONTAINERD_ADDRESS, then the usual sockets.
	ContainerdAddress string
	// Sweep removes, in the background, the sandboxes of hook-exec
	// processes that died (SIGKILL, crash) before they could. Close waits
	// for it. Sandboxes of live owners are never touched.
	Sweep bool
	// Ping checks at open that the engine answers, so that an unreachable
	// engine is reported at once (wrapping backend.ErrEngine).
	Ping bool
	// BuildMissing builds a reference image that the Docker engine lacks
	// instead of failing with images.ErrNotBuilt; BuildOut gets the
	// build's progress (nil: discarded).
	BuildMissing bool
	BuildOut     io.Writer
	// Kubernetes says which cluster and namespace the kubernetes backend
	// runs its pods in; its RuntimeClass is Runtime.
	Kubernetes kubernetes.Options
	// Reaper is a hook-exec binary to start as this process's reaper
	// (see [Reap]): if this process dies without closing the Engine, its
	// sandboxes are removed at once. "": none (a library host sweeps at
	// its next start). HOOKEXEC_REAPER=0 turns it off.
	Reaper string
}

// Flags are the CLI's flags that open this engine in another hook-exec
// process (a reaper, a boundary's observers): the backend, its socket, the
// cluster and how its pods are made. The runtime is left to the caller: a
// reaper runs no sandbox.
func (o Options) Flags() []string {
	args := []string{"--backend", Name(o.Backend)}
	for _, f := range [][2]string{
		{"--containerd-address", o.ContainerdAddress},
		{"--kubeconfig", o.Kubernetes.Kubeconfig}, {"--kube-context", o.Kubernetes.Context},
		{"--k8s-namespace", o.Kubernetes.Namespace}, {"--k8s-seccomp", o.Kubernetes.Seccomp},
		{"--k8s-pull-policy", string(o.Kubernetes.PullPolicy)},
	} {
		if f[1] != "" {
			args = append(args, f[0], f[1])
		}
	}
	return args
}

// Engine is a connected backend and the reference images it holds.
type Engine struct {
	backend backend.Backend
	reg     registration
	opts    Options

	mu     sync.Mutex
	images map[launcher.Lang]string

	swept  chan struct{}  // closed when the sweep at open is done
	reaper io.WriteCloser // told "done" at Close
}

// Open connects to the engine o names.
func Open(ctx context.Context, o Options) (*Engine, error) {
	name := Name(o.Backend)
	reg, ok := backends[name]
	if !ok {
		return nil, fmt.Errorf("%q: %w: use %s", name, ErrUnknownBackend, namesText())
	}
	b, err := reg.open(ctx, o)
	if err != nil {
		return nil, err
	}
	e := &Engine{backend: b, reg: reg, opts: o, images: map[launcher.Lang]string{}}
	if _, ok := b.(backend.Sweeper); !ok {
		return e, nil // nothing of it outlives this process: no reaper, no sweep
	}
	if o.Reaper != "" && os.Getenv(ReaperEnv) != "0" {
		w, err := startReaper(o.Reaper, o)
		if err != nil {
			e.backend.Close()
			return nil, err
		}
		e.reaper = w
	}
	if o.Sweep {
		e.swept = make(chan struct{})
		go func() {
			defer close(e.swept)
			ctx, cancel := context.WithTimeout(context.Background(), SweepTimeout)
			defer cancel()
			e.Sweep(ctx, false) // best effort: `hook-exec gc` reports errors
		}()
	}
	return e, nil
}

// Unavailable returns an Engine that stands for one that could not be
// reached: every run, and every image lookup, fails with err.
func Unavailable(name string, err error) *Engine {
	return &Engine{backend: unavailable{name: name, err: err}, images: map[launcher.Lang]string{}}
}

// Backend is the connected backend itself (a backend.Warmer for docker and
// containerd), for the executor.
func (e *Engine) Backend() backend.Backend { return e.backend }

// Docker is the Docker backend, or nil.
func (e *Engine) Docker() *docker.Backend {
	d, _ := e.backend.(*docker.Backend)
	return d
}

// Ping reports whether the engine answers now (a backend that cannot say,
// such as a remote cluster's, is not asked: nil).
func (e *Engine) Ping(ctx context.Context) error {
	if p, ok := e.backend.(backend.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

// Close waits for the sweep at open, then closes the backend.
func (e *Engine) Close() error {
	if e.reaper != nil {
		defer func() {
			io.WriteString(e.reaper, reaperDone) // after the backend's cleanups: nothing left
			e.reaper.Close()
		}()
	}
	if e.swept != nil {
		<-e.swept
	}
	return e.backend.Close()
}

// Leave ends this process's use of the engine at once, where a reaper
// watches it: the removals still in flight, and the sweep at open, are
// left to the reaper, which does them once this process is gone (as for an
// owner killed), so that a host waiting for this process's exit does not
// wait for them. Without a reaper it is Close.
func (e *Engine) Leave() error {
	if e.reaper == nil {
		return e.Close()
	}
	// A channel probe still running is waited for, bounded: cut short
	// by the exit it would decide nothing, and every later call would
	// probe again (once it has decided, no call of this boot probes).
	if p, ok := e.backend.(interface{ WaitProbe(context.Context) error }); ok {
		ctx, cancel := context.WithTimeout(context.Background(), probeWait)
		p.WaitProbe(ctx)
		cancel()
	}
	return nil // this process exits: the reaper reads the end without "done"
}

// probeWait bounds Leave's wait for a channel probe (its own bound is 20 s
// past its sandbox's start; a healthy engine's takes a cold start).
const probeWait = 25 * time.Second

// Sweep removes the sandboxes of dead hook-exec processes, or, with all,
// every hook-exec sandbox; it returns how many it removed.
func (e *Engine) Sweep(ctx context.Context, all bool) (int, error) {
	if sw, ok := e.backend.(backend.Sweeper); ok {
		return sw.Sweep(ctx, all)
	}
	return 0, fmt.Errorf("%s: %w", e.backend.Name(), ErrNoSandboxes)
}

// DefaultImage finds the newest reference image for a language (building
// it with Options.BuildMissing); the answer is kept for the Engine's life.
func (e *Engine) DefaultImage(ctx context.Context, lang launcher.Lang) (string, error) {
	if u, ok := e.backend.(unavailable); ok {
		return "", u.err
	}
	if e.reg.image == nil {
		return "", fmt.Errorf("%w: no engine to find the %s image in", backend.ErrEngine, lang)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if ref, ok := e.images[lang]; ok {
		return ref, nil
	}
	r, ok := images.ForLang(string(lang))
	if !ok {
		return "", fmt.Errorf("%q: %w", lang, launcher.ErrLang)
	}
	ref, err := e.reg.image(ctx, e, r)
	if err != nil {
		return "", err
	}
	e.images[lang] = ref
	return ref, nil
}

func (e *Engine) buildOut() io.Writer {
	if e.opts.BuildOut == nil {
		return io.Discard
	}
	return e.opts.BuildOut
}

// unavailable stands for an engine that could not be reached.
type unavailable struct {
	name string
	err  error
}

var _ backend.Backend = unavailable{}

func (u unavailable) Name() string    { return u.name }
func (u unavailable) Isolating() bool { return true }
func (u unavailable) Close() error    { return nil }
func (u unavailable) Run(context.Context, *backend.Run) (*backend.Outcome, error) {
	return nil, u.err
}

// Admission returns the engine's creation limiter, shared through
// stateDir ("" means statedir.Default) with every hook-exec process on
// this machine that uses the same engine, so that a host spawning one
// `hook-exec run` per hook cannot stampede it. Without a usable state
// directory the limiter is this process's own, with a warning to warn.
func (e *Engine) Admission(stateDir string, warn io.Writer) *admission.Limiter {
	name := e.backend.Name()
	key := name
	if a, ok := e.backend.(backend.Addressed); ok {
		key += " " + a.Address()
	}
	if stateDir == "" {
		stateDir, _ = statedir.Default(os.Getenv, os.UserHomeDir)
	}
	dir := ""
	if stateDir != "" {
		sum := sha256.Sum256([]byte(key))
		dir = filepath.Join(stateDir, "admission", name+"-"+hex.EncodeToString(sum[:6]))
	}
	l, err := admission.New(admission.Options{Dir: dir})
	if err != nil {
		if warn != nil {
			fmt.Fprintf(warn, "hook-exec: warning: engine admission is per process: %v\n", err)
		}
		l, _ = admission.New(admission.Options{}) // no directory: cannot fail
	}
	return l
}
