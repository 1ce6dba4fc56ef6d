// Package backendtest is the conformance suite every backend passes, case
// for case: [Run] drives a backend through backend.Run (and Warm, for a
// backend.Warmer) with a sandbox.Spec, below the executor, and checks what
// the backend package promises: exit status and output, stdin whole, the
// output cap, the deadline and the kill grace, warm sandboxes used once,
// nothing left behind, isolation as declared.
//
// Every wait is sized from the duration of a trivial run that the suite
// measures first, not from a constant tuned on a fast machine: the suite
// holds on a slow engine (a pod, gVisor, a loaded host) as on a fast one.
package backendtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// Config is one backend under test.
type Config struct {
	// Backend is the backend under test; the caller closes it.
	Backend backend.Backend
	// Image holds sh, cat, echo, sleep, yes, setsid and test (hook-exec's
	// hook-sh does); a backend without images ignores it.
	Image string
	// Left lists what remains of the sandboxes labelled with the execution
	// id (sandbox.LabelExecution), as the backend itself lists them (see
	// [Managed]); nil for a backend that keeps no sandbox of its own. It is
	// asked after every case, once the backend's background cleanups
	// (backend.Cleaner) are done. The host's processes are checked for
	// every backend.
	Left func(ctx context.Context, execution string) ([]string, error)
	// NotApplicable names the cases that cannot apply to this backend,
	// each with why; they are skipped saying so.
	NotApplicable map[Case]string
	// AnswerBound also checks the promise of a kill's timing: a killed run
	// is answered at most backend.KillGrace after its deadline. A timed
	// bound, for the suites on a real engine (e2e), not for unit tests.
	AnswerBound bool
	// Channel gives every sandbox's spec Channel: its program is streamed
	// over the backend's channel, where it has one.
	Channel bool
}

// Case names one behaviour of the suite.
type Case string

// The cases. A backend that is not a backend.Warmer skips CaseWarmOnce and
// CaseDiscard by itself.
const (
	CaseExitAndOutput Case = "ExitAndOutput"
	CaseStdinWhole    Case = "StdinWhole"
	CaseStdinUnread   Case = "StdinUnread"
	CaseOutputCap     Case = "OutputCap"
	CaseDeadline      Case = "Deadline"
	CaseWarmOnce      Case = "WarmOnce"
	CaseDiscard       Case = "Discard"
	// CaseProcessTree: a descendant that leaves the program's session
	// (setsid) ends with the sandbox.
	CaseProcessTree Case = "ProcessTree"
	// CaseIsolation: a file on the host is out of reach when the backend
	// says it isolates (Isolating), in reach when it says it does not.
	CaseIsolation Case = "Isolation"
)

type caseDef struct {
	name   Case
	warmer bool // only for a backend.Warmer
	run    func(*testing.T, *sandboxCase)
}

var cases = []caseDef{
	{CaseExitAndOutput, false, exitAndOutput},
	{CaseStdinWhole, false, stdinWhole},
	{CaseStdinUnread, false, stdinUnread},
	{CaseOutputCap, false, outputCap},
	{CaseDeadline, false, deadline},
	{CaseWarmOnce, true, warmOnce},
	{CaseDiscard, true, discard},
	{CaseProcessTree, false, processTree},
	{CaseIsolation, false, isolation},
}

// Managed is Config.Left for a backend that lists the labels of its managed
// sandboxes (the container backends' Managed).
func Managed(b interface {
	Managed(context.Context) ([]map[string]string, error)
}) func(context.Context, string) ([]string, error) {
	return func(ctx context.Context, execution string) ([]string, error) {
		all, err := b.Managed(ctx)
		if err != nil {
			return nil, err
		}
		var left []string
		for _, l := range all {
			if l[sandbox.LabelExecution] == execution {
				left = append(left, fmt.Sprint(l))
			}
		}
		return left, nil
	}
}

// suite is one backend's run: its config and the measured latency.
type suite struct {
	c Config
	// latency is the longest of two trivial runs, start to answer.
	latency time.Duration
}

// sandboxCase is one case's sandbox: its execution label and a marker for
// its processes (a sleep of so many seconds, unique to the case).
type sandboxCase struct {
	s         *suite
	execution string
	sleep     string
}

