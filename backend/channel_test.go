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
	"syscall"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/launcher"
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
		// The token lets the program start: by then no process of the
		// sandbox but the wrapper may open status.
		if fi, err := os.Stat(filepath.Join(dir, "status")); err != nil || fi.Mode().Perm() != 0 {
			t.Errorf("status when the token came: %v, %v; want mode 0", fi.Mode(), err)
		}
		body(strings.TrimSuffix(token, "\n"), r, files[0], files[1], files[2])
	}()
	return done
}

func newTestChannel(t *testing.T) (*Channels, *channel) {
	t.Helper()
	chans := NewChannels("")
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
	if got := strings.Join(s.Argv[5:], " "); s.Argv[0] != "sh" || s.Argv[2] != channelBoot || s.Argv[4] != channelWrap || got != "sh -c launcher hook-launcher pool" {
		t.Errorf("argv %q: want the boot, the wrapper, then the program", s.Argv)
	}
	if len(s.Mounts) != 2 || s.Mounts[1] != (sandbox.Mount{Source: ch.dir, Target: ChannelTarget, ReadOnly: true}) || len(spec.Mounts) != 1 {
		t.Errorf("mounts %+v (the given spec's %+v): want the channel read-only beside the workspace, the given spec unchanged", s.Mounts, spec.Mounts)
	}
}

