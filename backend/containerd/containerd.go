// Package containerd runs sandboxes directly on containerd: no dockerd on
// the path, no network setup, about a third of Docker's cold latency.
//
// One run: image (already in hook-exec's namespace) -> container with a
// labelled snapshot and an OCI spec: containerd's default with the sandbox
// description over it (plus Docker's
// default seccomp profile, which containerd does not apply by itself) ->
// task with stdin/stdout/stderr streams -> wait registered -> start -> stdin
// closed with CloseIO once it is written -> exit -> metrics (OOM) -> task,
// container and snapshot deleted under a detached, bounded context.
package containerd

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/containerd/containerd/api/services/tasks/v1"
	"io"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	cgroup1stats "github.com/containerd/cgroups/v3/cgroup1/stats"
	cgroup2stats "github.com/containerd/cgroups/v3/cgroup2/stats"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/core/snapshots"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"
	"github.com/containerd/typeurl/v2"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// Namespace is hook-exec's own containerd namespace.
const Namespace = "hookexec"

// Candidate sockets, in the order they are tried when no address is given.
var Candidates = []string{"/run/containerd/containerd.sock", "/var/run/docker/containerd/containerd.sock"}

const (
	removeTimeout = 60 * time.Second // tries included: a loaded engine is slow to answer
	dialTimeout   = 3 * time.Second
	setupTimeout  = 30 * time.Second
)

// Backend runs sandboxes on containerd.
type Backend struct {
	cli         *client.Client
	addr        string
	snapshotter string
	runtime     runtime

	mu       sync.Mutex
	images   map[string]cachedImage // ready images by normalized reference
	cleanups backend.Cleanups
}

// Address resolves the containerd socket: the given one, else
// HOOKEXEC_CONTAINERD_ADDRESS, else the first of [Candidates] that exists.
func Address(given string) (string, error) {
	if given != "" {
		return given, nil
	}
	if a := os.Getenv("HOOKEXEC_CONTAINERD_ADDRESS"); a != "" {
		return a, nil
	}
	for _, c := range Candidates {
		if fi, err := os.Stat(c); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w: no containerd socket at %s: give --containerd-address or HOOKEXEC_CONTAINERD_ADDRESS",
		backend.ErrEngine, strings.Join(Candidates, " or "))
}

// New connects to containerd at address (see [Address]) and checks that it
// answers.
func New(ctx context.Context, address string) (*Backend, error) {
	addr, err := Address(address)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(addr, "/") {
		// A missing socket fails at once rather than after the dial timeout.
		if _, err := os.Stat(addr); err != nil {
			return nil, fmt.Errorf("%w: containerd at %s: %w", backend.ErrEngine, addr, err)
		}
	}
	cli, err := client.New(addr, client.WithDefaultNamespace(Namespace), client.WithTimeout(dialTimeout))
	if err != nil {
		return nil, fmt.Errorf("%w: connect to containerd at %s: %w", backend.ErrEngine, addr, err)
	}
	vctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if _, err := cli.Version(vctx); err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w: containerd at %s does not answer: %w", backend.ErrEngine, addr, err)
	}
	return &Backend{cli: cli, addr: addr, snapshotter: os.Getenv("HOOKEXEC_CONTAINERD_SNAPSHOTTER"), runtime: runtime{typ: runcShim}, images: map[string]cachedImage{}}, nil
}

func (b *Backend) Name() string    { return "containerd" }
func (b *Backend) Isolating() bool { return true }

// Close waits (bounded) for background cleanups, then closes the client.
func (b *Backend) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	return errors.Join(b.cleanups.Wait(ctx), b.cli.Close())
}

// WaitCleanup waits for the cleanups still running in the background.
func (b *Backend) WaitCleanup(ctx context.Context) error { return b.cleanups.Wait(ctx) }

// Client is the containerd client, for image import.
func (b *Backend) Client() *client.Client { return b.cli }

// Address is the socket in use.
func (b *Backend) Address() string { return b.addr }

func (b *Backend) engineErr(op string, err error) error {
	return fmt.Errorf("%w: %s (containerd at %s): %w", backend.ErrEngine, op, b.addr, err)
}

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
	return backend.RunPrepared(ctx, r, b.prepare)
}

// Warm creates and starts a sandbox ahead of its run: its launcher waits
// on stdin. ctx bounds only the preparation.
func (b *Backend) Warm(ctx context.Context, spec *sandbox.Spec) (backend.Warm, error) {
	return backend.WarmPrepared(ctx, spec, b.prepare)
}

