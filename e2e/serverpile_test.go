package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/sandbox"
)

// TestHundredStateDirectoriesLeaveNothing (issue 49): a test suite that
// gives each test a state directory of its own once left a server, and
// its pool, per directory, each idle for 15 minutes. The user's socket
// gets a server only for the user's own state directory: a hundred calls
// through the front, each with a state directory of its own, leave no
// server, no socket and no sandbox; the user's own call does start one, on
// the same socket, which the others' calls then leave alone.
func TestHundredStateDirectoriesLeaveNothing(t *testing.T) {
	t.Parallel()
	eng := engines(t)[0]
	dir := hostDir(t)
	run, xdg := filepath.Join(dir, "run"), filepath.Join(dir, "xdg")
	os.MkdirAll(run, 0o700)
	sock := filepath.Join(run, "hook-exec", "server.sock")
	guard := scriptFile(t, "g.sh", "cat >/dev/null; echo '{\"schema_version\":1,\"action\":\"allow\"}'\n")
	// The user's socket (no $HOOKEXEC_SERVER), in a runtime directory of
	// the test's own.
	user := []string{"HOOKEXEC_SERVER=", "XDG_RUNTIME_DIR=" + run, "XDG_STATE_HOME=" + xdg, "HOOKEXEC_BACKEND=" + eng.name, "HOOKEXEC_SERVER_IDLE=2m"}
	// call runs the hook through the front; from the workers too: a
	// failure is an Errorf, and the zero trace.
	call := func(state string, real bool) hook.Trace {
		t.Helper()
		tr := filepath.Join(hostDir(t), "trace.json")
		args := []string{"run", "--script", guard, "--trace", tr, timeoutFlag(t, eng.name)}
		if !real {
			args = append(args, "--matcher", "write") // skipped: no sandbox, no trace
		}
		r := hookExec(t, toolEvent("ls"), append(user, "HOOKEXEC_STATE_DIR="+state), args...)
		r.wantCode(t, 0)
		var trace hook.Trace
		if real {
			b, err := os.ReadFile(tr)
			if err == nil {
				err = json.Unmarshal(b, &trace)
			}
			if err != nil {
				t.Errorf("trace: %v (stderr %q)", err, r.stderr)
			}
		}
		return trace
	}
	var mu sync.Mutex
	var executions []string
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				tr := call(filepath.Join(dir, "states", fmt.Sprint(i)), i%10 == 0)
				if tr.Via != "" && tr.Via != "process" {
					t.Errorf("state directory %d: via %q, want its own process", i, tr.Via)
				}
				mu.Lock()
				if tr.ExecutionID != "" {
					executions = append(executions, tr.ExecutionID)
				}
				mu.Unlock()
			}
		})
	}
	for i := range 100 {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(executions) != 10 {
		t.Errorf("%d real runs traced, want 10", len(executions))
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("a server's socket is left at %s (%v)", sock, err)
	}
	if pids := servesUnder(t, dir); len(pids) > 0 {
		t.Errorf("server processes left for the suite's state directories: %v", pids)
	}
	// A call's own sandboxes go with its reaper, after its exit.
	waitNoSandbox(t, executions)

	// The user's own state directory does start the user's server; the
	// suite's calls are still their own processes beside it.
	call("", true)
	var st cliResult
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if st = hookExec(t, nil, append(user, "HOOKEXEC_STATE_DIR="), "server", "status"); st.code == 0 || time.Now().After(deadline) {
			break
		}
	}
	st.wantCode(t, 0)
	t.Cleanup(func() { hookExec(t, nil, append(user, "HOOKEXEC_STATE_DIR="), "server", "stop") })
	if !strings.Contains(st.stdout, filepath.Join(xdg, "hook-exec")) {
		t.Errorf("server status %q: want the user's state directory", st.stdout)
	}
	if tr := call(filepath.Join(dir, "states", "after"), true); tr.Via != "process" {
		t.Errorf("a suite's call beside the user's server went via %q, want its own process", tr.Via)
	}
	if tr := call("", true); tr.Via != "server" {
		t.Errorf("the user's second call went via %q, want the server", tr.Via)
	}
	if pids := servesUnder(t, dir); len(pids) != 1 {
		t.Errorf("server processes %v: want the user's one", pids)
	}
}

// servesUnder lists the pids of the hook-exec servers whose command line
// names a path under dir.
func servesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var pids []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(string(b), "\x00")
		if len(args) > 1 && args[1] == "serve" && strings.Contains(string(b), dir) {
			pids = append(pids, regexp.MustCompile(`\d+`).FindString(p))
		}
	}
	return pids
}

// waitNoSandbox waits, bounded, until no sandbox of the executions is left
// on either engine.
func waitNoSandbox(t *testing.T, executions []string) {
	t.Helper()
	want := map[string]bool{}
	for _, e := range executions {
		want[e] = true
	}
	var left []string
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(250 * time.Millisecond) {
		left = left[:0]
		for _, b := range []managedLister{dock, ctrd} {
			managed, err := b.Managed(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range managed {
				if want[l[sandbox.LabelExecution]] {
					left = append(left, l[sandbox.LabelExecution])
				}
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("sandboxes left: %v", left)
	}
}
