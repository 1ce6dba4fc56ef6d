package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// testServer is a user's server a test started with `hook-exec server
// start`, on a socket and state directory of the test's own; the test
// stops it at its end and checks it left no sandbox.
type testServer struct {
	sock, state string
	eng         engineUnderTest
	pid         string
	lane        chan struct{} // one timed case at a time, as runCase's executors
}

var pidLine = regexp.MustCompile(`server pid (\d+) on `)

func startServer(t testing.TB, eng engineUnderTest, flags ...string) *testServer {
	t.Helper()
	dir := t.TempDir()
	s := &testServer{sock: filepath.Join(dir, "srv", "s.sock"), state: filepath.Join(dir, "state"), eng: eng, lane: make(chan struct{}, 1)}
	// Never idle for the suite's length: on a slow engine the cases that
	// use it can come more than the default 15 minutes apart.
	r := hookExec(t, nil, nil, slices.Concat([]string{"server", "start", "--server", s.sock, "--pool", "2", "--idle-exit", "3h"}, flags, s.engineFlags())...)
	r.wantCode(t, 0)
	m := pidLine.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("server start said %q, want its pid", r.stdout)
	}
	s.pid = m[1]
	t.Cleanup(func() { s.stop(t) })
	return s
}

// engineFlags name the server's engine and state directory.
func (s *testServer) engineFlags() []string {
	f := append([]string{"--state-dir", s.state, "--backend", s.eng.name}, s.eng.flags...)
	if s.eng.runtime != "" {
		f = append(f, "--runtime", s.eng.runtime)
	}
	return f
}

// traces are the traces the server stored.
func (s *testServer) traces(t testing.TB) []hook.Trace {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.state, "traces.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []hook.Trace
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var tr hook.Trace
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatal(err)
		}
		out = append(out, tr)
	}
	return out
}

// stop stops the server, waits for its socket to go, and checks that none
// of its sandboxes (its pool's included) is left.
func (s *testServer) stop(t testing.TB) {
	t.Helper()
	r := hookExec(t, nil, nil, "server", "stop", "--server", s.sock)
	r.wantCode(t, 0)
	if !strings.Contains(r.stdout, "stopped the server pid "+s.pid) {
		t.Errorf("server stop said %q, want it stopped pid %s", r.stdout, s.pid)
	}
	if left := containersOfPID(t, s.pid); len(left) > 0 {
		t.Errorf("the server pid %s left %d sandbox(es): %v", s.pid, len(left), left)
	}
	if running(atoi(t, s.pid)) {
		t.Errorf("the server pid %s is still running after stop", s.pid)
	}
}

// running reports whether pid runs: an orphan's zombie, which init may
// reap late, does not.
func running(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := strings.LastIndexByte(string(b), ')')
	return err != nil || i < 0 || i+2 >= len(b) || b[i+2] != 'Z'
}

