package kubernetes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/streaming/pkg/httpstream"
	"k8s.io/streaming/pkg/httpstream/spdy"
)

// attachAPI is an API server of a test's own for pods/attach of pod p:
// it upgrades to SPDY (remotecommand's v4 protocol, as an apiserver does),
// then hands the streams to serve; refuse answers every attach (the SPDY
// POST and the WebSocket GET) with a 403 instead.
type attachAPI struct {
	refuse bool
	serve  func(stdin io.Reader, stdout, stderr io.Writer) (failure string)
	// exited is closed when serve returns: the container's exit, which
	// the executor waits for before it drains.
	exited chan struct{}

	mu      sync.Mutex
	methods []string // each attach's method, in order
}

func (f *attachAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/api/v1/namespaces/hookexec/pods/p/attach" {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	f.methods = append(f.methods, r.Method)
	f.mu.Unlock()
	if f.refuse || r.Method != http.MethodPost {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Forbidden","code":403,"message":"pods \"p\" is forbidden: attach"}`)
		return
	}
	if _, err := httpstream.Handshake(r, w, []string{"v4.channel.k8s.io"}); err != nil {
		return
	}
	streams := make(chan httpstream.Stream, 4)
	conn := spdy.NewResponseUpgrader().UpgradeResponse(w, r, func(s httpstream.Stream, _ <-chan struct{}) error {
		streams <- s
		return nil
	})
	if conn == nil {
		return
	}
	defer conn.Close()
	byType := map[string]httpstream.Stream{}
	for len(byType) < 4 { // error, stdin, stdout, stderr
		select {
		case s := <-streams:
			byType[s.Headers().Get(corev1.StreamType)] = s
		case <-conn.CloseChan():
			return
		}
	}
	failure := f.serve(byType[corev1.StreamTypeStdin], byType[corev1.StreamTypeStdout], byType[corev1.StreamTypeStderr])
	close(f.exited)
	byType[corev1.StreamTypeStdout].Close()
	byType[corev1.StreamTypeStderr].Close()
	status := metav1.Status{Status: metav1.StatusSuccess}
	if failure != "" {
		status = metav1.Status{Status: metav1.StatusFailure, Message: failure}
	}
	b, _ := json.Marshal(status)
	byType[corev1.StreamTypeError].Write(b)
	byType[corev1.StreamTypeError].Close()
}

// attached is pod p against f, as prepare leaves it once its container
// runs.
func attached(t *testing.T, f *attachAPI) *startedPod {
	t.Helper()
	f.exited = make(chan struct{})
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	cfg := &rest.Config{Host: srv.URL}
	a, err := newAPI(cfg)
	if err != nil {
		t.Fatal(err)
	}
	life, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &startedPod{b: &Backend{api: a, cfg: cfg, o: Options{Namespace: "hookexec"}}, name: "p", life: life, cancel: cancel,
		streamed: make(chan struct{})}
}

// exited waits for the container's exit, as the executor does before it
// drains (the drain cuts stdin: nothing reads it once the program ended).
func exited(t *testing.T, f *attachAPI) {
	t.Helper()
	select {
	case <-f.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("the attach never reached the container")
	}
}

// behindSync is program as attachSync runs it: a line, marks on both
// streams, a line, the marks' ends, then the program.
func behindSync(program func(stdin io.Reader, stdout, stderr io.Writer) string) func(io.Reader, io.Writer, io.Writer) string {
	return func(stdin io.Reader, stdout, stderr io.Writer) string {
		line := func() bool {
			var b [1]byte
			_, err := io.ReadFull(stdin, b[:])
			return err == nil && b[0] == '\n'
		}
		if !line() {
			return "no first line"
		}
		fmt.Fprint(stdout, "..")
		fmt.Fprint(stderr, ".")
		if !line() {
			return "no second line"
		}
		fmt.Fprint(stdout, "!")
		fmt.Fprint(stderr, "!")
		return program(stdin, stdout, stderr)
	}
}

// syncBuffer is a writer the attach fills while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The attach against an API server: the stdin a program gets (after the
// handshake, the bytes), its output, a failure the node reports,
// the fallback to WebSockets where SPDY cannot upgrade, and an attach that
// never ends cut at the drain's grace.
func TestAttach(t *testing.T) {
	t.Parallel()
	// The grace a drain gives a finished attach: ample, since the fake
	// answers at once; a test past it fails on the drain's answer.
	const grace = 30 * time.Second
	echo := behindSync(func(stdin io.Reader, stdout, stderr io.Writer) string {
		b, _ := io.ReadAll(stdin)
		fmt.Fprintf(stdout, "stdin %q", b)
		fmt.Fprint(stderr, "a note")
		return ""
	})
	t.Run("stdin after the handshake, output complete", func(t *testing.T) {
		t.Parallel()
		f := &attachAPI{serve: echo}
		p := attached(t, f)
		var stdout, stderr syncBuffer
		p.Stream([]byte(`{"event":1}`), &stdout, &stderr)
		exited(t, f)
		if !p.Drain(grace) {
			t.Fatalf("drain: output cut short: %v", p.streamErr)
		}
		if got, want := stdout.String(), `stdin "{\"event\":1}"`; got != want {
			t.Errorf("stdout %s, want %s", got, want)
		}
		if stderr.String() != "a note" {
			t.Errorf("stderr %q", stderr.String())
		}
	})
	t.Run("duplex", func(t *testing.T) {
		t.Parallel()
		f := &attachAPI{serve: echo}
		p := attached(t, f)
		var stdout syncBuffer
		w := p.Duplex(&stdout, io.Discard)
		io.WriteString(w, "one,")
		io.WriteString(w, "two")
		w.Close()
		exited(t, f)
		if !p.Drain(grace) {
			t.Fatalf("drain: output cut short: %v", p.streamErr)
		}
		if got := stdout.String(); got != `stdin "one,two"` {
			t.Errorf("stdout %s", got)
		}
	})
	t.Run("the node's failure cuts the output short", func(t *testing.T) {
		t.Parallel()
		f := &attachAPI{serve: func(io.Reader, io.Writer, io.Writer) string { return "container not found" }}
		p := attached(t, f)
		p.Stream(nil, io.Discard, io.Discard)
		exited(t, f)
		if p.Drain(grace) {
			t.Fatal("drain after a failed attach says the output is complete")
		}
		if p.streamErr == nil || !strings.Contains(p.streamErr.Error(), "container not found") {
			t.Errorf("attach error %v, want the node's message", p.streamErr)
		}
	})
	t.Run("no upgrade: WebSockets tried, then the output cut short", func(t *testing.T) {
		t.Parallel()
		f := &attachAPI{refuse: true}
		p := attached(t, f)
		p.Stream([]byte("x"), io.Discard, io.Discard)
		if p.Drain(grace) {
			t.Fatal("drain after a refused attach says the output is complete")
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		if strings.Join(f.methods, ",") != "POST,GET" {
			t.Errorf("attaches %v, want SPDY's POST then WebSocket's GET", f.methods)
		}
	})
	t.Run("an attach that never ends is cut at the grace", func(t *testing.T) {
		t.Parallel()
		hold := make(chan struct{})
		t.Cleanup(func() { close(hold) })
		p := attached(t, &attachAPI{serve: func(io.Reader, io.Writer, io.Writer) string { <-hold; return "" }})
		p.Stream([]byte("x"), io.Discard, io.Discard)
		if p.Drain(10 * time.Millisecond) {
			t.Fatal("drain of an attach that never ended says the output is complete")
		}
		select {
		case <-p.streamed:
		default:
			t.Error("the drain returned before the attach ended")
		}
	})
}

// lateStreams is a node as containerd's CRI is: it copies the attach's
// stdin to the program at once but adds the attach's stdout and stderr to
// the program's output only after lateOut and lateErr; what the program
// wrote to a stream before that reaches no one.
func lateStreams(lateOut, lateErr time.Duration, argv ...string) func(io.Reader, io.Writer, io.Writer) string {
	return func(stdin io.Reader, stdout, stderr io.Writer) string {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", attachSync, "hook-exec-attach"}, argv...)...)
		in, err := cmd.StdinPipe()
		if err != nil {
			return err.Error()
		}
		outR, err := cmd.StdoutPipe()
		if err != nil {
			return err.Error()
		}
		errR, err := cmd.StderrPipe()
		if err != nil {
			return err.Error()
		}
		if err := cmd.Start(); err != nil {
			return err.Error()
		}
		go func() {
			io.Copy(in, stdin)
			in.Close() // stdinOnce
		}()
		var copies sync.WaitGroup
		for _, s := range []struct {
			r    io.Reader
			w    io.Writer
			late time.Duration
		}{{outR, stdout, lateOut}, {errR, stderr, lateErr}} {
			var added atomic.Bool
			time.AfterFunc(s.late, func() { added.Store(true) })
			copies.Go(func() {
				b := make([]byte, 512)
				for {
					n, err := s.r.Read(b)
					if n > 0 && added.Load() {
						s.w.Write(b[:n])
					}
					if err != nil {
						return
					}
				}
			})
		}
		copies.Wait()
		if err := cmd.Wait(); err != nil {
			return err.Error()
		}
		return ""
	}
}

// attachSync, in a real sh, against a node that adds the output streams
// late, either one last: what a program writes the moment its stdin
// arrives still arrives whole, with none of the handshake's bytes, and
// its stdin is whole too.
func TestAttachSyncLateStreams(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Fatal("attachSync runs in sh; this host has none")
	}
	const late, later = 100 * time.Millisecond, 300 * time.Millisecond
	for _, c := range []struct {
		name                 string
		lateOut, lateErr     time.Duration
		argv                 []string
		stdin                string
		wantStdout, wantErrs string
	}{
		{"an answer at once, stdin unread", late, late, []string{"sh", "-c", "echo out; echo err >&2"}, strings.Repeat("x", 1<<20), "out\n", "err\n"},
		{"stdin whole after the lines", late, late, []string{"sh", "-c", "cat; echo err >&2"}, "payload\nmore", "payload\nmore", "err\n"},
		{"stdout added last", later, late, []string{"sh", "-c", "echo out; echo err >&2"}, "", "out\n", "err\n"},
		{"stderr added last", late, later, []string{"sh", "-c", "echo out; echo err >&2"}, "", "out\n", "err\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := &attachAPI{serve: lateStreams(c.lateOut, c.lateErr, c.argv...)}
			p := attached(t, f)
			var stdout, stderr syncBuffer
			p.Stream([]byte(c.stdin), &stdout, &stderr)
			exited(t, f)
			if !p.Drain(30 * time.Second) {
				t.Fatalf("drain: output cut short: %v", p.streamErr)
			}
			if stdout.String() != c.wantStdout || stderr.String() != c.wantErrs {
				t.Errorf("stdout %.40q, stderr %.40q: want %.40q, %.40q", stdout.String(), stderr.String(), c.wantStdout, c.wantErrs)
			}
		})
	}
}

// The stdin an attach holds until both streams showed a mark ends when the
// attach does: client-go's copy of stdin, blocked in it, must not outlive
// the attach.
func TestSyncedStdinEndsWithTheAttach(t *testing.T) {
	t.Parallel()
	for _, which := range []int{0, 1} {
		ended := []chan struct{}{make(chan struct{}), make(chan struct{})}
		in := &syncedStdin{r: strings.NewReader("x"), marked: []<-chan struct{}{make(chan struct{})}, life: ended[0], streamed: ended[1]}
		b := make([]byte, 8)
		if n, err := in.Read(b); n != 1 || err != nil || b[0] != '\n' {
			t.Fatalf("first read = %d, %v, %q: want the first line", n, err, b[:n])
		}
		read := make(chan error, 1)
		go func() {
			_, err := in.Read(b)
			read <- err
		}()
		select {
		case err := <-read:
			t.Fatalf("the second read returned (%v) before any mark", err)
		case <-time.After(50 * time.Millisecond):
		}
		close(ended[which])
		select {
		case err := <-read:
			if err != io.EOF {
				t.Errorf("ended[%d]: the held read returned %v, want io.EOF", which, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("ended[%d]: the held read never returned", which)
		}
	}
}

// FuzzSyncedOutput: whatever bytes a stream brings, in whatever pieces,
// what passes is the stream with the handshake's marks and its end taken
// off its front, and nothing else; bytes after the end pass as they are.
func FuzzSyncedOutput(f *testing.F) {
	f.Add([]byte("...!out\n"), uint8(1))
	f.Add([]byte("!"), uint8(3))
	f.Add([]byte("..."), uint8(2))
	f.Add([]byte(".x.!"), uint8(1))
	f.Add([]byte("!!..!"), uint8(4))
	f.Fuzz(func(t *testing.T, stream []byte, piece uint8) {
		var got bytes.Buffer
		s := &syncedOutput{w: &got, seen: make(chan struct{})}
		size := int(piece)%7 + 1
		for rest := stream; len(rest) > 0; {
			n := min(size, len(rest))
			if w, err := s.Write(rest[:n]); w != n || err != nil {
				t.Fatalf("Write(%q) = %d, %v: want %d, nil", rest[:n], w, err, n)
			}
			rest = rest[n:]
		}
		want := bytes.TrimLeft(stream, string(syncMark))
		want = bytes.TrimPrefix(want, []byte{syncEnd})
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%q in pieces of %d passed %q, want %q", stream, size, got.Bytes(), want)
		}
		select {
		case <-s.seen:
			if len(stream) == 0 {
				t.Error("seen without a byte")
			}
		default:
			if len(stream) > 0 {
				t.Error("a byte came, but seen is open")
			}
		}
	})
}
