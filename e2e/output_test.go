package e2e

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/containerd"
	hookengine "github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// TestInstantExitKeepsItsOutput: a process with no launcher that prints a
// line and exits at once, whatever it does with stdin (never reads it,
// reads one byte, gets none), returns its line: 200 runs on containerd, four
// at a time (the load of a busy host), and 50 on Docker. None may come back
// with an empty stdout.
func TestInstantExitKeepsItsOutput(t *testing.T) {
	t.Parallel()
	for _, eng := range engines(t) {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			runs := 200
			if eng.name == "docker" {
				runs = 50 // Docker kept its output already; a smaller check
			}
			timeout := 20 * coldLatency(t, eng)
			stdins := [][]byte{nil, bytes.Repeat([]byte("x"), 64<<10), []byte("y")}
			scripts := []string{`echo "line-$N"`, `echo "line-$N"`, `head -c1 >/dev/null; echo "line-$N"`}
			work := make(chan int)
			var mu sync.Mutex
			lost := 0
			var wg sync.WaitGroup
			for range 4 {
				wg.Go(func() {
					for i := range work {
						k := i % len(scripts)
						spec, err := sandbox.New(eng.refs[launcher.Shell], []string{"sh", "-c", scripts[k]}, sandbox.WithEnv([]string{fmt.Sprintf("N=%d", i)}))
						if err != nil {
							t.Error(err)
							return
						}
						ctx, cancel := context.WithTimeout(context.Background(), timeout)
						out, err := eng.b.Run(ctx, &backend.Run{Spec: spec, Stdin: stdins[k], MaxOutput: 4096})
						cancel()
						mu.Lock()
						switch want := fmt.Sprintf("line-%d\n", i); {
						case err != nil:
							t.Errorf("run %d: %v", i, err)
						case string(out.Stdout) != want:
							lost++
							t.Errorf("run %d (stdin %d bytes): stdout %q, exit %d, want %q", i, len(stdins[k]), out.Stdout, out.ExitCode, want)
						}
						mu.Unlock()
					}
				})
			}
			for i := range runs {
				work <- i
			}
			close(work)
			wg.Wait()
			t.Logf("%s: %d of %d instant exits lost their output", eng.name, lost, runs)
		})
	}
}

// TestImageCheckWithoutDDIsAlwaysRight: the probe of an image without dd
// answers "missing dd" every time, on both engines (it was right 3 times
// in 10 on containerd when the probe's output was lost).
func TestImageCheckWithoutDDIsAlwaysRight(t *testing.T) {
	t.Parallel()
	nodd := noddImage(t)
	for _, eng := range engines(t) {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			image := nodd
			if eng.name == "containerd" {
				if err := hookengine.CopyToContainerd(context.Background(), dock, ctrd, nodd); err != nil {
					t.Fatal(err)
				}
				image = containerd.NormalizeRef(nodd)
			}
			wrong := 0
			for i := range 50 {
				rep, err := executor.CheckImage(context.Background(), eng.b, image, []launcher.Lang{launcher.Shell}, nil)
				if err != nil {
					t.Fatalf("check %d: %v", i, err)
				}
				lr := rep.Langs[launcher.Shell]
				if lr.Present["dd"] {
					wrong++
					t.Errorf("check %d: dd reported present (report %+v)", i, lr)
				}
			}
			t.Logf("%s: %d of 50 checks wrong", eng.name, wrong)
		})
	}
}
