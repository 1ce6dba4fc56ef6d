package containerd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/snapshots"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

func randomID() string {
	var r [8]byte
	rand.Read(r[:])
	return "hookexec-" + hex.EncodeToString(r[:])
}

// eofReader reports when its reader is drained, so that stdin is closed
// only once the task exists: cio may reach EOF before NewTask returns.
type eofReader struct {
	r    io.Reader
	once sync.Once
	eof  chan struct{}
}

func (e *eofReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.once.Do(func() { close(e.eof) })
	}
	return n, err
}

// Run implements backend.Backend.
func (b *Backend) Run(ctx context.Context, r *backend.Run) (*backend.Outcome, error) {
	return backend.RunPrepared(ctx, r, b.prepare, b.channels())
}

// prepare makes the container and its task under ctx and starts it; the
// wait lives under life (the run's context, or none for a warm sandbox).
// On failure what was made is removed.
func (b *Backend) prepare(ctx, life context.Context, rs *sandbox.Spec) (_ *backend.Prepared, retErr error) {
	// A step cut short by the caller's deadline is a timeout, whatever error
	// the engine gave for it.
	defer func() {
		if retErr != nil && backend.Expired(ctx) {
			retErr = backend.ErrPrepareTimeout
		}
	}()
	begin := time.Now()
	img, imageEnv, err := b.image(ctx, rs.Image)
	if err != nil {
		return nil, err
	}
	id := randomID()
	spec, err := newSpec(ctx, id, rs, imageEnv, b.runtime)
	if err != nil {
		return nil, err
	}
	labels := maps.Clone(rs.Labels)
	maps.Copy(labels, backend.OwnerLabels())

	s := &startedTask{b: b, id: id, stdout: newSwitchWriter(), stderr: newSwitchWriter(), closed: make(chan struct{}), exited: make(chan backend.Exit, 1)}
	s.stdinR, s.stdinW = io.Pipe()
	stdin := &eofReader{r: s.stdinR, eof: make(chan struct{})}
	// An abandoned setup removes what it made itself, in the background;
	// either way the stdin copier that cio starts must see the pipe end.
	abandoned := false
	defer func() {
		if retErr != nil {
			s.stdinR.CloseWithError(io.ErrClosedPipe)
			// No run will set the writers: the output copiers, if cio
			// started them, end instead of waiting.
			s.stdout.set(io.Discard)
			s.stderr.set(io.Discard)
			if !abandoned {
				retErr = errors.Join(retErr, b.remove(ctx, id))
			}
		}
	}()
	s.task, err = b.setup(ctx, id, img, spec, labels, cio.NewCreator(cio.WithStreams(stdin, s.stdout, s.stderr)))
	switch {
	case errors.Is(err, errAbandoned):
		abandoned = true
		return nil, backend.ErrPrepareTimeout
	case err != nil:
		return nil, err
	}
	// Closing the IO removes its FIFOs; the task goes in remove.
	defer func() {
		if retErr != nil {
			s.task.IO().Close()
		}
	}()
	startBegin := time.Now()
	var waitCtx context.Context
	waitCtx, s.cancelWait = context.WithCancel(context.WithoutCancel(life))
	exitC, err := s.task.Wait(waitCtx)
	if err != nil {
		s.cancelWait()
		return nil, b.engineErr("wait", err)
	}
	if err := s.task.Start(ctx); err != nil {
		s.cancelWait()
		if backend.Expired(ctx) {
			return nil, backend.ErrPrepareTimeout
		}
		return nil, fmt.Errorf("%w: %w", backend.ErrStart, err)
	}
	// Stdin is closed once it is written and the task exists: cio may reach
	// EOF before NewTask returns, so the EOF is recorded and acted on here.
	go func() {
		defer close(s.closed)
		select {
		case <-stdin.eof:
			cctx, cancel := context.WithTimeout(context.Background(), backend.KillGrace)
			s.task.CloseIO(cctx, client.WithStdinCloser)
			cancel()
		case <-waitCtx.Done():
		}
	}()
	// One answer from the wait, in the shared form: containerd's wait
	// always sends one status, at the latest when Release ends its context.
	go func() {
		st := <-exitC
		code, _, err := st.Result()
		if err != nil {
			s.exited <- backend.Exit{Err: b.engineErr("wait", err)}
			return
		}
		s.exited <- backend.Exit{Code: int(code)}
	}()
	return backend.NewPrepared(s, startBegin.Sub(begin), time.Since(startBegin), &b.cleanups), nil
}

var errAbandoned = errors.New("setup abandoned at the deadline")

// setup creates the container and its task under their own bounded
// context, so that containerd never finishes a setup nobody waits for: when
// the caller's deadline comes first, the setup goes on in the background
// and what it made is removed there.
func (b *Backend) setup(ctx context.Context, id string, img client.Image, spec *oci.Spec, labels map[string]string, ioc cio.Creator) (client.Task, error) {
	type result struct {
		task client.Task
		err  error
	}
	ch := make(chan result, 1)
	var mu sync.Mutex
	gaveUp := false
	b.cleanups.Go(func() error {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), setupTimeout)
		defer cancel()
		var task client.Task
		container, err := b.cli.NewContainer(sctx, id,
			client.WithContainerLabels(labels),
			client.WithImageName(img.Name()),
			client.WithSnapshotter(b.snapshotter),
			client.WithNewSnapshot(id, img, snapshots.WithLabels(labels)),
			client.WithSpec(spec),
			client.WithRuntime(b.runtime.typ, b.runtime.shimOptions()),
		)
		if err != nil {
			err = b.engineErr("create container", err)
		} else if task, err = container.NewTask(sctx, ioc); err != nil {
			if errdefs.IsUnavailable(err) {
				err = b.engineErr("create task", err)
			} else {
				err = fmt.Errorf("%w: %w", backend.ErrStart, err)
			}
		}
		mu.Lock()
		abandoned := gaveUp
		if !abandoned {
			ch <- result{task, err}
		}
		mu.Unlock()
		if abandoned {
			if task != nil {
				task.IO().Close()
			}
			return b.remove(ctx, id)
		}
		return nil
	})
	select {
	case r := <-ch:
		return r.task, r.err
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		gaveUp = true
		select {
		case r := <-ch: // it finished just now: remove what it made, in the background
			if r.task != nil {
				r.task.IO().Close()
			}
			b.cleanups.Go(func() error { return b.remove(ctx, id) })
		default:
		}
		return nil, errAbandoned
	}
}
