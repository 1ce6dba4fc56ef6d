package tracestore

import (
	"fmt"
	"os"
	"path/filepath"
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