// switchWriter forwards to the writer set last; before that it drops.
type switchWriter struct {
	mu    sync.Mutex
	w     io.Writer
	ready chan struct{} // closed by set
}

func newSwitchWriter() *switchWriter { return &switchWriter{ready: make(chan struct{})} }

// set gives the writer its destination (once; later calls are ignored).
func (s *switchWriter) set(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		s.w = w
		close(s.ready)
	}
}

// Write waits until the destination is set: a task that writes before its
// run is streamed (one that exits at once, without reading stdin) is held
// back by its pipe, never dropped.
func (s *switchWriter) Write(p []byte) (int, error) {
	<-s.ready
	s.mu.Lock()
	w := s.w
	s.mu.Unlock()
	return w.Write(p)
}

// startedTask is a task created and started, its program waiting on
// stdin; backend.Prepared runs it.
type startedTask struct {
	b          *Backend
	id         string
	task       client.Task
	stdinR     *io.PipeReader
	stdinW     *io.PipeWriter
	stdout     *switchWriter
	stderr     *switchWriter
	exited     chan backend.Exit
	cancelWait context.CancelFunc
	closed     chan struct{} // the stdin closer is done
}

var _ backend.Started = (*startedTask)(nil)

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

// Stream implements backend.Started: the output goes to the writers from
// now on; stdin is written through the pipe cio copies into the task.
func (s *startedTask) Stream(stdin []byte, stdout, stderr io.Writer) {
	s.stdout.set(stdout)
	s.stderr.set(stderr)
	go func() {
		s.stdinW.Write(stdin)
		s.stdinW.Close()
	}()
}

// Duplex implements backend.Started.
func (s *startedTask) Duplex(stdout, stderr io.Writer) io.WriteCloser {
	s.stdout.set(stdout)
	s.stderr.set(stderr)
	return s.stdinW
}

// Exited implements backend.Started.
func (s *startedTask) Exited() <-chan backend.Exit { return s.exited }

// Kill implements backend.Started: every process of the task.
func (s *startedTask) Kill(ctx context.Context) {
	s.task.Kill(ctx, syscall.SIGKILL, client.WithKillAll)
}

// Drain implements backend.Started: the streams end when the last holder
// of the pipes is gone, or are cancelled after grace (incomplete).
func (s *startedTask) Drain(grace time.Duration) bool {
	drained := make(chan struct{})
	go func() { s.task.IO().Wait(); close(drained) }()
	select {
	case <-drained:
		return true
	case <-time.After(grace):
		s.task.IO().Cancel()
		<-drained
		return false
	}
}

// OOMKilled implements backend.Started: the kernel's counter in the
// task's cgroup, exact whatever the timing.
func (s *startedTask) OOMKilled(ctx context.Context, _ int, _ bool) bool {
	n, _ := s.OOMKills(ctx)
	return n > 0
}

// OOMKills implements backend.Started: the kernel's counter in the task's
// cgroup, which the sandbox itself cannot see (no cgroup is mounted in it).
func (s *startedTask) OOMKills(ctx context.Context) (uint64, bool) {
	mctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backend.KillGrace)
	defer cancel()
	return s.b.oomKills(mctx, s.task)
}

// Release implements backend.Started: the goroutines end and the IO
// closes (its FIFOs go with it).
func (s *startedTask) Release() {
	// A sandbox released without a run (a pool drained) lets its copiers end.
	s.stdout.set(io.Discard)
	s.stderr.set(io.Discard)
	s.cancelWait()
	s.stdinR.CloseWithError(io.ErrClosedPipe) // a writer the program never read from returns
	<-s.closed
	s.task.IO().Close()
}

// Remove implements backend.Started: task, container and snapshot.
func (s *startedTask) Remove(ctx context.Context) error { return s.b.remove(ctx, s.id) }

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

// imageTTL bounds how long an image found ready is used without asking
// containerd again: a reference imported anew is seen after at most this.
const imageTTL = 30 * time.Second

// cachedImage is an image found, unpacked for the snapshotter, with its
// configured environment: three requests saved on a run's hot path.
type cachedImage struct {
	img client.Image
	env []string
	at  time.Time
}

