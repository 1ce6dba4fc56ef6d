//go:build linux

package backend

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/sandbox"
)

// sandboxSide plays the wrapper in a sandbox: it opens the FIFOs in the
// wrapper's order, reads the token line, and hands the rest to body.
func sandboxSide(t *testing.T, dir string, body func(token string, in *bufio.Reader, out, errw, status *os.File)) chan struct{} {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		in, err := os.OpenFile(filepath.Join(dir, "in"), os.O_RDONLY, 0)
		if err != nil {
			t.Error(err)
			return
		}
		defer in.Close()
		var files []*os.File
		for _, name := range []string{"out", "err", "status"} {
			f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY, 0)
			if err != nil {
				t.Error(err)
				return
			}
			defer f.Close()
			files = append(files, f)
		}
		r := bufio.NewReader(in)
		token, err := r.ReadString('\n')
		if err != nil {
			t.Error(err)
			return
		}
		body(strings.TrimSuffix(token, "\n"), r, files[0], files[1], files[2])
	}()
	return done
}

func newTestChannel(t *testing.T) (*Channels, *channel) {
	t.Helper()
	chans := NewChannels()
	t.Cleanup(func() { chans.Close() })
	ch, err := chans.make(false)
	if err != nil {
		t.Fatal(err)
	}
	return chans, ch
}