// Run runs every case on c.Backend, each as a subtest named by its Case,
// one after the other: the suite's own runs do not load the engine beyond
// what the latency measured first saw.
func Run(t *testing.T, c Config) {
	t.Helper()
	for name, why := range c.NotApplicable {
		if !slices.ContainsFunc(cases, func(tc caseDef) bool { return tc.name == name }) || why == "" {
			t.Fatalf("NotApplicable[%q] = %q: not a case of the suite, or no reason given", name, why)
		}
	}
	s := &suite{c: c}
	s.measure(t)
	for _, tc := range cases {
		t.Run(string(tc.name), func(t *testing.T) {
			if why, ok := c.NotApplicable[tc.name]; ok {
				t.Skipf("not applicable to the %s backend: %s", s.name(), why)
			}
			if _, ok := c.Backend.(backend.Warmer); tc.warmer && !ok {
				t.Skipf("the %s backend is not a backend.Warmer: it starts no sandbox ahead", s.name())
			}
			sc := s.newCase()
			t.Cleanup(func() { sc.nothingLeft(t) }) // after a failed case too
			tc.run(t, sc)
		})
	}
}

// measure times two trivial runs (the first may pay for caches) and keeps
// the longer: the unit of every wait below.
func (s *suite) measure(t *testing.T) {
	t.Helper()
	var took []time.Duration
	for range 2 {
		sc := s.newCase()
		begin := time.Now()
		out, err := s.c.Backend.Run(t.Context(), &backend.Run{Spec: sc.spec(t, "cat >/dev/null; echo ok"), Stdin: []byte("x"), MaxOutput: 1024})
		took = append(took, time.Since(begin).Round(time.Millisecond))
		if err != nil {
			t.Fatalf("a trivial run on %s: %v", s.name(), err)
		}
		if out.ExitCode != 0 || string(out.Stdout) != "ok\n" {
			t.Fatalf("a trivial run on %s: exit %d, stdout %q, stderr %q", s.name(), out.ExitCode, out.Stdout, out.Stderr)
		}
		s.latency = max(s.latency, took[len(took)-1])
		sc.nothingLeft(t)
	}
	t.Logf("%s: two trivial runs took %v: the longer is the unit of the cases' waits", s.name(), took)
}

// name is the backend's, with its runtime when it has one: docker+runsc.
func (s *suite) name() string {
	if rt := backend.RuntimeOf(s.c.Backend); rt != "" {
		return s.c.Backend.Name() + "+" + rt
	}
	return s.c.Backend.Name()
}

// long bounds a run that ends by itself: twenty trivial runs, and the
// kill grace for a run that goes wrong and is killed.
func (s *suite) long() time.Duration { return 20*s.latency + backend.KillGrace }

func (s *suite) newCase() *sandboxCase {
	var b [8]byte
	rand.Read(b[:])
	// A sleep of 7 digits, unlikely to be anyone else's.
	sleep := 1_000_000 + binary.BigEndian.Uint32(b[:4])%8_000_000
	return &sandboxCase{s: s, execution: "backendtest-" + hex.EncodeToString(b[:]), sleep: fmt.Sprint(sleep)}
}

// spec is the case's sandbox running script with sh.
func (sc *sandboxCase) spec(t *testing.T, script string) *sandbox.Spec {
	t.Helper()
	spec, err := sandbox.New(sc.s.c.Image, []string{"sh", "-c", script}, sandbox.WithLabels(map[string]string{sandbox.LabelExecution: sc.execution}))
	if err != nil {
		t.Fatal(err)
	}
	spec.Channel = sc.s.c.Channel
	return spec
}

// run is one backend.Run of script, bounded by timeout.
func (sc *sandboxCase) run(t *testing.T, script string, stdin []byte, maxOutput int64, timeout time.Duration) *backend.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	out, err := sc.s.c.Backend.Run(ctx, &backend.Run{Spec: sc.spec(t, script), Stdin: stdin, MaxOutput: maxOutput})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return out
}

// nothingLeft checks, once the background cleanups are done, that the
// backend lists no sandbox of the case and that no process of it runs on
// the host. It runs as a cleanup, when t.Context is done.
func (sc *sandboxCase) nothingLeft(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), sc.s.long())
	defer cancel()
	if cl, ok := sc.s.c.Backend.(backend.Cleaner); ok {
		if err := cl.WaitCleanup(ctx); err != nil {
			t.Errorf("a background cleanup failed: %v", err)
		}
	}
	if sc.s.c.Left != nil {
		left, err := sc.s.c.Left(ctx, sc.execution)
		if err != nil {
			t.Errorf("list the backend's sandboxes: %v", err)
		} else if len(left) > 0 {
			t.Errorf("%d sandbox(es) of the case survived it: %q", len(left), left)
		}
	}
	if procs := hostProcessesGone(ctx, "sleep "+sc.sleep); len(procs) > 0 {
		t.Errorf("processes of the case survived it on the host: %q", procs)
	}
}

