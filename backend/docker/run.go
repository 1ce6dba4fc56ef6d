package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

func randomName() string {
	var b [8]byte
	rand.Read(b[:])
	return "hookexec-" + hex.EncodeToString(b[:])
}

// Run implements backend.Backend.
func (b *Backend) Run(ctx context.Context, r *backend.Run) (*backend.Outcome, error) {
	return backend.RunPrepared(ctx, r, b.prepare, b.channels())
}

// prepare runs create -> attach -> wait registered -> start under ctx. The
// wait lives under life (the run's context, or none for a warm sandbox).
// On failure what was made is removed.
func (b *Backend) prepare(ctx, life context.Context, spec *sandbox.Spec) (_ *backend.Prepared, retErr error) {
	if spec.Image == "" {
		return nil, fmt.Errorf("%w: no image given", backend.ErrImageNotFound)
	}
	// A step cut short by the caller's deadline is a timeout, whatever error
	// the engine gave for it.
	defer func() {
		if retErr != nil && !errors.Is(retErr, backend.ErrPrepareTimeout) && backend.Expired(ctx) {
			retErr = backend.ErrPrepareTimeout
		}
	}()
	cfg, hc, err := b.config(ctx, spec)
	if err != nil {
		return nil, err
	}
	maps.Copy(cfg.Labels, backend.OwnerLabels())
	// The container goes on any failure below, found by a name chosen
	// before create answers; an abandoned create removes what it made itself,
	// in the background.
	name := randomName()
	abandoned := false
	begin := time.Now()
	defer func() {
		if retErr != nil && !abandoned {
			retErr = errors.Join(retErr, b.remove(ctx, name))
		}
	}()
	created, err := b.create(ctx, cfg, hc, name)
	switch {
	case err == nil:
	case errors.Is(err, errAbandoned):
		abandoned = true
		return nil, backend.ErrPrepareTimeout
	case errdefs.IsNotFound(err):
		return nil, fmt.Errorf("%w: %q: %w", backend.ErrImageNotFound, spec.Image, err)
	default:
		return nil, b.engineErr("create container", err)
	}
	s := &started{b: b, name: name, id: created.ID, exitC: make(chan backend.Exit, 1)}
	attached, err := b.cli.ContainerAttach(ctx, s.id, client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		if backend.Expired(ctx) {
			return nil, backend.ErrPrepareTimeout
		}
		return nil, b.engineErr("attach", err)
	}
	s.hj = attached.HijackedResponse
	// Without a half-close the script never sees the end of its event (the
	// client's own HijackedResponse.CloseWrite would do nothing, silently).
	var ok bool
	if s.halfCloser, ok = s.hj.Conn.(interface{ CloseWrite() error }); !ok {
		s.hj.Close()
		return nil, fmt.Errorf("%w (engine at %s, connection %T)", backend.ErrNoHalfClose, b.cli.DaemonHost(), s.hj.Conn)
	}
	// The wait outlives the caller's deadline: after a kill we still read the exit.
	startBegin := time.Now()
	var waitCtx context.Context
	waitCtx, s.cancelWait = context.WithCancel(context.WithoutCancel(life))
	wait := b.cli.ContainerWait(waitCtx, s.id, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := b.cli.ContainerStart(ctx, s.id, client.ContainerStartOptions{}); err != nil {
		s.cancelWait()
		s.hj.Close()
		if backend.Expired(ctx) {
			return nil, backend.ErrPrepareTimeout
		}
		if errdefs.IsNotFound(err) || errdefs.IsInternal(err) || errdefs.IsInvalidArgument(err) || errdefs.IsUnknown(err) {
			return nil, fmt.Errorf("%w: %w", backend.ErrStart, err)
		}
		return nil, b.engineErr("start", err)
	}
	// One answer from the wait, in the shared form; the wait's context ends
	// with Release, so this ends too.
	go func() {
		select {
		case r := <-wait.Result:
			if r.Error != nil && r.Error.Message != "" {
				s.exitC <- backend.Exit{Err: b.engineErr("wait", errors.New(r.Error.Message))}
				return
			}
			s.exitC <- backend.Exit{Code: int(r.StatusCode)}
		case err := <-wait.Error:
			s.exitC <- backend.Exit{Err: b.engineErr("wait", err)}
		}
	}()
	s.oom = watchOOM(s.id)
	return backend.NewPrepared(s, startBegin.Sub(begin), time.Since(startBegin), &b.cleanups), nil
}

var errAbandoned = errors.New("create abandoned at the deadline")

// create creates the container under its own bounded context, so that the
// engine never finishes a create nobody waits for: when the caller's
// deadline comes first, the create goes on in the background and the
// container it makes is removed there.
func (b *Backend) create(ctx context.Context, cfg *container.Config, hc *container.HostConfig, name string) (client.ContainerCreateResult, error) {
	type result struct {
		resp client.ContainerCreateResult
		err  error
	}
	ch := make(chan result, 1)
	var mu sync.Mutex
	gaveUp := false
	b.cleanups.Go(func() error {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
		defer cancel()
		resp, err := b.cli.ContainerCreate(cctx, client.ContainerCreateOptions{Config: cfg, HostConfig: hc, Name: name})
		mu.Lock()
		abandoned := gaveUp
		if !abandoned {
			ch <- result{resp, err}
		}
		mu.Unlock()
		if abandoned {
			// Even a create that failed here may have been made by the
			// engine: the name finds it.
			return b.remove(ctx, name)
		}
		return nil
	})
	select {
	case r := <-ch:
		return r.resp, r.err
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		gaveUp = true
		select {
		case r := <-ch: // it finished just now: remove it in the background
			if r.err == nil {
				b.cleanups.Go(func() error { return b.remove(ctx, name) })
			}
		default:
		}
		return client.ContainerCreateResult{}, errAbandoned
	}
}