func atoi(t testing.TB, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// containersOfPID lists the sandboxes on both engines whose owner is pid
// on this host.
func containersOfPID(t testing.TB, pid string) []map[string]string {
	t.Helper()
	var out []map[string]string
	for _, b := range []managedLister{dock, ctrd} {
		managed, err := b.Managed(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range managed {
			if l[sandbox.LabelOwnerPID] == pid {
				out = append(out, l)
			}
		}
	}
	return out
}

// run runs the CLI with the server named and its engine's flags.
func (s *testServer) run(t testing.TB, stdin []byte, args ...string) cliResult {
	t.Helper()
	return hookExec(t, stdin, []string{"HOOKEXEC_SERVER=" + s.sock}, append(args, s.engineFlags()...)...)
}

// runCaseViaServer runs an executor case as a host would through the
// server: `hook-exec run` with the hook's settings as flags, and checks
// the decision on stdout and the trace it wrote as runCase checks the
// executor's result. The trace must say the server ran it.
func runCaseViaServer(t *testing.T, s *testServer, lang launcher.Lang, script string, c coreCase) {
	t.Helper()
	h := writeScript(t, lang, script)
	if c.hook != nil {
		c.hook(&h)
	}
	h.Timeout += s.eng.start
	event := c.event
	if event == nil {
		event = toolEvent("ls")
	}
	dir := t.TempDir()
	evFile, trFile := filepath.Join(dir, "event.json"), filepath.Join(dir, "trace.json")
	if err := os.WriteFile(evFile, event, 0o600); err != nil {
		t.Fatal(err)
	}
	args := []string{"run", "--script", filepath.Join(h.PluginDir, h.Script), "--hook-id", h.ID, "--event", evFile, "--trace", trFile,
		"--timeout", h.Timeout.String(), "--max-output-bytes", strconv.FormatInt(h.MaxOutputBytes, 10)}
	if h.MaxOutputBytes == 0 {
		args = args[:len(args)-2] // the default
	}
	s.lane <- struct{}{}
	start := time.Now()
	r := s.run(t, nil, args...)
	elapsed := time.Since(start)
	<-s.lane
	b, err := os.ReadFile(trFile)
	if err != nil {
		t.Fatalf("no trace (exit %d, stdout %q, stderr %q): %v", r.code, r.stdout, r.stderr, err)
	}
	res := &executor.Result{}
	if err := json.Unmarshal(b, &res.Trace); err != nil {
		t.Fatalf("trace %s: %v", b, err)
	}
	if res.Trace.Via != "server" {
		t.Fatalf("the trace says via %q, want server: the case did not run through it (stderr %q)", res.Trace.Via, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), &res.Decision); err != nil {
		t.Fatalf("decision %q: %v", r.stdout, err)
	}
	if want := map[hook.Action]int{hook.Deny: 2}[res.Decision.Action]; r.code != want {
		t.Errorf("exit %d for a %s, want %d", r.code, res.Decision.Action, want)
	}
	assertGoneAnywhere(t, res.Trace.ExecutionID)
	if res.Trace.Backend != s.eng.name || res.Trace.Runtime != s.eng.runtime {
		t.Errorf("trace backend %q runtime %q, want %q %q", res.Trace.Backend, res.Trace.Runtime, s.eng.name, s.eng.runtime)
	}
	check := c.check
	if d, ok := c.differenceOn(s.eng); ok {
		check = d.check
	}
	check(t, res, elapsed-s.eng.start)
}

// assertGoneAnywhere is assertGone for a sandbox of another process's: a
// server removes it in the background after its answer (as the process's
// own WaitCleanup, which assertGone waits for), so it must be gone within
// a bound, not at once.
func assertGoneAnywhere(t *testing.T, executionID string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		left := false
		for _, b := range []managedLister{dock, ctrd} {
			managed, err := b.Managed(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range managed {
				left = left || l[sandbox.LabelExecution] == executionID
			}
		}
		if !left {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the sandbox of execution %s survived the run by a minute", executionID)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The same command lines through the server and in their own process:
// the same stdout, exit status and stderr, whatever the hook did.
func TestServerAnswersAsTheProcess(t *testing.T) {
	t.Parallel()
	for _, eng := range engines(t) {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, eng)
			dir := t.TempDir()
			write := func(name, body string) string {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
				return name // relative: the call's working directory is dir
			}
			guard := write("guard.sh", "case $(cat) in *'rm -rf'*) echo '{\"schema_version\":1,\"action\":\"deny\",\"reason\":\"no rm\"}';; *) echo '{\"schema_version\":1,\"action\":\"allow\"}';; esac\n")
			rmGuard := write("block_rm.sh", claudeRmGuard)
			validator := write("validator.py", claudeBashValidator)
			sleeper := write("sleep.sh", "sleep 30\n")
			crash := write("crash.py", "import sys\nsys.stderr.write('boom\\n')\nsys.exit(3)\n")
			write("ls.json", string(toolEvent("ls")))
			tests := []struct {
				name  string
				event []byte
				args  []string
			}{
				{"holaryn allow, event file relative", nil, []string{"run", "--script", guard, "--event", "ls.json"}},
				{"holaryn deny", toolEvent("rm -rf /"), []string{"run", "--script", guard}},
				{"claude exit 2 is a deny", claudeEvent("PreToolUse", "Bash", map[string]any{"command": "rm -rf build"}, ""),
					[]string{"run", "--dialect", "claude", "--matcher", "Bash", "--script", rmGuard}},
				{"claude python validator", claudeEvent("PreToolUse", "Bash", map[string]any{"command": "rm -rf /"}, ""),
					[]string{"run", "--dialect", "claude", "--matcher", "Bash", "--script", validator}},
				{"claude matcher passes over", claudeEvent("PreToolUse", "Write", map[string]any{"file_path": "/a"}, ""),
					[]string{"run", "--dialect", "claude", "--matcher", "Bash", "--script", rmGuard}},
				{"timeout is a deny", toolEvent("ls"), []string{"run", "--script", sleeper, "--timeout", "3s"}},
				{"a crash under warn is an allow with a line", toolEvent("ls"), []string{"run", "--script", crash, "--failure-policy", "warn"}},
				{"an event that does not read", []byte(`{"schema_version":1,`), []string{"run", "--script", guard}},
				{"claude: a missing script is Claude's deny", claudeEvent("PreToolUse", "Bash", map[string]any{"command": "ls"}, ""),
					[]string{"run", "--dialect", "claude", "--script", "missing.sh"}},
				{"dispatch with nothing registered", toolEvent("ls"), []string{"dispatch", "tool.before", "--workspace", "."}},
			}
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) {
					trace := func(via string) (cliResult, string) {
						tr := filepath.Join(t.TempDir(), "trace.json")
						args := slices.Clone(tc.args)
						if args[0] == "run" {
							args = append(args, "--trace", tr)
						}
						cmd := exec.Command(cli(t), append(args, s.engineFlags()...)...)
						cmd.Dir = dir
						var r cliResult
						r.code, r.stdout, r.stderr = runIn(t, cmd, tc.event, "HOOKEXEC_SERVER="+map[string]string{"server": s.sock, "process": "off"}[via])
						b, _ := os.ReadFile(tr)
						return r, string(b)
					}
					// The process first: the server's pool refills after its
					// run, and a refill competing for a creation slot is a
					// load the process's run need not meet.
					viaProcess, procTrace := trace("process")
					viaServer, srvTrace := trace("server")
					if viaServer.code != viaProcess.code || viaServer.stdout != viaProcess.stdout || scrub(viaServer.stderr) != scrub(viaProcess.stderr) {
						t.Errorf("through the server: exit %d, stdout %q, stderr %q\nin its process:     exit %d, stdout %q, stderr %q",
							viaServer.code, viaServer.stdout, viaServer.stderr, viaProcess.code, viaProcess.stdout, viaProcess.stderr)
					}
					if srvTrace != "" && !strings.Contains(srvTrace, `"via":"server"`) || procTrace != "" && !strings.Contains(procTrace, `"via":"process"`) {
						t.Errorf("traces do not say the way they came:\n%s\n%s", srvTrace, procTrace)
					}
				})
			}
		})
	}
}

