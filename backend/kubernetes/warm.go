package kubernetes

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// WarmLifetime implements backend.WarmLifetimer: a pool hands out no pod
// within ten minutes of the warm deadline that would end it.
func (b *Backend) WarmLifetime() time.Duration { return warmDeadline - 10*time.Minute }

// NotReusable implements backend.NotReusable.
func (b *Backend) NotReusable() string {
	return "a pod's attach is stdinOnce, and the reset a reused sandbox needs was never run on a pod"
}

// Warm implements backend.Warmer: a pod started ahead of its run, its
// launcher waiting on stdin.
func (b *Backend) Warm(ctx context.Context, spec *sandbox.Spec) (backend.Warm, error) {
	return backend.WarmPrepared(ctx, spec, b.prepare, nil) // a pod's node is another machine: no channel
}

// startedPod is a pod whose container runs, its launcher waiting on stdin.
type startedPod struct {
	b    *Backend
	name string

	life      context.Context // the watch and the attach
	cancel    context.CancelFunc
	exited    chan backend.Exit // one exit, from the watch
	running   chan struct{}     // closed once the container ran (or ended)
	startErr  error             // set before failed is closed
	failed    chan struct{}     // the pod cannot start
	streamed  chan struct{}     // closed when the attach ends
	streamErr error             // the attach's error, set before streamed is closed
	stdin     cutStdin          // Stream's

	mu     sync.Mutex
	killed bool
	oom    bool
	stdinW *io.PipeWriter // Duplex
}

// attach streams stdin in and the output out through pods/attach, until
// the container's streams end or life does, through attachSync's
// handshake: stdin is held after its first line until both streams
// showed a mark.
func (p *startedPod) attach(stdin io.Reader, stdout, stderr io.Writer) {
	defer close(p.streamed)
	out := &syncedOutput{w: stdout, seen: make(chan struct{})}
	errs := &syncedOutput{w: stderr, seen: make(chan struct{})}
	in := &syncedStdin{r: stdin, marked: []<-chan struct{}{out.seen, errs.seen}, life: p.life.Done(), streamed: p.streamed}
	req := p.b.api.pods(p.b.o.Namespace).attach(p.name, &corev1.PodAttachOptions{
		Container: containerName, Stdin: true, Stdout: true, Stderr: true,
	})
	exec, err := newExecutor(p.b.cfg, req.URL())
	if err == nil {
		err = exec.StreamWithContext(p.life, remotecommand.StreamOptions{Stdin: in, Stdout: out, Stderr: errs})
	}
	p.streamErr = err
}

// syncedStdin is the stdin of a program behind attachSync: a line, then,
// once every stream in marked showed a mark, a second line and r. The end
// of the attach's life or of the attach stops the wait: client-go's copy
// of stdin outlives the attach, blocked in Read.
type syncedStdin struct {
	r              io.Reader
	marked         []<-chan struct{}
	life, streamed <-chan struct{}
	lines          int
}

func (s *syncedStdin) Read(b []byte) (int, error) {
	if s.lines == 2 {
		return s.r.Read(b)
	}
	if len(b) == 0 {
		return 0, nil
	}
	if s.lines == 1 {
		for _, m := range s.marked {
			select {
			case <-m:
			case <-s.life:
				return 0, io.EOF
			case <-s.streamed:
				return 0, io.EOF
			}
		}
	}
	s.lines++
	b[0] = '\n'
	return 1, nil
}

// syncedOutput is a stream of a program behind attachSync: marks up to
// syncEnd, dropped, then the program's output, written to w. Its first
// byte proves the stream was added to the container's output (seen is
// closed). client-go writes each stream from one goroutine.
type syncedOutput struct {
	w       io.Writer
	seen    chan struct{}
	marked  bool // seen is closed
	passing bool // syncEnd came: the rest is the program's
}

func (s *syncedOutput) Write(b []byte) (int, error) {
	n := len(b)
	if !s.passing {
		if n > 0 && !s.marked {
			s.marked = true
			close(s.seen)
		}
		i := 0
		for i < n && b[i] == syncMark {
			i++
		}
		if i == n {
			return n, nil
		}
		// Only attachSync writes ahead of syncEnd: any other byte is the
		// program's, and kept.
		s.passing = true
		if b[i] == syncEnd {
			i++
		}
		b = b[i:]
	}
	if _, err := s.w.Write(b); err != nil {
		return 0, err
	}
	return n, nil
}

