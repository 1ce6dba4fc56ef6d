package e2e

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	hookengine "github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/sandbox"
)

// containersOf returns the managed containers whose owner is pid.
func containersOf(t *testing.T, eng engineUnderTest, pid int) int {
	t.Helper()
	all, err := eng.b.Managed(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range all {
		if l[sandbox.LabelOwnerPID] == strconv.Itoa(pid) {
			n++
		}
	}
	return n
}

// startSleeper starts `hook-exec run` on a script that sleeps, and waits
// until its sandbox exists.
func startSleeper(t *testing.T, eng engineUnderTest, env ...string) *exec.Cmd {
	t.Helper()
	script := scriptFile(t, "sleep.sh", "sleep 1000\n")
	cmd := exec.Command(cli(t), slices.Concat([]string{"run", "--backend", eng.name}, eng.flags, []string{"--script", script, "--timeout", "120s"})...)
	cmd.Stdin = strings.NewReader(string(toolEvent("ls")))
	cmd.Env = append(os.Environ(), env...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	deadline := time.Now().Add(30*time.Second + eng.start)
	for containersOf(t, eng, cmd.Process.Pid) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the sleeper's sandbox never appeared")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return cmd
}

// TestKilledOwnerIsSwept: hook-exec killed with SIGKILL mid-run leaves an
// orphan; the next hook-exec command removes it, never a live owner's.
func TestKilledOwnerIsSwept(t *testing.T) {
	t.Parallel()
	for _, eng := range engines(t) {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			// No reapers: the orphan must stay for the next command to sweep.
			dead := startSleeper(t, eng, hookengine.ReaperEnv+"=0")
			live := startSleeper(t, eng, hookengine.ReaperEnv+"=0")
			dead.Process.Signal(syscall.SIGKILL)
			dead.Wait()
			if containersOf(t, eng, dead.Process.Pid) != 1 {
				t.Fatal("the killed owner's sandbox is not there to sweep")
			}
			// Any command sweeps; `traces` opens no engine, `gc` does on purpose.
			r := hookExec(t, nil, nil, "gc", "--backend", eng.name)
			if r.code != 0 {
				t.Fatalf("gc: exit %d %q %q", r.code, r.stdout, r.stderr)
			}
			if n := containersOf(t, eng, dead.Process.Pid); n != 0 {
				all, _ := eng.b.Managed(context.Background())
				t.Fatalf("%d orphan(s) of the killed owner %d left (gc said %q %q): %v", n, dead.Process.Pid, r.stdout, r.stderr, all)
			}
			if containersOf(t, eng, live.Process.Pid) != 1 {
				t.Fatal("a live owner's sandbox was swept")
			}
			// Issue 31: containerd 1.6 kept the shim of each swept sandbox
			// whose owner died holding its FIFOs, alive and serving nothing.
			if eng.name == "containerd" {
				deadline := time.Now().Add(5 * time.Second)
				for len(orphanShims()) > 0 && time.Now().Before(deadline) {
					time.Sleep(100 * time.Millisecond)
				}
				if left := orphanShims(); len(left) > 0 {
					t.Errorf("shims left serving nothing after gc: %v", left)
				}
			}
			// A run sweeps too: kill the live one, then run something else.
			live.Process.Signal(syscall.SIGKILL)
			live.Wait()
			script := scriptFile(t, "ok.sh", shAllow+"\n")
			if r := hookExec(t, toolEvent("ls"), nil, "run", "--backend", eng.name, "--script", script); r.code != 0 {
				t.Fatalf("run: exit %d %q", r.code, r.stderr)
			}
			if n := containersOf(t, eng, live.Process.Pid); n != 0 {
				t.Fatalf("%d orphan(s) left after the next run", n)
			}
		})
	}
}