// image returns the image, unpacked for the snapshotter, and its Env.
func (b *Backend) image(ctx context.Context, ref string) (client.Image, []string, error) {
	if ref == "" {
		return nil, nil, fmt.Errorf("%w: no image given", backend.ErrImageNotFound)
	}
	name := NormalizeRef(ref)
	b.mu.Lock()
	c, ok := b.images[name]
	b.mu.Unlock()
	if ok && time.Since(c.at) < imageTTL {
		return c.img, c.env, nil
	}
	img, err := b.cli.GetImage(ctx, name)
	if errdefs.IsNotFound(err) {
		return nil, nil, fmt.Errorf("%w: %q is not in containerd namespace %q: import it with `hook-exec images build --backend containerd` (or `hook-exec images import FILE --backend containerd`)",
			backend.ErrImageNotFound, ref, Namespace)
	}
	if err != nil {
		return nil, nil, b.engineErr("get image", err)
	}
	unpacked, err := img.IsUnpacked(ctx, b.snapshotter)
	if err == nil && !unpacked {
		err = img.Unpack(ctx, b.snapshotter)
	}
	if err != nil {
		return nil, nil, b.engineErr("unpack image "+ref, err)
	}
	ic, err := img.Spec(ctx)
	if err != nil {
		return nil, nil, b.engineErr("read image config", err)
	}
	b.mu.Lock()
	b.images[name] = cachedImage{img: img, env: ic.Config.Env, at: time.Now()}
	b.mu.Unlock()
	return img, ic.Config.Env, nil
}

// oomKills reads the task's cgroup metrics (v1 or v2) for its OOM kills.
func (b *Backend) oomKills(ctx context.Context, task client.Task) (uint64, bool) {
	m, err := task.Metrics(ctx)
	if err != nil || m == nil || m.Data == nil {
		return 0, false
	}
	v, err := typeurl.UnmarshalAny(m.Data)
	if err != nil {
		return 0, false
	}
	switch s := v.(type) {
	case *cgroup1stats.Metrics:
		return s.GetMemoryOomControl().GetOomKill(), true
	case *cgroup2stats.Metrics:
		return s.GetMemoryEvents().GetOomKill(), true
	}
	return 0, false
}

// remove deletes a container's task, the container and its snapshot under
// a detached, bounded context; what does not exist is not an error.
func (b *Backend) remove(ctx context.Context, id string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	// An engine under load fails a step now and then (a deadline, a task
	// still being reaped): the whole removal is tried again, each try
	// bounded so that one stuck call does not use up the bound.
	return backend.Retry(rctx, func(ctx context.Context) error {
		tctx, cancel := context.WithTimeout(ctx, removeTry)
		defer cancel()
		return b.removeOnce(tctx, id)
	}, func(err error) bool { return !errdefs.IsUnavailable(err) }) // unreachable: left to the sweep
}

// removeTry bounds one try of a removal.
const removeTry = 20 * time.Second

func (b *Backend) removeOnce(rctx context.Context, id string) error {
	c, err := b.cli.LoadContainer(rctx, id)
	if errdefs.IsNotFound(err) {
		return b.removeSnapshot(rctx, id)
	}
	if err != nil {
		return b.engineErr("load container "+id, err)
	}
	if t, err := c.Task(rctx, cio.Load); err == nil {
		if err := stopTask(rctx, t); err != nil {
			// runsc cannot signal a task it created and never started (a
			// refill cut short); the shim deletes one as it is, which the
			// client's Delete refuses to ask for.
			if st, serr := t.Status(rctx); serr != nil || st.Status != client.Created {
				return b.engineErr("stop task "+id, err)
			}
			if _, err := b.cli.TaskService().Delete(rctx, &tasks.DeleteTaskRequest{ContainerID: id}); err != nil && !errdefs.IsNotFound(err) {
				return b.engineErr("delete created task "+id, err)
			}
		} else if _, err := t.Delete(rctx); err != nil && !errdefs.IsNotFound(err) {
			// Another sweep may have deleted it first (two commands starting at once).
			if _, terr := c.Task(rctx, nil); !errdefs.IsNotFound(terr) {
				return b.engineErr("delete task "+id, err)
			}
		}
		removeFIFODir(t.IO())
	} else if !errdefs.IsNotFound(err) {
		return b.engineErr("load task "+id, err)
	}
	if err := c.Delete(rctx, client.WithSnapshotCleanup); err != nil && !errdefs.IsNotFound(err) {
		if _, lerr := b.cli.LoadContainer(rctx, id); !errdefs.IsNotFound(lerr) {
			return b.engineErr("delete container "+id, err)
		}
	}
	return nil
}

