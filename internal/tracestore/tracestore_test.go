package tracestore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/hook"
)

func trace(i int, hookID, point string) hook.Trace {
	return hook.Trace{SchemaVersion: 1, ExecutionID: fmt.Sprintf("x%d", i), HookID: hookID, Point: point,
		StartedAt: time.Unix(int64(i), 0), FinalAction: hook.Allow}
}

func TestQueryNewestFirstAndFilters(t *testing.T) {
	t.Parallel()
	s, err := Open(t.TempDir(), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		h, p := "a", "tool.before"
		if i%2 == 1 {
			h, p = "b", "file.before_write"
		}
		if err := s.Append(trace(i, h, p)); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := s.Query(Query{})
	if len(all) != 10 {
		t.Fatalf("%d traces, want 10: %v", len(all), ids(all))
	}
	if all[0].ExecutionID != "x9" {
		t.Errorf("first trace %s, want the newest x9: %v", all[0].ExecutionID, ids(all))
	}
	if all[9].ExecutionID != "x0" {
		t.Errorf("last trace %s, want the oldest x0: %v", all[9].ExecutionID, ids(all))
	}
	got, _ := s.Query(Query{Limit: 2, HookID: "a"})
	if strings.Join(ids(got), ",") != "x8,x6" {
		t.Fatalf("hook a, limit 2: %v", ids(got))
	}
	got, _ = s.Query(Query{Point: "file.before_write"})
	if len(got) != 5 {
		t.Fatalf("point filter: %d traces, want 5: %v", len(got), ids(got))
	}
	if got[0].HookID != "b" {
		t.Errorf("point filter: first trace's hook %q, want %q", got[0].HookID, "b")
	}
}

func ids(ts []hook.Trace) []string {
	var s []string
	for _, t := range ts {
		s = append(s, t.ExecutionID)
	}
	return s
}

func TestBoundedByRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := Open(dir, 2000, 2)
	for i := range 200 {
		if err := s.Append(trace(i, "h", "p")); err != nil {
			t.Fatal(err)
		}
	}
	var total int64
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fi, _ := e.Info()
		total += fi.Size()
	}
	if total > 3*2000+100 { // three files and the lock file
		t.Fatalf("store holds %d bytes, bound is %d", total, 3*2000)
	}
	got, _ := s.Query(Query{Limit: 1})
	if got[0].ExecutionID != "x199" {
		t.Fatalf("newest is %s", got[0].ExecutionID)
	}
	if _, err := os.Stat(filepath.Join(dir, "traces.jsonl.3")); !os.IsNotExist(err) {
		t.Fatal("kept more rotated files than asked")
	}
}

func TestConcurrentAppendsAreWhole(t *testing.T) {
	t.Parallel()
	s, _ := Open(t.TempDir(), 1<<20, 0)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() { s.Append(trace(i, "h", "p")) })
	}
	wg.Wait()
	got, _ := s.Query(Query{})
	if len(got) != 50 {
		t.Fatalf("%d of 50 traces readable", len(got))
	}
}

func TestNeverHoldsASecret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := Open(dir, 0, 0)
	secrets := []string{"AKIAIOSFODNN7EXAMPLE", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "hunter2secret", "glpat-abcdefghij0123456789"}
	tr := trace(1, "h", "p")
	tr.StderrExcerpt = "aws " + secrets[0] + " token " + secrets[1] + " password=" + secrets[2]
	tr.Failure = &hook.Failure{Kind: hook.FailExitNonzero, Message: "push with " + secrets[3] + " failed"}
	if err := s.Append(tr); err != nil { // deliberately not redacted by the caller
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "traces.jsonl"))
	for _, sec := range secrets {
		if strings.Contains(string(b), sec) {
			t.Fatalf("the store holds %q", sec)
		}
	}
	if !strings.Contains(string(b), hook.Redacted) {
		t.Fatal("nothing was redacted")
	}
}