// hostProcessesGone waits, within ctx, until no process of this host holds
// marker in its command line, and returns those still there. It asks
// again while any is: a pod's removal leaves the kill to the kubelet,
// after the API has forgotten the pod, and no event says when it is done.
func hostProcessesGone(ctx context.Context, marker string) []string {
	for {
		procs := hostProcesses(marker)
		if len(procs) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return procs
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// hostProcesses are the command lines of this host's processes that hold
// marker (a container's processes under runc are among them); none where
// there is no /proc.
func hostProcesses(marker string) []string {
	ents, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if cmd := strings.ReplaceAll(string(bytes.TrimRight(b, "\x00")), "\x00", " "); strings.Contains(cmd, marker) {
			found = append(found, cmd)
		}
	}
	return found
}

// exitAndOutput: the program's exit status, stdout and stderr come back
// apart, counted, and nothing says it was killed.
func exitAndOutput(t *testing.T, sc *sandboxCase) {
	out := sc.run(t, "cat >/dev/null; echo out; echo err >&2; exit 3", []byte("event"), 1024, sc.s.long())
	if out.ExitCode != 3 || out.Signal != "" {
		t.Errorf("exit %d, signal %q, want 3 and none", out.ExitCode, out.Signal)
	}
	if string(out.Stdout) != "out\n" || string(out.Stderr) != "err\n" {
		t.Errorf("stdout %q, stderr %q, want %q and %q", out.Stdout, out.Stderr, "out\n", "err\n")
	}
	if out.StdoutBytes != 4 || out.StderrBytes != 4 {
		t.Errorf("counted %d and %d bytes, want 4 and 4", out.StdoutBytes, out.StderrBytes)
	}
	if out.TimedOut || out.Truncated || out.OOMKilled || out.Unconfirmed {
		t.Errorf("timed out %v, truncated %v, OOM-killed %v, unconfirmed %v: want none", out.TimedOut, out.Truncated, out.OOMKilled, out.Unconfirmed)
	}
}

// stdinWhole: stdin larger than any pipe's buffer reaches the program byte
// for byte, then ends (cat returns).
func stdinWhole(t *testing.T, sc *sandboxCase) {
	in := make([]byte, 512<<10)
	rand.Read(in)
	out := sc.run(t, "cat", in, 1<<20, sc.s.long())
	if out.ExitCode != 0 || out.TimedOut {
		t.Fatalf("exit %d, timed out %v (stderr %q): want 0, stdin closed after its last byte", out.ExitCode, out.TimedOut, out.Stderr)
	}
	if !bytes.Equal(out.Stdout, in) {
		t.Errorf("the program read %d bytes back (first difference at %d), want the %d written", len(out.Stdout), firstDiff(out.Stdout, in), len(in))
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// stdinUnread: a program that exits without reading a large stdin is
// answered, with its output, not an error.
func stdinUnread(t *testing.T, sc *sandboxCase) {
	out := sc.run(t, "echo out", bytes.Repeat([]byte("x"), 1<<20), 1024, sc.s.long())
	if out.ExitCode != 0 || string(out.Stdout) != "out\n" || out.TimedOut {
		t.Errorf("exit %d, stdout %q, timed out %v: want 0, %q, no", out.ExitCode, out.Stdout, out.TimedOut, "out\n")
	}
}

// outputCap: a flood is cut at the cap, exactly, and killed there (it would
// run until the deadline otherwise).
func outputCap(t *testing.T, sc *sandboxCase) {
	const maxOutput = 4096
	out := sc.run(t, "yes", nil, maxOutput, sc.s.long())
	if !out.Truncated || len(out.Stdout) != maxOutput || len(out.Stderr) != 0 {
		t.Errorf("truncated %v with %d+%d bytes kept, want truncated at %d", out.Truncated, len(out.Stdout), len(out.Stderr), maxOutput)
	}
	if out.StdoutBytes <= maxOutput {
		t.Errorf("counted %d bytes written, want more than the cap", out.StdoutBytes)
	}
	if out.TimedOut || out.Signal != "SIGKILL" {
		t.Errorf("timed out %v, signal %q: want killed at the cap with SIGKILL, before the deadline", out.TimedOut, out.Signal)
	}
}

// deadline: a program that ignores SIGTERM and leaves children is killed
// at the deadline with SIGKILL, and answered at most backend.KillGrace
// after it (one more trivial run's time for the answer itself).
func deadline(t *testing.T, sc *sandboxCase) {
	// Five trivial runs for the sandbox to start, never under a second: a
	// floor only lengthens the case.
	timeout := max(5*sc.s.latency, time.Second)
	ctx, cancel := context.WithTimeout(t.Context(), timeout)
	defer cancel()
	end, _ := ctx.Deadline()
	script := fmt.Sprintf("trap '' TERM; sleep %s & sleep %s & echo started; wait", sc.sleep, sc.sleep)
	out, err := sc.s.c.Backend.Run(ctx, &backend.Run{Spec: sc.spec(t, script), MaxOutput: 1024})
	late := time.Since(end)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !out.TimedOut || out.Signal != "SIGKILL" || out.ExitCode != backend.KilledExitCode {
		t.Errorf("timed out %v, signal %q, exit %d: want killed at the deadline (SIGKILL, %d); stdout %q, phases %+v (a sandbox not started by the deadline has no signal)",
			out.TimedOut, out.Signal, out.ExitCode, backend.KilledExitCode, out.Stdout, out.Phases)
	}
	t.Logf("killed at the deadline (%v) and answered %v after it", timeout.Round(time.Millisecond), late.Round(time.Millisecond))
	if bound := backend.KillGrace + sc.s.latency; sc.s.c.AnswerBound && late > bound {
		t.Errorf("answered %v after the deadline, over the kill grace %v (and one trivial run's %v)", late.Round(time.Millisecond), backend.KillGrace, sc.s.latency.Round(time.Millisecond))
	}
}

// warmOnce: a sandbox started ahead runs once, with its stdin, and refuses
// a second run; a Discard after the run changes nothing.
func warmOnce(t *testing.T, sc *sandboxCase) {
	ctx, cancel := context.WithTimeout(t.Context(), sc.s.long())
	defer cancel()
	w, err := sc.s.c.Backend.(backend.Warmer).Warm(ctx, sc.spec(t, "cat; echo done"))
	if err != nil {
		t.Fatalf("warm: %v", err)
	}
	defer w.Discard() // after the run: changes nothing
	out, err := w.Run(ctx, []byte("event\n"), 1024)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if out.ExitCode != 0 || string(out.Stdout) != "event\ndone\n" {
		t.Errorf("exit %d, stdout %q, want 0 and %q", out.ExitCode, out.Stdout, "event\ndone\n")
	}
	if _, err := w.Run(ctx, []byte("again\n"), 1024); !errors.Is(err, backend.ErrUsed) {
		t.Errorf("a second run: %v, want backend.ErrUsed", err)
	}
}

// discard: an unused warm sandbox is listed by the backend until Discard
// removes it, and refuses a run after.
func discard(t *testing.T, sc *sandboxCase) {
	ctx, cancel := context.WithTimeout(t.Context(), sc.s.long())
	defer cancel()
	w, err := sc.s.c.Backend.(backend.Warmer).Warm(ctx, sc.spec(t, "sleep "+sc.sleep))
	if err != nil {
		t.Fatalf("warm: %v", err)
	}
	if sc.s.c.Left != nil {
		// The listing sees a live sandbox: the check after the case means something.
		left, err := sc.s.c.Left(ctx, sc.execution)
		if err != nil || len(left) != 1 {
			t.Errorf("before Discard the backend lists %d sandbox(es) of the case (%v), want 1", len(left), err)
		}
	}
	w.Discard()
	if _, err := w.Run(ctx, nil, 1024); !errors.Is(err, backend.ErrUsed) {
		t.Errorf("a run after Discard: %v, want backend.ErrUsed", err)
	}
}

// processTree: a child that leaves the program's session and process group
// (setsid) does not outlive the sandbox.
func processTree(t *testing.T, sc *sandboxCase) {
	// The child says it is detached before the program exits: head waits
	// for its line, written once setsid has run.
	script := fmt.Sprintf("(setsid sh -c 'echo detached; exec sleep %s' </dev/null 2>&1 &) | head -n 1; echo started", sc.sleep)
	out := sc.run(t, script, nil, 1024, sc.s.long())
	if want := "detached\nstarted\n"; out.ExitCode != 0 || string(out.Stdout) != want {
		t.Fatalf("exit %d, stdout %q (stderr %q), want 0 and %q", out.ExitCode, out.Stdout, out.Stderr, want)
	}
	// The check after the case looks for the sleep on the host.
}

// isolation: a file just made on the host is visible to the program
// exactly when the backend says it does not isolate.
func isolation(t *testing.T, sc *sandboxCase) {
	marker := filepath.Join(t.TempDir(), "host-file-"+sc.execution)
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := sc.run(t, fmt.Sprintf("if test -e '%s'; then echo visible; else echo hidden; fi", marker), nil, 1024, sc.s.long())
	want := "visible\n"
	if sc.s.c.Backend.Isolating() {
		want = "hidden\n"
	}
	if string(out.Stdout) != want {
		t.Errorf("Isolating() = %v, and a host file is %q (stderr %q), want %q", sc.s.c.Backend.Isolating(), out.Stdout, out.Stderr, want)
	}
}