// scrub takes what differs from one run to the next out of stderr: ids
// and durations.
var varying = regexp.MustCompile(`hookexec_[0-9a-f]+|[0-9]+(\.[0-9]+)?(ms|s)\b`)

func scrub(s string) string { return varying.ReplaceAllString(s, "#") }

// runIn runs cmd with stdin and env added, and returns its exit status and output.
func runIn(t *testing.T, cmd *exec.Cmd, stdin []byte, env ...string) (int, string, string) {
	t.Helper()
	cmd.Env = append(os.Environ(), env...)
	if stdin != nil {
		cmd.Stdin = strings.NewReader(string(stdin))
	}
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	var ee *exec.ExitError
	code := 0
	if err != nil {
		if !errorsAs(err, &ee) {
			t.Fatalf("run %v: %v", cmd.Args, err)
		}
		code = ee.ExitCode()
	}
	return code, so.String(), se.String()
}

// The first call with no server starts one and runs in its own process;
// the next is handed to it; with nothing to do the server exits, leaving
// nothing behind.
func TestServerStartsOnTheFirstCallAndIdlesOut(t *testing.T) {
	t.Parallel()
	eng := engines(t)[0]
	dir := t.TempDir()
	s := &testServer{sock: filepath.Join(dir, "srv", "s.sock"), state: filepath.Join(dir, "state"), eng: eng}
	guard := scriptFile(t, "g.sh", "cat >/dev/null; echo '{\"schema_version\":1,\"action\":\"allow\"}'\n")
	call := func() (cliResult, hook.Trace) {
		tr := filepath.Join(t.TempDir(), "trace.json")
		r := hookExec(t, toolEvent("ls"), []string{"HOOKEXEC_SERVER=" + s.sock, "HOOKEXEC_SERVER_IDLE=3s"},
			append([]string{"run", "--script", guard, "--trace", tr}, s.engineFlags()...)...)
		r.wantCode(t, 0)
		var trace hook.Trace
		b, err := os.ReadFile(tr)
		if err == nil {
			err = json.Unmarshal(b, &trace)
		}
		if err != nil {
			t.Fatal(err)
		}
		return r, trace
	}
	if _, tr := call(); tr.Via != "process" {
		t.Fatalf("the first call went via %q, want process (no server ran)", tr.Via)
	}
	var st cliResult
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if st = hookExec(t, nil, nil, "server", "status", "--server", s.sock); st.code == 0 || time.Now().After(deadline) {
			break
		}
	}
	st.wantCode(t, 0)
	m := regexp.MustCompile(`pid +(\d+)`).FindStringSubmatch(st.stdout)
	if m == nil || !strings.Contains(st.stdout, "idle exit  3s") {
		t.Fatalf("status %q: want a pid and the idle exit", st.stdout)
	}
	s.pid = m[1]
	if _, tr := call(); tr.Via != "server" {
		t.Fatalf("the second call went via %q, want server", tr.Via)
	}
	// Idle: the server goes by itself, its socket and sandboxes with it.
	for deadline := time.Now().Add(3*time.Second + time.Minute); running(atoi(t, s.pid)); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			s.stop(t)
			t.Fatalf("the server pid %s did not exit after 3s idle", s.pid)
		}
	}
	if _, err := os.Lstat(s.sock); !os.IsNotExist(err) {
		t.Errorf("the idle server left its socket: %v", err)
	}
	if left := containersOfPID(t, s.pid); len(left) > 0 {
		t.Errorf("the idle server left %d sandbox(es)", len(left))
	}
}