// TestMain lets the test binary act as a second process appending traces.
func TestMain(m *testing.M) {
	if dir := os.Getenv("TRACESTORE_ONE"); dir != "" {
		s, err := Open(dir, 0, 0)
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString("ready\n")
		if s.Append(trace(1, "child", "tool.before")) != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	if dir := os.Getenv("TRACESTORE_APPENDER"); dir != "" {
		max, _ := strconv.ParseInt(os.Getenv("TRACESTORE_MAX"), 10, 64)
		s, err := Open(dir, max, 3)
		if err != nil {
			os.Exit(2)
		}
		for i := range 200 {
			if s.Append(trace(i, "child-"+os.Getenv("TRACESTORE_NAME"), "tool.before")) != nil {
				os.Exit(3)
			}
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestTwoProcessesShareTheStore: the lock holds across processes. Without
// rotation nothing is lost: 200 traces of each; through rotation every
// line of every file is one whole trace (rotation drops the oldest files
// by design).
func TestTwoProcessesShareTheStore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		max  int64
	}{{"no rotation", 1 << 20}, {"rotating", 4096}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			var cmds []*exec.Cmd
			for _, name := range []string{"a", "b"} {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "TRACESTORE_APPENDER="+dir, "TRACESTORE_NAME="+name, fmt.Sprintf("TRACESTORE_MAX=%d", tc.max))
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, cmd)
			}
			for _, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Fatalf("appender: %v", err)
				}
			}
			files, _ := filepath.Glob(filepath.Join(dir, "traces*"))
			lines := 0
			for _, f := range files {
				if strings.HasSuffix(f, ".lock") {
					continue
				}
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				// The size check and the append are one step under the
				// lock: two processes never both append past the bound.
				if int64(len(b)) > tc.max {
					t.Errorf("%s holds %d bytes, over the bound of %d", filepath.Base(f), len(b), tc.max)
				}
				for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
					if l == "" {
						continue
					}
					var tr hook.Trace
					if err := json.Unmarshal([]byte(l), &tr); err != nil {
						t.Fatalf("%s: a torn line %q: %v", filepath.Base(f), l, err)
					}
					lines++
				}
			}
			s, _ := Open(dir, tc.max, 3)
			got, err := s.Query(Query{})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != lines || lines == 0 {
				t.Errorf("query returned %d of the %d lines stored", len(got), lines)
			}
			if tc.max < 1<<20 {
				return
			}
			per := map[string]int{}
			for _, tr := range got {
				per[tr.HookID]++
			}
			if per["child-a"] != 200 || per["child-b"] != 200 {
				t.Errorf("traces per process %v, want 200 of each", per)
			}
		})
	}
}

// TestAnotherProcessWaitsForTheLock: while this process holds the store's
// lock, another process's append waits for it.
func TestAnotherProcessWaitsForTheLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := Open(dir, 0, 0)
	unlock, err := s.lock()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TRACESTORE_ONE="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 6)
	if _, err := io.ReadFull(out, buf); err != nil || string(buf) != "ready\n" {
		t.Fatalf("child: %q %v", buf, err)
	}
	time.Sleep(300 * time.Millisecond) // its append, were it not waiting, is done by now
	if b, _ := os.ReadFile(filepath.Join(dir, fileName)); len(b) != 0 {
		t.Fatalf("another process appended while this one held the lock: %q", b)
	}
	unlock()
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Query(Query{})
	if len(got) != 1 {
		t.Errorf("%d traces after the lock was released, want the child's one", len(got))
	}
}

