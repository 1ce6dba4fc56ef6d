package kubernetes

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// Run implements backend.Backend.
func (b *Backend) Run(ctx context.Context, r *backend.Run) (*backend.Outcome, error) {
	return backend.RunPrepared(ctx, r, b.prepare, nil)
}

func randomName() string {
	var r [8]byte
	rand.Read(r[:])
	return "hookexec-" + hex.EncodeToString(r[:])
}

// prepare creates the pod under ctx and waits for its container to run;
// the watch lives under life. On failure the pod is removed.
func (b *Backend) prepare(ctx, life context.Context, rs *sandbox.Spec) (_ *backend.Prepared, retErr error) {
	defer func() {
		if retErr != nil && backend.Expired(ctx) {
			retErr = backend.ErrPrepareTimeout
		}
	}()
	begin := time.Now()
	deadline := warmDeadline
	if d, ok := ctx.Deadline(); ok && life == ctx {
		deadline = time.Until(d) + deadlineSlack
	}
	name := randomName()
	pod, err := b.podFor(name, rs, deadline)
	if err != nil {
		return nil, err
	}
	p := &startedPod{b: b, name: name, exited: make(chan backend.Exit, 1), running: make(chan struct{}),
		failed: make(chan struct{}), streamed: make(chan struct{})}
	p.life, p.cancel = context.WithCancel(context.WithoutCancel(life))
	defer func() {
		if retErr != nil {
			p.cancel()
			// A create cut short may still have made the pod: it goes by name.
			b.cleanups.Go(func() error { return b.remove(ctx, name) })
		}
	}()
	created := &corev1.Pod{}
	if err := b.api.pods(b.o.Namespace).create(ctx, pod, created); err != nil {
		if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) {
			return nil, fmt.Errorf("%w: the cluster refused the pod: %w", backend.ErrStart, err)
		}
		return nil, b.engineErr("create pod", err)
	}
	startBegin := time.Now()
	go p.watch(created.ResourceVersion)
	select {
	case <-p.running:
	case <-p.failed:
		return nil, p.startErr
	case <-ctx.Done():
		return nil, backend.ErrPrepareTimeout
	}
	return backend.NewPrepared(p, startBegin.Sub(begin), time.Since(startBegin), &b.cleanups), nil
}
