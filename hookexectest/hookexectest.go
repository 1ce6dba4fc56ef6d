// Package hookexectest is for plugin authors' test suites: RunHook runs
// one hook script on one event through hook-exec's executor, in a real
// sandbox, and returns the decision. Its subpackage tcsandbox gives a
// testcontainers-go container the same sandbox.
//
// Set TESTCONTAINERS_RYUK_DISABLED=true where no registry serves the
// reaper image; hook-exec's own labels and `hook-exec gc` find what a
// crashed test leaves.
package hookexectest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/images"
	"github.com/hookexec/hook-exec/launcher"
)

// RunHook runs the hook script at scriptPath (a .sh or .py file) on event
// in a real sandbox on the local Docker engine (DOCKER_HOST, under the
// runtime HOOKEXEC_RUNTIME names) and returns the executor's result: the
// final decision and the trace. The reference images are built when
// missing. opts change the hook definition (mode, failure policy, timeout,
// dialect, ...) before it runs.
//
// It opens Docker itself rather than through backend/engine, so that a
// suite importing hookexectest does not compile the Kubernetes client.
func RunHook(tb testing.TB, scriptPath string, event []byte, opts ...func(*hook.Hook)) *executor.Result {
	tb.Helper()
	ctx := context.Background()
	d, err := docker.New()
	if err == nil {
		if err = d.SetRuntime(ctx, os.Getenv("HOOKEXEC_RUNTIME")); err != nil {
			d.Close()
		}
	}
	if err != nil {
		tb.Fatalf("hookexectest: %v", err)
	}
	defer d.Close()
	abs, err := filepath.Abs(scriptPath)
	if err != nil {
		tb.Fatalf("hookexectest: %v", err)
	}
	h := hook.Hook{ID: filepath.Base(abs), PluginDir: filepath.Dir(abs), Script: filepath.Base(abs), Timeout: 30 * time.Second}
	for _, o := range opts {
		o(&h)
	}
	var trace *hook.Trace
	ex, err := executor.New(executor.Options{
		Backend:      d,
		DefaultImage: func(ctx context.Context, lang launcher.Lang) (string, error) { return referenceImage(ctx, d, lang) },
		OnTrace:      func(tr hook.Trace) { trace = &tr },
	})
	if err != nil {
		tb.Fatalf("hookexectest: %v", err)
	}
	res, err := ex.Run(ctx, h, event)
	if err != nil {
		tb.Fatalf("hookexectest: run %s: %v", scriptPath, err)
	}
	// An observational hook runs in the background: wait for its trace.
	if err := ex.Shutdown(ctx); err != nil {
		tb.Fatalf("hookexectest: %v", err)
	}
	if res.Async && trace != nil {
		res.Trace = *trace
	}
	return res
}

// referenceImage is the newest reference image for lang in Docker, built
// when there is none.
func referenceImage(ctx context.Context, d *docker.Backend, lang launcher.Lang) (string, error) {
	r, ok := images.ForLang(string(lang))
	if !ok {
		return "", fmt.Errorf("%q: %w", lang, launcher.ErrLang)
	}
	ref, err := images.Find(ctx, d.Client(), r)
	if errors.Is(err, images.ErrNotBuilt) {
		ref, err = (&images.Builder{Docker: d.Client(), Out: os.Stderr}).Build(ctx, r)
	}
	return ref, err
}
