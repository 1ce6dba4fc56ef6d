package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/tracestore"
)

// "Why was this denied?": a denied run's reason is in the table, in
// traces show of a prefix of its id, and found by --reason.
func TestTracesSayWhy(t *testing.T) {
	t.Parallel()
	dir, state := t.TempDir(), t.TempDir()
	script := filepath.Join(dir, "h.sh")
	if err := os.WriteFile(script, []byte(`cat >/dev/null; echo '{"schema_version":1,"action":"deny","reason":"rm -rf / is not for hooks"}'`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	event := `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"data":{"cmd":"rm -rf /"}}`
	if r := hookExec(t, event, "run", "--backend", "local", "--state-dir", state, "--scope", "owner", "--script", script); r.code != exitDeny {
		t.Fatalf("run: exit %d, want %d: %s", r.code, exitDeny, r.stderr)
	}
	r := hookExec(t, "", "traces", "--state-dir", state)
	if r.code != exitOK || !strings.Contains(r.stdout, "REASON") || !strings.Contains(r.stdout, "rm -rf / is not for hooks") {
		t.Fatalf("traces: exit %d, stdout %q: want the reason in its column", r.code, r.stdout)
	}
	i := strings.Index(r.stdout, "hookexec_")
	if i < 0 {
		t.Fatalf("no execution id in %q", r.stdout)
	}
	id := r.stdout[i : i+len("hookexec_")+6]
	r = hookExec(t, "", "traces", "show", id, "--state-dir", state)
	var tr hook.Trace
	if err := json.Unmarshal([]byte(r.stdout), &tr); r.code != exitOK || err != nil {
		t.Fatalf("traces show %s: exit %d, %v: %q", id, r.code, err, r.stdout)
	}
	if tr.FinalAction != hook.Deny || tr.Reason != "rm -rf / is not for hooks" || !strings.HasPrefix(tr.ExecutionID, id) {
		t.Errorf("traces show: %s %q %s, want the denied run with its reason", tr.FinalAction, tr.Reason, tr.ExecutionID)
	}
	r = hookExec(t, "", "traces", "show", "hookexec_none", "--state-dir", state)
	if r.code != exitFail || !strings.Contains(r.stderr, "no such trace") {
		t.Errorf("traces show of no run: exit %d, stderr %q: want %d naming it", r.code, r.stderr, exitFail)
	}
	for text, want := range map[string]bool{"RM -RF": true, "chmod": false} {
		r = hookExec(t, "", "traces", "--reason", text, "--json", "--state-dir", state)
		if got := strings.Contains(r.stdout, `"reason":"rm -rf / is not for hooks"`); r.code != exitOK || got != want {
			t.Errorf("traces --reason %q: exit %d, found %v, want %v", text, r.code, got, want)
		}
	}
}

// syncBuffer is a bytes.Buffer a command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

// following is a `traces --follow` run on a store of the test's own, while
// the test stores runs.
type following struct {
	t         *testing.T
	store     *tracestore.Store
	out, errb syncBuffer
	done      chan int
	cancel    context.CancelFunc
}

// startFollow stores the runs ids (hook id and execution id alike), then
// starts `traces --follow` with args on the store.
func startFollow(t *testing.T, ids []string, args ...string) *following {
	t.Helper()
	state := t.TempDir()
	store, err := tracestore.Open(state, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	f := &following{t: t, store: store, done: make(chan int, 1), cancel: cancel}
	for _, id := range ids {
		f.add(id)
	}
	go func() {
		f.done <- execute(ctx, append([]string{"traces", "--follow", "--state-dir", state}, args...), stdio{strings.NewReader(""), &f.out, &f.errb})
	}()
	return f
}

func (f *following) add(id string) {
	f.t.Helper()
	if err := f.store.Append(hook.Trace{SchemaVersion: 1, ExecutionID: "hookexec_" + id, HookID: id, Point: "tool.before", FinalAction: hook.Allow, StartedAt: time.Now()}); err != nil {
		f.t.Fatal(err)
	}
}

// waitFor waits until stdout holds s (the test's deadline bounds it).
func (f *following) waitFor(s string) {
	f.t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(f.out.String(), s); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			f.cancel()
			f.t.Fatalf("%q never printed: stdout %q, stderr %q", s, f.out.String(), f.errb.String())
		}
	}
}

// stop interrupts it and returns its exit status and what it printed.
func (f *following) stop() (int, string) {
	f.t.Helper()
	f.cancel()
	select {
	case code := <-f.done:
		return code, f.out.String()
	case <-time.After(10 * time.Second):
		f.t.Fatal("traces --follow went on after its context ended")
		return 0, ""
	}
}

// traces --follow prints what is stored, then each run stored after it,
// until interrupted (its context ends).
func TestTracesFollow(t *testing.T) {
	t.Parallel()
	f := startFollow(t, []string{"before"}, "--json")
	f.waitFor("hookexec_before") // the stored run first
	f.add("after")
	f.waitFor("hookexec_after") // the run stored after the start
	code, out := f.stop()
	if code != exitOK {
		t.Errorf("exit %d after the interrupt, want %d: %s", code, exitOK, f.errb.String())
	}
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("%d lines, want 2: %q", n, out)
	}
}

// The table's rows are aligned together: each column starts where the
// header's does.
func TestTracesTableAligned(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	store, err := tracestore.Open(state, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "a-much-longer-hook-id"} {
		if err := store.Append(hook.Trace{SchemaVersion: 1, ExecutionID: "hookexec_" + id, HookID: id, Point: "tool.before", FinalAction: hook.Allow, StartedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
	}
	r := hookExec(t, "", "traces", "--state-dir", state)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != exitOK || len(lines) != 3 {
		t.Fatalf("traces: exit %d, %q", r.code, r.stdout)
	}
	col := strings.Index(lines[0], "POINT")
	for _, l := range lines[1:] {
		if strings.Index(l, "tool.before") != col {
			t.Errorf("POINT at %d in the header, tool.before at %d in %q", col, strings.Index(l, "tool.before"), l)
		}
	}
}

// Following, the rows written as they come keep the header's columns: a
// run stored after the start, with a longer hook id, too.
func TestTracesFollowAligned(t *testing.T) {
	t.Parallel()
	f := startFollow(t, []string{"a"})
	f.waitFor("hookexec_a")
	f.add("a-much-longer-hook-id")
	f.waitFor("hookexec_a-much")
	_, out := f.stop()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3: %q", len(lines), out)
	}
	col := strings.Index(lines[0], "POINT")
	for _, l := range lines[1:] {
		if strings.Index(l, "tool.before") != col {
			t.Errorf("POINT at %d in the header, tool.before at %d in %q", col, strings.Index(l, "tool.before"), l)
		}
	}
}