// newExecutor prefers SPDY and falls back to WebSockets where it cannot
// upgrade (a proxy, an apiserver without it). Measured on v1.37: when the
// container exits while stdin still flows (a 10 MiB event its script never
// read), the apiserver's WebSocket translation drops the attach without
// its final status (close 1006) in 6 of 12 runs, so the output could not be
// known complete; SPDY ended cleanly in 12 of 12.
func newExecutor(cfg *rest.Config, u *url.URL) (remotecommand.Executor, error) {
	spdy, err := remotecommand.NewSPDYExecutor(cfg, "POST", u)
	if err != nil {
		return nil, err
	}
	ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", u.String())
	if err != nil {
		return nil, err
	}
	// client-go's SPDY says an upgrade failed in words only; the upgrade
	// comes before any stdin is read, so the second try has it all.
	return remotecommand.NewFallbackExecutor(spdy, ws, func(err error) bool {
		return strings.HasPrefix(err.Error(), "unable to upgrade connection") || httpstream.IsHTTPSProxyError(err)
	})
}

// Stream implements backend.Started.
func (p *startedPod) Stream(stdin []byte, stdout, stderr io.Writer) {
	p.stdin.r = bytes.NewReader(stdin)
	go p.attach(&p.stdin, stdout, stderr)
}

// cutStdin is a run's stdin that ends early at Drain: once the program
// exited nothing reads it, and an attach still carrying an event the
// program never read would end only when its last byte crossed the
// apiserver and the kubelet.
type cutStdin struct {
	r   io.Reader
	cut atomic.Bool
}

func (c *cutStdin) Read(b []byte) (int, error) {
	if c.cut.Load() {
		return 0, io.EOF
	}
	return c.r.Read(b)
}

// Duplex implements backend.Started.
func (p *startedPod) Duplex(stdout, stderr io.Writer) io.WriteCloser {
	r, w := io.Pipe()
	p.mu.Lock()
	p.stdinW = w
	p.mu.Unlock()
	go p.attach(r, stdout, stderr)
	return w
}

// Exited implements backend.Started.
func (p *startedPod) Exited() <-chan backend.Exit { return p.exited }

// Kill implements backend.Started: the pod deleted with a grace of one
// second, which the kubelet carries out at once with the image's stop
// signal (the reference images' is SIGKILL; any other image gets SIGTERM
// and the kubelet's minimum of 2 s before SIGKILL). Not grace 0: that
// removes the pod from the API before the node has killed anything, so
// the exit would be a guess; with a grace the container's terminated
// status, from the node, is the exit. A node that does not answer within
// the executor's kill grace leaves the exit unknown, and the removal after
// the answer (grace 0) takes the pod out of the API regardless.
func (p *startedPod) Kill(ctx context.Context) {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	p.b.deletePod(ctx, p.name, killGrace)
}

// Drain implements backend.Started. An attach that failed counts as
// output cut short: what the hook wrote may not have arrived.
func (p *startedPod) Drain(grace time.Duration) bool {
	p.stdin.cut.Store(true)
	select {
	case <-p.streamed:
		return p.streamErr == nil
	case <-time.After(grace):
		p.cancel()
		<-p.streamed
		return false
	}
}

// OOMKills implements backend.Started: a pod's cgroup is the node's, not
// this host's (and a pod is never reused).
func (p *startedPod) OOMKills(context.Context) (uint64, bool) { return 0, false }

// OOMKilled implements backend.Started: the container's terminated reason.
func (p *startedPod) OOMKilled(context.Context, int, bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.oom
}

// Release implements backend.Started.
func (p *startedPod) Release() {
	p.mu.Lock()
	w := p.stdinW
	p.mu.Unlock()
	if w != nil {
		w.CloseWithError(io.ErrClosedPipe)
	}
	p.cancel()
}

// Remove implements backend.Started.
func (p *startedPod) Remove(ctx context.Context) error { return p.b.remove(ctx, p.name) }
