package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/containerd"
	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/backend/kubernetes"
	"github.com/hookexec/hook-exec/backend/local"
	"github.com/hookexec/hook-exec/images"
)

// A backend is a registration: how Open connects to it, and, for one whose
// engine holds images, how its reference image is found. What else the
// engine does with it (ping, sweep, admission) it learns from the optional
// interfaces the backend implements (backend.Pinger, backend.Sweeper,
// backend.Addressed). A new backend is a package and one line here.
type registration struct {
	open func(ctx context.Context, o Options) (backend.Backend, error)
	// image finds the reference image of recipe r on the engine (nil: the
	// backend holds no images).
	image func(ctx context.Context, e *Engine, r images.Recipe) (string, error)
}

var backends = map[string]registration{
	"docker":     {open: openDocker, image: dockerImage},
	"containerd": {open: openContainerd, image: heldImage("run `hook-exec images build --backend containerd` (images go into containerd namespace " + containerd.Namespace + ")")},
	"kubernetes": {open: openKubernetes, image: heldImage("load one on the cluster's nodes (make e2e-k8s imports them) or give --image")},
	"local":      {open: openLocal},
}

// Names are the backends Open knows, sorted.
func Names() []string {
	var out []string
	for n := range backends {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// namesText is Names as a message says them: "a, b, c or d".
func namesText() string {
	n := Names()
	if len(n) < 2 {
		return strings.Join(n, "")
	}
	return strings.Join(n[:len(n)-1], ", ") + " or " + n[len(n)-1]
}

func openDocker(ctx context.Context, o Options) (backend.Backend, error) {
	d, err := docker.New()
	if err == nil && o.Ping {
		err = d.Ping(ctx)
	}
	if err == nil {
		err = d.SetRuntime(ctx, RuntimeName(o.Runtime))
	}
	if err != nil {
		if d != nil {
			d.Close()
		}
		return nil, err
	}
	return d, nil
}

func openContainerd(ctx context.Context, o Options) (backend.Backend, error) {
	c, err := containerd.New(ctx, o.ContainerdAddress)
	if err != nil {
		return nil, err
	}
	if err := c.SetRuntime(RuntimeName(o.Runtime)); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func openKubernetes(ctx context.Context, o Options) (backend.Backend, error) {
	ko := o.Kubernetes
	ko.RuntimeClass = RuntimeName(o.Runtime)
	k, err := kubernetes.New(ctx, ko)
	if err != nil {
		return nil, err
	}
	return k, nil
}

func openLocal(_ context.Context, o Options) (backend.Backend, error) {
	if rt := RuntimeName(o.Runtime); rt != "" {
		return nil, fmt.Errorf("%w: runtime %q: the local backend runs no container", backend.ErrRuntime, rt)
	}
	return local.New(), nil
}

// dockerImage finds r's image in the Docker engine, the one images are
// built in (building it with Options.BuildMissing).
func dockerImage(ctx context.Context, e *Engine, r images.Recipe) (string, error) {
	d := e.backend.(*docker.Backend)
	ref, err := images.Find(ctx, d.Client(), r)
	if errors.Is(err, images.ErrNotBuilt) && e.opts.BuildMissing {
		ref, err = (&images.Builder{Docker: d.Client(), Out: e.buildOut()}).Build(ctx, r)
	}
	return ref, err
}

// heldImage finds the newest image of r's repository the engine holds
// (a backend.ImageHolder); get says how to put one there.
func heldImage(get string) func(ctx context.Context, e *Engine, r images.Recipe) (string, error) {
	return func(ctx context.Context, e *Engine, r images.Recipe) (string, error) {
		h, ok := e.backend.(backend.ImageHolder)
		if !ok {
			return "", fmt.Errorf("%w: %s holds no images", backend.ErrEngine, e.backend.Name())
		}
		ref, err := h.Newest(ctx, r.Repo())
		if err == nil && ref == "" {
			err = fmt.Errorf("%w: the %s engine holds no %s image: %s", images.ErrNotBuilt, e.backend.Name(), r.Name, get)
		}
		return ref, err
	}
}
