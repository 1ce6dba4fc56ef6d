// Package hookexectest is for plugin authors' testcontainers-go suites: a
// customizer that gives any test container hook-exec's hardened sandbox,
// and a helper that runs one hook script on one event through hook-exec's
// executor, in a real sandbox, and returns the decision.
//
// Set TESTCONTAINERS_RYUK_DISABLED=true where no registry serves the
// reaper image; hook-exec's own labels and `hook-exec gc` find what a
// crashed test leaves.
package hookexectest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/images"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// Sandbox applies hook-exec's hardened sandbox to a container request,
// exactly as a hook's sandbox gets it: the host configuration is the Docker
// backend's own conversion (docker.Config) of the sandbox description, so
// non-root 65534:65534, read-only root, a nosuid,nodev,noexec /tmp tmpfs,
// no network, every capability dropped, no-new-privileges and hook-exec's
// seccomp profile, memory (swap equal), pids and CPU limits, the nofile and
// fsize limits, and the managed labels. Sandbox options (sandbox.WithLimits,
// a named loosening) change it the same way they change a hook's sandbox.
// The request keeps its image, command, entrypoint, stdin settings and
// mounts, and its log driver, so the test can read the logs; the sandbox's
// environment comes before the request's own.
func Sandbox(opts ...sandbox.Option) testcontainers.CustomizeRequestOption {
	return func(req *testcontainers.GenericContainerRequest) error {
		s, err := sandbox.New(req.Image, []string{"placeholder"}, opts...)
		if err != nil {
			return err
		}
		// The Docker backend and testcontainers-go share the Engine API's
		// types (github.com/moby/moby/api).
		cfg, hc := docker.Config(s)
		if req.Labels == nil {
			req.Labels = map[string]string{}
		}
		maps.Copy(req.Labels, cfg.Labels)
		maps.Copy(req.Labels, backend.OwnerLabels())
		req.ConfigModifier = chain(req.ConfigModifier, func(c *container.Config) {
			c.User, c.Hostname, c.NetworkDisabled = cfg.User, cfg.Hostname, cfg.NetworkDisabled
			c.Env = append(slices.Clone(cfg.Env), c.Env...)
		})
		req.HostConfigModifier = chainHost(req.HostConfigModifier, func(h *container.HostConfig) {
			hardened := *hc
			hardened.LogConfig = h.LogConfig
			hardened.Mounts = append(slices.Clone(hc.Mounts), h.Mounts...)
			hardened.Binds = h.Binds
			*h = hardened
		})
		return nil
	}
}

func chain(prev, next func(*container.Config)) func(*container.Config) {
	return func(c *container.Config) {
		if prev != nil {
			prev(c)
		}
		next(c)
	}
}

func chainHost(prev, next func(*container.HostConfig)) func(*container.HostConfig) {
	return func(hc *container.HostConfig) {
		if prev != nil {
			prev(hc)
		}
		next(hc)
	}
}

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