// A run is found by its execution id or by a prefix only it has; the
// reason filter reads the kept reason in any case.
func TestFindAndReason(t *testing.T) {
	t.Parallel()
	s, _ := Open(t.TempDir(), 0, 0)
	for i, id := range []string{"hookexec_ab12", "hookexec_ab34", "hookexec_cd56"} {
		tr := trace(i, "h", "p")
		tr.ExecutionID = id
		if i == 2 {
			tr.FinalAction, tr.Reason = hook.Deny, "rm -rf is refused by the Guard"
		}
		if err := s.Append(tr); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]string{"hookexec_ab12": "hookexec_ab12", "hookexec_c": "hookexec_cd56"} {
		if tr, err := s.Find(id); err != nil || tr.ExecutionID != want {
			t.Errorf("Find(%q) = %q, %v; want %q", id, tr.ExecutionID, err, want)
		}
	}
	if _, err := s.Find("hookexec_ab"); err == nil || errors.Is(err, ErrNoTrace) || !strings.Contains(err.Error(), "2 traces begin with") {
		t.Errorf("Find of a prefix two ids share: %v, want it named ambiguous", err)
	}
	for _, id := range []string{"hookexec_zz", ""} {
		if _, err := s.Find(id); !errors.Is(err, ErrNoTrace) {
			t.Errorf("Find(%q): %v, want ErrNoTrace", id, err)
		}
	}
	got, _ := s.Query(Query{Reason: "guard"})
	if len(got) != 1 || got[0].ExecutionID != "hookexec_cd56" || got[0].Reason != "rm -rf is refused by the Guard" {
		t.Errorf("reason filter: %+v, want the denied run with its reason", ids(got))
	}
}

// Several rotations between two looks (a burst, a busy machine): the
// files rotated in between are followed too, oldest first.
func TestFollowThroughRotations(t *testing.T) {
	t.Parallel()
	s, _ := Open(t.TempDir(), 1200, 6)
	if err := s.Append(trace(0, "a", "p")); err != nil {
		t.Fatal(err)
	}
	fl, err := s.Follow(Query{})
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	var want []string
	for i := 1; i <= 12; i++ { // about 380 bytes each, three to a file: four rotations before Run looks, none lost
		want = append(want, fmt.Sprintf("x%d", i))
		if err := s.Append(trace(i, "a", "p")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(s.path(4)); err != nil {
		t.Fatalf("not rotated four times: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var seen []string
	err = fl.Run(ctx, time.Millisecond, func(tr hook.Trace) error {
		seen = append(seen, tr.ExecutionID)
		if len(seen) == len(want) {
			cancel()
		}
		return nil
	})
	if err != nil || strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Errorf("followed %v (%v), want %v", seen, err, want)
	}
}

// Follow hands over what is appended after it starts, not before, through
// a rotation, filtered, until its context ends.
func TestFollow(t *testing.T) {
	t.Parallel()
	// One trace to a file, each append rotates; all kept, however late Run looks.
	s, _ := Open(t.TempDir(), 600, 13)
	if err := s.Append(trace(0, "a", "p")); err != nil {
		t.Fatal(err)
	}
	fl, err := s.Follow(Query{HookID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := make(chan string, 100)
	done := make(chan error, 1)
	go func() {
		done <- fl.Run(ctx, 5*time.Millisecond, func(tr hook.Trace) error {
			got <- tr.ExecutionID
			return nil
		})
	}()
	t.Cleanup(func() { cancel(); <-done; fl.Close() }) // Run ends before its file is closed
	var want []string
	for i := 1; i <= 12; i++ {
		h := "a"
		if i%3 == 0 {
			h = "b"
		} else {
			want = append(want, fmt.Sprintf("x%d", i))
		}
		if err := s.Append(trace(i, h, "p")); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var seen []string
	for deadline := time.After(10 * time.Second); len(seen) < len(want); {
		select {
		case id := <-got:
			seen = append(seen, id)
		case <-deadline:
			t.Fatalf("followed %v, want %v", seen, want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	done <- nil // for the cleanup
	if strings.Join(seen, ",") != strings.Join(want, ",") {
		t.Errorf("followed %v, want %v (hook a's, after the start, in order)", seen, want)
	}
	if len(got) != 0 {
		t.Errorf("more followed than appended: %v", <-got)
	}
}
