package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/containerd"
	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/backend/local"
	"github.com/hookexec/hook-exec/images"
	"github.com/hookexec/hook-exec/launcher"
)

// backendName resolves --backend, then HOOKEXEC_BACKEND, then docker.
func backendName(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	if v := os.Getenv("HOOKEXEC_BACKEND"); v != "" {
		return v
	}
	return "docker"
}

// engine is a connected backend plus what the CLI needs beside it.
type engine struct {
	backend.Backend
	docker     *docker.Backend
	containerd *containerd.Backend

	mu     sync.Mutex
	images map[launcher.Lang]string

	swept chan struct{} // closed when the start-up sweep is done
}

// sweepTimeout bounds the start-up sweep of orphans.
const sweepTimeout = 10 * time.Second

// sweeper is what the container backends offer to remove orphans.
type sweeper interface {
	Sweep(ctx context.Context, all bool) (int, error)
}

// sweepOrphans removes, in the background, the sandboxes of hook-exec
// processes that died (SIGKILL, crash) before they could: every command
// that opens an engine does it. Sandboxes of live owners are never touched.
func (e *engine) sweepOrphans(s sweeper) {
	e.swept = make(chan struct{})
	go func() {
		defer close(e.swept)
		ctx, cancel := context.WithTimeout(context.Background(), sweepTimeout)
		defer cancel()
		s.Sweep(ctx, false) // best effort: `hook-exec gc` reports errors
	}()
}

// Close waits for the start-up sweep, then closes the backend.
func (e *engine) Close() error {
	if e.swept != nil {
		<-e.swept
	}
	return e.Backend.Close()
}

// openEngine opens the engine --backend names; with sweep, the sandboxes
// of dead hook-exec processes are removed in the background.
func openEngine(g *globals, sweep bool) (*engine, error) {
	noStartupSweep := !sweep
	containerdAddress := g.containerdAddress
	name := backendName(g.backend)
	switch name {
	case "containerd":
		c, err := containerd.New(context.Background(), containerdAddress)
		if err != nil {
			return nil, err
		}
		e := &engine{Backend: c, containerd: c, images: map[launcher.Lang]string{}}
		if !noStartupSweep {
			e.sweepOrphans(c)
		}
		return e, nil
	case "docker":
		d, err := docker.New()
		if err != nil {
			return nil, err
		}
		e := &engine{Backend: d, docker: d, images: map[launcher.Lang]string{}}
		if !noStartupSweep {
			e.sweepOrphans(d)
		}
		return e, nil
	case "local":
		return &engine{Backend: local.New(), images: map[launcher.Lang]string{}}, nil
	}
	return nil, fmt.Errorf("unknown backend %q: use docker, containerd or local", name)
}

// unavailable stands for an engine that could not be reached: every run
// fails with the error that says which address was tried.
type unavailable struct {
	name string
	err  error
}

func (u unavailable) Name() string    { return u.name }
func (u unavailable) Isolating() bool { return true }
func (u unavailable) Close() error    { return nil }
func (u unavailable) Run(context.Context, *backend.Run) (*backend.Outcome, error) {
	return nil, u.err
}

// defaultImage finds the newest reference image for a language.
func (e *engine) defaultImage(ctx context.Context, lang launcher.Lang) (string, error) {
	if u, ok := e.Backend.(unavailable); ok {
		return "", u.err
	}
	if e.docker == nil && e.containerd == nil {
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
	var ref string
	var err error
	if e.containerd != nil {
		if ref, err = e.containerd.Newest(ctx, r.Repo()); err == nil && ref == "" {
			err = fmt.Errorf("%w: no %s image in containerd namespace %s: run `hook-exec images build --backend containerd`", images.ErrNotBuilt, r.Name, containerd.Namespace)
		}
	} else {
		ref, err = images.Find(ctx, e.docker.Client(), r)
	}
	if err != nil {
		return "", err
	}
	e.images[lang] = ref
	return ref, nil
}