// Another user can neither reach the server nor have a call run by it,
// even with the socket opened to all: its peer uid is refused, and its
// call runs in its own process.
func TestServerRefusesAnotherUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("needs root: the server runs as root and the other caller as uid 65534")
	}
	s := startServer(t, engines(t)[0])
	marker := filepath.Join(t.TempDir(), "ran")
	for d := filepath.Dir(marker); strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		os.Chmod(d, 0o777)
	}
	guard := scriptFile(t, "g.sh", "cat >/dev/null; echo '{\"schema_version\":1,\"action\":\"allow\"}'\n")
	os.Chmod(filepath.Dir(guard), 0o755)
	os.Chmod(guard, 0o644)
	for d := filepath.Dir(cli(t)); strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		os.Chmod(d, 0o755)
	}
	other := func() (int, string, string) {
		cmd := exec.Command(cli(t), "run", "--script", guard, "--trace", marker, "--state-dir", filepath.Dir(marker)+"/state")
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		return runIn(t, cmd, toolEvent("ls"), "HOOKEXEC_SERVER="+s.sock, "HOME=/nonexistent")
	}
	calls := func() string {
		r := hookExec(t, nil, nil, "server", "status", "--server", s.sock)
		return regexp.MustCompile(`calls +\d+`).FindString(r.stdout)
	}
	before := calls()
	code, _, stderr := other() // the socket's directory is 0700: not even a connect
	if code != 2 || strings.Contains(stderr, `"via":"server"`) {
		t.Errorf("uid 65534's call through a private directory: exit %d, stderr %q; want it refused in its own process", code, stderr)
	}
	for d := filepath.Dir(s.sock); strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		os.Chmod(d, 0o711)
	}
	os.Chmod(s.sock, 0o666)
	code, _, stderr = other()
	if code != 2 {
		t.Errorf("uid 65534's call with the socket open: exit %d, stderr %q; want its own process's refusal", code, stderr)
	}
	if b, err := os.ReadFile(marker); err == nil && strings.Contains(string(b), `"via":"server"`) {
		t.Errorf("the server ran uid 65534's call: %s", b)
	}
	// Two status calls of the owner's between: the other user's added none.
	if after := calls(); before == "" || after != fmt.Sprintf("calls      %d", atoi(t, strings.Fields(before)[1])+1) {
		t.Errorf("the server's calls went from %q to %q: want only the owner's status call", before, after)
	}
	if log, _ := os.ReadFile(filepath.Join(s.state, "server.log")); !strings.Contains(string(log), "peer uid 65534") {
		t.Errorf("the server's log does not name the refused peer: %s", log)
	}
}
