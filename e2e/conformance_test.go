package e2e

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend/backendtest"
	"github.com/hookexec/hook-exec/backend/containerd"
	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/backend/kubernetes"
	"github.com/hookexec/hook-exec/launcher"
)

// TestBackendConformance runs the backends' shared suite (backendtest) on
// every engine under test, case for case: Docker and containerd, both
// under runsc in the runsc pass, the Kubernetes backend in its pass.
func TestBackendConformance(t *testing.T) {
	t.Parallel()
	for _, eng := range slices.Concat(engines(t), runtimeEngines(t), sshEngines(t), podmanEngines(t), rootlessEngines(t), k8sEngines(t)) {
		t.Run(eng.label(), func(t *testing.T) {
			t.Parallel()
			b := ownBackend(t, eng)
			backendtest.Run(t, backendtest.Config{Backend: b, Image: eng.refs[launcher.Shell], Left: backendtest.Managed(b), AnswerBound: true})
		})
		if eng.runtime == "" && eng.name != "kubernetes" && eng.via != "ssh" {
			// The same cases streamed over the backend's channel (FIFOs), as
			// the shell launcher's sandboxes are.
			t.Run(eng.label()+"/channel", func(t *testing.T) {
				t.Parallel()
				b := ownBackend(t, eng)
				backendtest.Run(t, backendtest.Config{Backend: b, Image: eng.refs[launcher.Shell], Left: backendtest.Managed(b), AnswerBound: true, Channel: true})
			})
		}
	}
}

// ownBackend opens a backend value of its own on eng's engine and runtime,
// closed when the test ends: the suite waits for its background cleanups
// after every case, and those of the other suites' runs are not its own.
func ownBackend(t *testing.T, eng engineUnderTest) managedLister {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var b managedLister
	var err error
	switch eng.b.(type) {
	case *docker.Backend:
		var d *docker.Backend
		open := docker.New
		switch eng.via {
		case "ssh":
			open = sshOpen
		case "podman":
			open = podmanOpen
		case "rootless":
			open = rootlessOpen
		}
		if d, err = open(); err == nil {
			b = d
			err = d.SetRuntime(ctx, eng.runtime)
		}
	case *containerd.Backend:
		var c *containerd.Backend
		if c, err = containerd.New(ctx, ""); err == nil {
			b = c
			err = c.SetRuntime(eng.runtime)
		}
	case *kubernetes.Backend:
		var k *kubernetes.Backend
		if k, err = kubernetes.New(ctx, k8sOptions()); err == nil {
			b = k
		}
	default:
		err = errors.New("no way to open another backend of this kind")
	}
	if b != nil {
		t.Cleanup(func() {
			if err := b.Close(); err != nil {
				t.Errorf("close the %s backend: %v", eng.label(), err)
			}
		})
	}
	if err != nil {
		t.Fatalf("open a %s backend: %v", eng.label(), err)
	}
	return b
}