// wrapper starts the wrapper on the host against ch, under boot's shell
// (channelBoot's exec-only sh where it exists), running program (sh -c
// with its arguments), as cred (nil: this process's user).
func wrapper(t *testing.T, ch *channel, boot string, cred *syscall.Credential, program ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", append([]string{"-c", boot, "hook-channel", wrapFor(ch.dir), "sh", "-c"}, program...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// exitCode is a finished command's exit code.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// A wrapper that a process of its user could read (the host's sh, as
// this process's user: dumpable) keeps no status of its own: it closes
// the status FIFO and becomes the program, whose exit the engine reports.
func TestChannelDumpableWrapperLeavesTheStatusToTheEngine(t *testing.T) {
	t.Parallel()
	for _, code := range []int{0, 2, 3} {
		_, ch := newTestChannel(t)
		cmd := wrapper(t, ch, bootFor("/nonexistent/sh"), nil, fmt.Sprintf("cat; echo err >&2; exit %d", code))
		f := newFake()
		c := newChanneled(f, ch)
		var stdout, stderr bytes.Buffer
		c.Stream([]byte("the event"), &stdout, &stderr)
		wrapped := exitCode(cmd.Wait())
		// No status line came, or the one it would have carried: the
		// engine's report, marked, is the answer.
		f.exitC <- Exit{Code: 100 + wrapped}
		e := <-c.Exited()
		if !c.Drain(5 * time.Second) {
			t.Error("the output did not end with the wrapper")
		}
		c.Release()
		if wrapped != code || e.Code != 100+code {
			t.Errorf("exit %d: the wrapper exited %d, the run's exit was %d: want the engine's report (%d)", code, wrapped, e.Code, 100+code)
		}
		if stdout.String() != "the event" || stderr.String() != "err\n" {
			t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
		}
	}
}

// A wrapper run from an exec-only copy of sh, as another user than the
// file's owner, is not dumpable: it reports the program's status on the
// status FIFO, which no process the program starts can open, nor read the
// wrapper's environ (or memory). Root only: the wrapper runs as 65534.
func TestChannelWrapperNotDumpableReportsTheStatus(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: the wrapper runs as another user than its exec-only sh's owner")
	}
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	shellDir, err := os.MkdirTemp("", "hookexec-execonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shellDir) })
	execOnly := filepath.Join(shellDir, "sh")
	if err := os.WriteFile(execOnly, b, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(os.Chmod(shellDir, 0o755), os.Chmod(execOnly, 0o711)); err != nil {
		t.Fatal(err)
	}
	chans, ch := newTestChannel(t)
	if err := os.Chmod(chans.parent, 0o711); err != nil { // as the engine's bind mount would let it
		t.Fatal(err)
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	// The program's own processes (sh: dumpable) try the wrapper's
	// environ ($$ in the wrapper's subshell is the wrapper) and status.
	program := `cat
sh -c ': </proc/$1/environ' x $$ 2>/dev/null && echo "environ open" >&2
sh -c ': >"$1"' x "$1" 2>/dev/null && echo "status open" >&2
exit 3`
	cmd := wrapper(t, ch, bootFor(execOnly), nobody, program, "program", filepath.Join(ch.dir, "status"))
	f := newFake()
	c := newChanneled(f, ch)
	var stdout, stderr bytes.Buffer
	c.Stream([]byte("the event"), &stdout, &stderr)
	var e Exit
	select {
	case e = <-c.Exited(): // the status line: the fake engine reports nothing
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		c.Release()
		t.Fatalf("no status line (stderr %q)", stderr.String())
	}
	wrapped := exitCode(cmd.Wait())
	if !c.Drain(5 * time.Second) {
		t.Error("the output did not end with the wrapper")
	}
	c.Release()
	if e.Code != 3 || wrapped != 3 {
		t.Errorf("the status line said %d, the wrapper exited %d; want 3", e.Code, wrapped)
	}
	if stdout.String() != "the event" || stderr.String() != "" {
		t.Errorf("stdout %q, stderr %q: want the event, and nothing the program could open", stdout.String(), stderr.String())
	}
}

// The program starts as its sandbox does, before its run: the token is
// written and the FIFOs held open ahead, and the program (a pooled
// launcher) does what it can before its stdin comes.
func TestChannelProgramStartsBeforeItsRun(t *testing.T) {
	t.Parallel()
	_, ch := newTestChannel(t)
	mark := filepath.Join(t.TempDir(), "started")
	cmd := wrapper(t, ch, channelBoot, nil, `: >"$1"; cat`, "program", mark)
	f := newFake()
	c := newChanneled(f, ch)
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
	f.exitC <- Exit{Code: exitCode(cmd.Wait())}
	e := <-c.Exited()
	if !c.Drain(5 * time.Second) {
		t.Error("the output did not end with the wrapper")
	}
	c.Release()
	if e.Code != 0 || stdout.String() != "the event" {
		t.Errorf("exit %+v, stdout %q: want 0 and the event", e, stdout.String())
	}
}

// channelBoot's sh is the images' exec-only one.
func TestChannelBootUsesTheAgentShell(t *testing.T) {
	if agentShell != launcher.AgentShell || !strings.Contains(channelBoot, launcher.AgentShell) {
		t.Errorf("agentShell %q, launcher.AgentShell %q", agentShell, launcher.AgentShell)
	}
}

// A process's channels directory is named for it; a sweep removes the
// directories of processes that are gone, and no other.
func TestSweepChannels(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	c := NewChannels("")
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

// An engine that refuses a sandbox naming its channel's directory does not
// see this machine's files (in a VM, or with a /tmp of its own): the sandbox
// is prepared again without a channel, and every later one too. A refusal
// for another reason is the run's.
func TestChannelNotSeenByTheEngine(t *testing.T) {
	chans := NewChannels("")
	t.Cleanup(func() { chans.Close() })
	var specs []*sandbox.Spec
	vm := func(_, _ context.Context, s *sandbox.Spec) (*Prepared, error) {
		specs = append(specs, s)
		for _, m := range s.Mounts {
			if m.Target == ChannelTarget {
				return nil, fmt.Errorf("%w: bind source path does not exist: %s", ErrEngine, m.Source)
			}
		}
		return &Prepared{}, nil
	}
	spec := &sandbox.Spec{Argv: []string{"sh", "-c", "x"}, Channel: true}
	for range 2 {
		if _, err := prepareChanneled(context.Background(), context.Background(), spec, vm, chans); err != nil {
			t.Fatalf("prepare: %v", err)
		}
	}
	if len(specs) != 3 || len(specs[1].Mounts) != 0 || len(specs[2].Mounts) != 0 || !chans.Unseen() {
		t.Fatalf("prepared %d times (mounts %v), unseen %v: want one channel refused, then the attach twice", len(specs), specs, chans.Unseen())
	}
	other := NewChannels("")
	t.Cleanup(func() { other.Close() })
	full := func(context.Context, context.Context, *sandbox.Spec) (*Prepared, error) {
		return nil, fmt.Errorf("%w: no space left on device", ErrEngine)
	}
	if _, err := prepareChanneled(context.Background(), context.Background(), spec, full, other); !errors.Is(err, ErrEngine) || other.Unseen() {
		t.Errorf("another refusal: %v, unseen %v: want the engine's error, the channels kept", err, other.Unseen())
	}
}

// An engine in a VM refuses the workspace as it refuses a channel: that
// refusal is ErrUnshared, naming the directory and what shares it, with
// or without a channel. A source missing here too, and another refusal
// naming the workspace, stay the engine's errors.
func TestWorkspaceNotSeenByTheEngine(t *testing.T) {
	ws := t.TempDir()
	refuse := func(say string) Prepare {
		return func(_, _ context.Context, s *sandbox.Spec) (*Prepared, error) {
			for _, m := range s.Mounts {
				if m.Target != ChannelTarget {
					return nil, fmt.Errorf("%w: "+say, ErrEngine, m.Source)
				}
			}
			return &Prepared{}, nil
		}
	}
	for _, tc := range []struct {
		name, say, source string
		channel           bool
		want              bool
	}{
		{"colima, over a channel", "invalid mount config for type \"bind\": bind source path does not exist: %s", ws, true, true},
		{"colima, through the attach", "invalid mount config for type \"bind\": bind source path does not exist: %s", ws, false, true},
		{"Docker Desktop", "Mounts denied: The path %s is not shared from the host and is not known to Docker.", ws, false, true},
		{"containerd (runc)", "start container: failed to create shim task: OCI runtime create failed: runc create failed: unable to start container process: error during container init: error mounting \"%s\" to rootfs at \"/work\": stat: no such file or directory: unknown", ws, false, true},
		{"missing here too", "bind source path does not exist: %s", filepath.Join(ws, "gone"), false, false},
		{"another refusal", "%s: permission denied", ws, false, false},
		{"a program in the workspace missing", "OCI runtime create failed: exec: \"%s/bin/check\": stat %[2]s/bin/check: no such file or directory: unknown", ws, false, false},
		{"another directory that begins the same", "bind source path does not exist: %s-2", ws, false, false},
	} {
		chans := NewChannels("")
		t.Cleanup(func() { chans.Close() })
		spec := &sandbox.Spec{Argv: []string{"sh", "-c", "x"}, Channel: tc.channel,
			Mounts: []sandbox.Mount{{Source: tc.source, Target: "/work", ReadOnly: true}}}
		_, err := prepareChanneled(context.Background(), context.Background(), spec, refuse(tc.say), chans)
		if got := errors.Is(err, ErrUnshared); got != tc.want || !errors.Is(err, ErrEngine) {
			t.Errorf("%s: %v: want ErrUnshared %v, the engine's error kept", tc.name, err, tc.want)
		}
		if tc.want && (!strings.Contains(err.Error(), tc.source) || !strings.Contains(err.Error(), "File sharing")) {
			t.Errorf("%s: %v: want the directory and what shares it named", tc.name, err)
		}
	}
}
