package docker

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/client"

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
	if b.gvisor {
		return nil
	}
	return b.chans
}

// UseAttach streams every later sandbox through the engine's attach, as an
// engine that does not see this machine's files has it.
func (b *Backend) UseAttach() { b.chans.Skip() }

// Stream is how a sandbox's stdin and output go: "channel" (FIFOs this
// process made, bind-mounted), or "attach" (the engine's own streams).
func (b *Backend) Stream() string {
	if c := b.channels(); c != nil && !c.Unseen() {
		return "channel"
	}
	return "attach"
}

// started is a container created, attached, waited on and started, whose
// program waits on stdin; backend.Prepared runs it.
type started struct {
	b          *Backend
	name, id   string
	hj         client.HijackedResponse
	halfCloser interface{ CloseWrite() error }
	exitC      chan backend.Exit
	cancelWait context.CancelFunc
	oom        *oomWatch
	outDone    chan struct{} // closed when the output copier is done; nil before Stream
	inDone     chan struct{}
}

// Stream implements backend.Started: stdin goes in over the attach
// connection, then a half-close; stdout and stderr come back multiplexed.
func (s *started) Stream(stdin []byte, stdout, stderr io.Writer) {
	s.outDone, s.inDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.outDone)
		stdcopy.StdCopy(stdout, stderr, s.hj.Reader)
	}()
	go func() {
		defer close(s.inDone)
		// Errors are expected when the program exits without reading: the
		// engine closes the stream. The exit status tells what happened.
		if _, err := s.hj.Conn.Write(stdin); err == nil {
			s.halfCloser.CloseWrite()
		}
	}()
}

// Duplex implements backend.Started: stdin stays open on the attach
// connection until the returned writer is closed (a half-close).
func (s *started) Duplex(stdout, stderr io.Writer) io.WriteCloser {
	s.outDone, s.inDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.outDone)
		stdcopy.StdCopy(stdout, stderr, s.hj.Reader)
	}()
	return &attachedStdin{s: s}
}

type attachedStdin struct {
	s    *started
	once sync.Once
}

func (w *attachedStdin) Write(p []byte) (int, error) { return w.s.hj.Conn.Write(p) }

func (w *attachedStdin) Close() error {
	w.once.Do(func() {
		w.s.halfCloser.CloseWrite()
		close(w.s.inDone)
	})
	return nil
}

// Exited implements backend.Started.
func (s *started) Exited() <-chan backend.Exit { return s.exitC }

// Kill implements backend.Started.
func (s *started) Kill(ctx context.Context) {
	s.b.cli.ContainerKill(ctx, s.id, client.ContainerKillOptions{Signal: "KILL"})
}

// Drain implements backend.Started: the stream ends with the container,
// or is closed after grace.
func (s *started) Drain(grace time.Duration) bool {
	complete := true
	select {
	case <-s.outDone:
	case <-time.After(grace):
		complete = false
	}
	s.hj.Close()
	<-s.outDone
	return complete
}

// OOMKills implements backend.Started: Docker gives a container its own
// cgroup namespace, where a reused sandbox's agent reads the counter.
func (s *started) OOMKills(context.Context) (uint64, bool) { return 0, false }

// OOMKilled implements backend.Started: the cgroup watch answers for
// local engines; a SIGKILL nobody here sent, or an engine whose cgroups
// are not local, asks the engine.
func (s *started) OOMKilled(ctx context.Context, code int, killed bool) bool {
	unexplained := code == 137 && !killed
	if s.oom.stop() {
		return true
	}
	if s.oom == nil || unexplained {
		return s.b.oomKilled(ctx, s.id, unexplained)
	}
	return false
}

// Release implements backend.Started.
func (s *started) Release() {
	s.cancelWait()
	s.hj.Close()
	if s.outDone != nil {
		<-s.outDone
		<-s.inDone
	}
	s.oom.stop()
}

// Remove implements backend.Started.
func (s *started) Remove(ctx context.Context) error { return s.b.remove(ctx, s.name) }