// TestGCSweepsBothEngines: `hook-exec gc` with no backend named sweeps
// Docker and containerd.
func TestGCSweepsBothEngines(t *testing.T) {
	t.Parallel()
	engs := engines(t)
	var owners []*exec.Cmd
	for _, eng := range engs {
		o := startSleeper(t, eng, hookengine.ReaperEnv+"=0")
		o.Process.Signal(syscall.SIGKILL)
		o.Wait()
		owners = append(owners, o)
	}
	env := []string{"HOOKEXEC_BACKEND="}
	if r := hookExec(t, nil, env, "gc"); r.code != 0 {
		t.Fatalf("gc: exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	for i, eng := range engs {
		if n := containersOf(t, eng, owners[i].Process.Pid); n != 0 {
			t.Errorf("%s: %d orphan(s) of the killed owner left after gc with no backend named", eng.name, n)
		}
	}
}

// reapers returns the pids of the reaper processes watching owner.
func reapers(owner int) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(args) > 1 && args[1] == "reap" && slices.Contains(args, strconv.Itoa(owner)) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestKilledOwnerIsReaped: hook-exec killed with SIGKILL mid-run (as a host
// that kills its hook's process group at a timeout does) leaves nothing
// running: its reaper removes the sandbox at once, long before the run's
// own deadline, and then exits. A run that ends on its own leaves no
// reaper behind.
func TestKilledOwnerIsReaped(t *testing.T) {
	t.Parallel()
	for _, eng := range slices.Concat(engines(t), k8sEngines(t)) {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			owner := startSleeper(t, eng) // its deadline is 120 s away
			if len(reapers(owner.Process.Pid)) != 1 {
				t.Fatalf("reapers of %d: %v, want one", owner.Process.Pid, reapers(owner.Process.Pid))
			}
			owner.Process.Signal(syscall.SIGKILL)
			killed := time.Now()
			// The reaper waits for its owner to be gone (a zombie counts),
			// then removes the sandbox as a sweep does: alone that takes a
			// fraction of a second, but beside a full suite a forced removal
			// on Docker took 7 s. Without a reaper the sandbox would run on
			// until its deadline (120 s) and past it: half of that is the bound.
			bound := 60 * time.Second
			for containersOf(t, eng, owner.Process.Pid) != 0 {
				if time.Since(killed) > bound {
					t.Fatalf("the killed owner's sandbox still runs %v later", bound)
				}
				time.Sleep(50 * time.Millisecond)
			}
			t.Logf("%s: sandbox gone %v after its owner was killed", eng.name, time.Since(killed).Round(time.Millisecond))
			for len(reapers(owner.Process.Pid)) != 0 {
				if time.Since(killed) > bound {
					t.Fatalf("the reaper of %d did not exit", owner.Process.Pid)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	t.Run("a run that ends leaves no reaper", func(t *testing.T) {
		script := scriptFile(t, "ok.sh", shAllow+"\n")
		cmd := exec.Command(cli(t), "run", "--script", script)
		cmd.Stdin = strings.NewReader(string(toolEvent("ls")))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run: %v %s", err, out)
		}
		deadline := time.Now().Add(10 * time.Second)
		for len(reapers(cmd.Process.Pid)) != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("reaper %v still runs after its owner ended", reapers(cmd.Process.Pid))
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// proxy forwards a unix socket to the Docker engine's, and can cut every
// connection, as an engine restart does.
type proxy struct {
	path, target string
	mu           sync.Mutex
	ln           net.Listener
	conns        []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{path: filepath.Join(t.TempDir(), "engine.sock"), target: target}
	p.up(t)
	t.Cleanup(p.down)
	return p
}

func (p *proxy) up(t *testing.T) {
	ln, err := net.Listen("unix", p.path)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.(*net.UnixConn).CloseWrite() }()
			go func() { io.Copy(c, up); c.(*net.UnixConn).CloseWrite() }()
		}
	}()
}

// down closes the listener and every connection.
func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestEngineLostMidRun: the engine goes away during a run: the run ends
// with engine_error within its timeout, no hang; the next run works once
// the engine is back, and the orphan is swept.
func TestEngineLostMidRun(t *testing.T) {
	t.Parallel()
	engines(t)
	eng := engines(t)[0] // docker, through a proxy that can be cut
	p := newProxy(t, "/var/run/docker.sock")
	hostEnv := "DOCKER_HOST=unix://" + p.path
	script := scriptFile(t, "sleep.sh", "sleep 1000\n")
	cmd := exec.Command(cli(t), "run", "--script", script, "--timeout", "8s", "--trace", "-")
	cmd.Stdin = strings.NewReader(string(toolEvent("ls")))
	cmd.Env = append(os.Environ(), hostEnv)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30*time.Second + eng.start)
	for containersOf(t, eng, cmd.Process.Pid) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the sandbox never appeared")
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.down()
	err := cmd.Wait()
	elapsed := time.Since(start)
	var ee *exec.ExitError
	if !errorsAs(err, &ee) {
		t.Fatalf("run with the engine gone: %v, want an exit status; stderr %q", err, stderr.String())
	}
	if ee.ExitCode() != 2 {
		t.Errorf("run with the engine gone: exit code = %d, want 2; stderr %q", ee.ExitCode(), stderr.String())
	}
	wantIn(t, "run with the engine gone: stderr", stderr.String(), `"kind":"engine_error"`)
	if elapsed > 8*time.Second+3*time.Second {
		t.Fatalf("the run took %v with an 8s timeout", elapsed)
	}
	// The engine is back: the next run works and sweeps the dead run's orphan.
	p.up(t)
	ok := scriptFile(t, "ok.sh", shAllow+"\n")
	r := hookExec(t, toolEvent("ls"), []string{hostEnv}, "run", "--script", ok)
	if r.code != 0 {
		t.Fatalf("run after the engine came back: exit %d %q", r.code, r.stderr)
	}
	if n := containersOf(t, eng, cmd.Process.Pid); n != 0 {
		t.Fatalf("%d orphan(s) of the lost run left", n)
	}
}

func errorsAs(err error, target **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	if ok {
		*target = e
	}
	return ok
}

// orphanShims are the runc shims of hook-exec's containerd namespace whose
// bundle is gone (their working directory deleted): serving nothing.
func orphanShims() []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		cmd, err := os.ReadFile(p + "/cmdline")
		if err != nil || !strings.Contains(string(cmd), "containerd-shim-runc-v2\x00-namespace\x00hookexec\x00") {
			continue
		}
		if cwd, err := os.Readlink(p + "/cwd"); err == nil && strings.HasSuffix(cwd, " (deleted)") {
			out = append(out, filepath.Base(p)+" "+strings.ReplaceAll(string(cmd), "\x00", " "))
		}
	}
	return out
}