// The run goes in after the token, its output comes back on out and err,
// and only the status line with the token ends it: a forged one (the
// hook can open the FIFO) is read past.
func TestChannelRoundTrip(t *testing.T) {
	t.Parallel()
	_, ch := newTestChannel(t)
	for name, want := range map[string]os.FileMode{"in": 0o644, "out": 0o622, "err": 0o622, "status": 0o622} {
		fi, err := os.Stat(filepath.Join(ch.dir, name))
		if err != nil || fi.Mode()&os.ModeNamedPipe == 0 || fi.Mode().Perm() != want {
			t.Errorf("%s: %v, %v; want a FIFO of mode %v", name, fi.Mode(), err, want)
		}
	}
	f := newFake()
	c := newChanneled(f, ch)
	done := sandboxSide(t, ch.dir, func(token string, in *bufio.Reader, out, errw, status *os.File) {
		b, _ := io.ReadAll(in)
		fmt.Fprintf(out, "read %s", b)
		fmt.Fprint(errw, "a line")
		fmt.Fprintf(status, "%s 0\n", strings.Repeat("f", len(token))) // forged
		fmt.Fprintf(status, "0\n")
		fmt.Fprintf(status, "%s%s 0\n", strings.Repeat("x", 1000), token) // a long line ending as the real one would
		fmt.Fprintf(status, "%s 0%s\n", token, strings.Repeat(" ", 300))  // the token, then too long to be the wrapper's
		fmt.Fprintf(status, "%s 7\n", token)
	})
	var stdout, stderr bytes.Buffer
	c.Stream([]byte("the event"), &stdout, &stderr)
	select {
	case e := <-c.Exited():
		if e.Code != 7 || e.Err != nil {
			t.Errorf("exit %+v, want 7 from the token's line", e)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no exit")
	}
	<-done
	if !c.Drain(5 * time.Second) {
		t.Error("the output did not end with the sandbox's side")
	}
	c.Release()
	if stdout.String() != "read the event" || stderr.String() != "a line" {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if err := c.Remove(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ch.dir); !os.IsNotExist(err) {
		t.Errorf("the channel's directory is left: %v", err)
	}
}

// A sandbox killed before it opened its FIFOs: the exit is the engine's,
// and Release gives up the opens still waiting.
func TestChannelNeverOpened(t *testing.T) {
	t.Parallel()
	_, ch := newTestChannel(t)
	f := newFake()
	c := newChanneled(f, ch)
	c.Stream([]byte("the event"), io.Discard, io.Discard)
	f.exitC <- Exit{Code: 137}
	if e := <-c.Exited(); e.Code != 137 {
		t.Errorf("exit %+v, want the engine's 137", e)
	}
	released := make(chan struct{})
	go func() { c.Release(); close(released) }()
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("Release waits for opens nobody will answer")
	}
	if _, rel, _ := f.counts(); rel != 1 {
		t.Errorf("the engine's sandbox released %d times, want 1", rel)
	}
}

// A process that keeps stdout open after the exit (a background child):
// Drain cuts the stream after its grace.
func TestChannelDrainCutsAHeldStream(t *testing.T) {
	t.Parallel()
	_, ch := newTestChannel(t)
	c := newChanneled(newFake(), ch)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	sandboxSide(t, ch.dir, func(token string, _ *bufio.Reader, out, _, status *os.File) {
		fmt.Fprint(out, "partial")
		fmt.Fprintf(status, "%s 0\n", token)
		<-hold // out stays open
	})
	var stdout bytes.Buffer
	c.Stream(nil, &stdout, io.Discard)
	if e := <-c.Exited(); e.Code != 0 {
		t.Fatalf("exit %+v", e)
	}
	start := time.Now()
	if c.Drain(200 * time.Millisecond) {
		t.Error("Drain says complete with stdout still held open")
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Errorf("Drain took %v, want its grace", d)
	}
	c.Release()
	if stdout.String() != "partial" {
		t.Errorf("stdout %q, want what came before the cut", stdout.String())
	}
}

func TestChannelSpecWrapsAndMounts(t *testing.T) {
	_, ch := newTestChannel(t)
	spec := &sandbox.Spec{Argv: []string{"sh", "-c", "launcher", "hook-launcher", "pool"}, Mounts: []sandbox.Mount{{Source: "/w", Target: "/w", ReadOnly: true}}}
	s := channelSpec(spec, ch)
	if got := strings.Join(s.Argv[4:], " "); s.Argv[0] != "sh" || s.Argv[2] != channelWrap || got != "sh -c launcher hook-launcher pool" {
		t.Errorf("argv %q: want the wrapper, then the program", s.Argv)
	}
	if len(s.Mounts) != 2 || s.Mounts[1] != (sandbox.Mount{Source: ch.dir, Target: ChannelTarget, ReadOnly: true}) || len(spec.Mounts) != 1 {
		t.Errorf("mounts %+v (the given spec's %+v): want the channel read-only beside the workspace, the given spec unchanged", s.Mounts, spec.Mounts)
	}
}

// The wrapper itself, run by sh on the host against a channel: the status
// line and the wrapper's own exit (the engine's report, which may come
// first) both carry the program's status.
func TestChannelWrapperReportsTheProgramsStatus(t *testing.T) {
	t.Parallel()
	for _, code := range []int{0, 2, 3} {
		_, ch := newTestChannel(t)
		cmd := exec.Command("sh", "-c", wrapFor(ch.dir), "hook-channel", "sh", "-c", fmt.Sprintf("cat; echo err >&2; exit %d", code))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		f := newFake()
		c := newChanneled(f, ch)
		var stdout, stderr bytes.Buffer
		c.Stream([]byte("the event"), &stdout, &stderr)
		e := <-c.Exited()
		err := cmd.Wait()
		var ee *exec.ExitError
		wrapper := 0
		if errors.As(err, &ee) {
			wrapper = ee.ExitCode()
		}
		if !c.Drain(5 * time.Second) {
			t.Error("the output did not end with the wrapper")
		}
		c.Release()
		if e.Code != code || wrapper != code {
			t.Errorf("exit %d: the status line said %d, the wrapper exited %d", code, e.Code, wrapper)
		}
		if stdout.String() != "the event" || stderr.String() != "err\n" {
			t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
		}
	}
}

// The program starts as its sandbox does, before its run: the token is
// written and the FIFOs held open ahead, and the program (a pooled
// launcher) does what it can before its stdin comes.
func TestChannelProgramStartsBeforeItsRun(t *testing.T) {
	t.Parallel()
	_, ch := newTestChannel(t)
	mark := filepath.Join(t.TempDir(), "started")
	cmd := exec.Command("sh", "-c", wrapFor(ch.dir), "hook-channel", "sh", "-c", `: >"$1"; cat`, "program", mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := newChanneled(newFake(), ch)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(mark); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			c.Release()
			t.Fatal("the program did not start before its run came")
		}
	}
	var stdout bytes.Buffer
	c.Stream([]byte("the event"), &stdout, io.Discard)
	e := <-c.Exited()
	cmd.Wait()
	if !c.Drain(5 * time.Second) {
		t.Error("the output did not end with the wrapper")
	}
	c.Release()
	if e.Code != 0 || stdout.String() != "the event" {
		t.Errorf("exit %+v, stdout %q: want 0 and the event", e, stdout.String())
	}
}

// A process's channels directory is named for it; a sweep removes the
// directories of processes that are gone, and no other.
func TestSweepChannels(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	c := NewChannels()
	ch, err := c.make(false)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(os.TempDir(), fmt.Sprintf("%s%d-%s-x", channelsPrefix, gone.Process.Pid, "1"))
	other := filepath.Join(os.TempDir(), channelsPrefix+"not-ours")
	for _, d := range []string{dead, other} {
		if err := os.MkdirAll(filepath.Join(d, "c-1"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if n := SweepChannels(); n != 1 {
		t.Errorf("swept %d, want 1 (the gone process's)", n)
	}
	if _, err := os.Stat(dead); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the gone process's directory is still there: %v", err)
	}
	for _, d := range []string{ch.dir, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was swept: %v", d, err)
		}
	}
}