// fifoRoot is where cio makes a task's FIFO directories on this host.
const fifoRoot = "/run/containerd/fifo"

// removeFIFODir removes the FIFO directory of a task whose creator died
// before it could (a SIGKILLed hook-exec): only the creator's IO removes it.
func removeFIFODir(io cio.IO) {
	if io == nil {
		return
	}
	for _, p := range []string{io.Config().Stdin, io.Config().Stdout, io.Config().Stderr} {
		if dir := filepath.Dir(p); p != "" && filepath.Dir(dir) == fifoRoot {
			os.RemoveAll(dir)
			return
		}
	}
}

// stopTask kills every process of a task that is not stopped (running, or
// created and never started) and waits for its exit.
func stopTask(ctx context.Context, t client.Task) error {
	st, err := t.Status(ctx)
	if err != nil {
		return err
	}
	if st.Status == client.Stopped {
		return nil
	}
	exitC, err := t.Wait(ctx)
	if err != nil {
		return err
	}
	if err := t.Kill(ctx, syscall.SIGKILL, client.WithKillAll); err != nil && !errdefs.IsNotFound(err) {
		return err
	}
	select {
	case <-exitC:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// removeSnapshot deletes a snapshot left without its container (a create
// cut short after the snapshot was prepared).
func (b *Backend) removeSnapshot(ctx context.Context, id string) error {
	err := b.cli.SnapshotService(b.snapshotter).Remove(ctx, id)
	if err == nil || errdefs.IsNotFound(err) {
		return nil
	}
	return b.engineErr("remove snapshot "+id, err)
}

// Managed returns the labels of every managed container in the namespace.
func (b *Backend) Managed(ctx context.Context) ([]map[string]string, error) {
	cs, err := b.cli.Containers(ctx, fmt.Sprintf("labels.%q==true", sandbox.LabelManaged))
	if err != nil {
		return nil, b.engineErr("list containers", err)
	}
	var out []map[string]string
	for _, c := range cs {
		l, err := c.Labels(ctx)
		if err != nil {
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

// Sweep removes the managed containers (with tasks and snapshots) whose
// owner process is gone, or all of them when all is true, and ends the
// shims of the namespace that serve nothing (see sweepShims).
func (b *Backend) Sweep(ctx context.Context, all bool) (int, error) {
	cs, err := b.cli.Containers(ctx, fmt.Sprintf("labels.%q==true", sandbox.LabelManaged))
	if err != nil {
		return 0, b.engineErr("list containers", err)
	}
	n := 0
	var errs []error
	for _, c := range cs {
		l, err := c.Labels(ctx)
		if err != nil || (!all && !backend.OwnerGone(l)) {
			continue
		}
		if err := b.remove(ctx, c.ID()); err != nil {
			errs = append(errs, err)
			continue
		}
		// The sandbox of an owner that died while it held the task's IO:
		// containerd 1.6 deletes the task and leaves its shim running.
		b.endShim(c.ID())
		n++
	}
	b.sweepFIFODirs(ctx)
	n += b.sweepShims(ctx)
	return n, errors.Join(errs...)
}

// fifoGrace is how old a FIFO directory must be before a sweep may take it
// for an orphan: a setup in flight makes its container before its FIFOs,
// so a directory without a container is never one being made, but the
// grace keeps a sweep clear of any ordering it does not know.
const fifoGrace = time.Minute

// sweepFIFODirs removes the FIFO directories of hook-exec tasks whose
// container no longer exists (a process killed while it held a task's IO:
// only the IO's creator removes its directory). Best effort.
func (b *Backend) sweepFIFODirs(ctx context.Context) {
	dirs, err := os.ReadDir(fifoRoot)
	if err != nil {
		return
	}
	for _, d := range dirs {
		dir := filepath.Join(fifoRoot, d.Name())
		info, err := d.Info()
		if err != nil || !d.IsDir() || time.Since(info.ModTime()) < fifoGrace {
			continue
		}
		fifos, _ := filepath.Glob(filepath.Join(dir, "hookexec-*-stdin"))
		if len(fifos) != 1 {
			continue // not one of hook-exec's
		}
		id := strings.TrimSuffix(filepath.Base(fifos[0]), "-stdin")
		if _, err := b.cli.LoadContainer(ctx, id); errdefs.IsNotFound(err) {
			os.RemoveAll(dir)
		}
	}
}
