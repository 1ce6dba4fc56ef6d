package statefile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

type doc struct {
	N       int    `json:"n"`
	Payload string `json:"payload"`
}

// A child process that writes the document as fast as it can until killed.
func TestMain(m *testing.M) {
	if path := os.Getenv("STATEFILE_WRITER"); path != "" {
		payload := strings.Repeat("x", 64<<10) // a write that takes a while
		for {
			Update(path, func(d *doc) error { d.N++; d.Payload = payload; return nil })
		}
	}
	os.Exit(m.Run())
}

func TestSurvivesSIGKILLMidWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	for i := range 5 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "STATEFILE_WRITER="+path)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill it mid-stream: once it has written at least once more (a
		// slow machine may take a while to start it), a little later.
		var before doc
		Read(path, &before)
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
			var d doc
			if Read(path, &d) == nil && d.N > before.N {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the writer completed no write in a minute")
			}
		}
		time.Sleep(time.Duration(i*7) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		var d doc
		if err := Read(path, &d); err != nil {
			t.Fatalf("after SIGKILL %d: %v", i+1, err)
		}
		if d.N <= before.N {
			t.Fatalf("after SIGKILL %d: the document went back from %d to %d", i+1, before.N, d.N)
		}
	}
	if err := Update(path, func(d *doc) error { return nil }); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	hidden, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*"))
	if n := len(left) + len(hidden); n != 2 {
		t.Errorf("files beside the state file after the next update: %v %v, want only it and its lock", left, hidden)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("state file mode %v, want private (0600)", perm)
	}
}

func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 25 {
				if err := Update(path, func(d *doc) error { d.N++; return nil }); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	var d doc
	if err := Read(path, &d); err != nil {
		t.Fatal(err)
	}
	if d.N != 200 {
		t.Errorf("N = %d after 200 updates", d.N)
	}
}

func TestChangeErrorWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := Update(path, func(d *doc) error { d.N = 1; return nil }); err != nil {
		t.Fatal(err)
	}
	want := fmt.Errorf("refused")
	if err := Update(path, func(d *doc) error { d.N = 2; return want }); err != want {
		t.Fatalf("Update = %v, want the change's error", err)
	}
	var d doc
	Read(path, &d)
	if d.N != 1 {
		t.Errorf("N = %d, want 1: a refused change was written", d.N)
	}
}

func TestUnchangedIsNotWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := Update(path, func(d *doc) error { d.N = 1; return nil }); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Update(path, func(d *doc) error { return nil }); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) {
		t.Error("an unchanged document was written again (a new file replaced it)")
	}
}
