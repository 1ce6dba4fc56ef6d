package containerd

import (
	"context"
	"io"
	"sync"
	"syscall"
	"time"

	"github.com/containerd/containerd/v2/client"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// Warm creates and starts a sandbox ahead of its run: its launcher waits
// on stdin. ctx bounds only the preparation.
func (b *Backend) Warm(ctx context.Context, spec *sandbox.Spec) (backend.Warm, error) {
	return backend.WarmPrepared(ctx, spec, b.prepare, b.channels())
}

// channels are the backend's channels under its runtime: none under
// gVisor, whose kernel does not share the host's FIFOs.
func (b *Backend) channels() *backend.Channels {
	if b.runtime.gvisor {
		return nil
	}
	return b.chans
}

// UseAttach streams every later sandbox through the shim's attach, as an
// engine that does not see this machine's files has it.
func (b *Backend) UseAttach() { b.chans.Skip() }

// Stream is how a sandbox's stdin and output go: "channel" (FIFOs this
// process made, bind-mounted), or "attach" (the shim's own streams).
func (b *Backend) Stream() string {
	if c := b.channels(); c != nil && !c.Unseen() {
		return "channel"
	}
	return "attach"
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
