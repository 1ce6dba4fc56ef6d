package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/admission"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/scriptpin"
)

const (
	shAllow = `printf '{"schema_version":1,"action":"allow"}\n'`
	pyAllow = `print('{"schema_version":1,"action":"allow"}')`
)

// coreCase is one behaviour, written in both languages.
type coreCase struct {
	name    string
	scripts map[launcher.Lang]string
	event   []byte
	hook    func(*hook.Hook)
	check   func(t *testing.T, r *executor.Result, elapsed time.Duration)
	// differs holds, by backend name, what a backend does instead and why.
	differs map[string]difference
}

// difference is a case's outcome on a backend that cannot do what the
// others do, named.
type difference struct {
	why   string
	check func(t *testing.T, r *executor.Result, elapsed time.Duration)
}

// differenceOn is the case's difference on eng, by its label (podman)
// or its backend's name (kubernetes).
func (c coreCase) differenceOn(eng engineUnderTest) (difference, bool) {
	if d, ok := c.differs[eng.label()]; ok {
		return d, true
	}
	d, ok := c.differs[eng.name]
	return d, ok
}

// wantExit checks a failed run's exit status: the hook's own verdict on
// what it probed.
func wantExit(code int) func(*testing.T, *executor.Result, time.Duration) {
	return func(t *testing.T, r *executor.Result, _ time.Duration) {
		t.Helper()
		wantFailure(t, r, hook.FailExitNonzero)
		if r.Trace.ExitCode == nil || *r.Trace.ExitCode != code {
			t.Fatalf("exit code = %s, want %d; stderr %q", exitCodeOf(r.Trace.ExitCode), code, r.Trace.StderrExcerpt)
		}
	}
}

func wantAction(t *testing.T, r *executor.Result, a hook.Action) {
	t.Helper()
	if r.Decision.Action != a {
		t.Fatalf("final action %s, want %s; failure %+v; stderr %q", r.Decision.Action, a, r.Trace.Failure, r.Trace.StderrExcerpt)
	}
}

func wantFailure(t *testing.T, r *executor.Result, kind hook.FailureKind) {
	t.Helper()
	if r.Trace.Failure == nil || r.Trace.Failure.Kind != kind {
		t.Fatalf("failure %+v, want kind %s (stderr %q)", r.Trace.Failure, kind, r.Trace.StderrExcerpt)
	}
	// The default failure policy of a blocking hook fails closed.
	wantAction(t, r, hook.Deny)
}

func wantNoFailure(t *testing.T, r *executor.Result) {
	t.Helper()
	if r.Trace.Failure != nil {
		t.Fatalf("failure %+v (stderr %q)", r.Trace.Failure, r.Trace.StderrExcerpt)
	}
}

// exitCodeOf prints a trace's exit code, which is nil when none was seen.
func exitCodeOf(code *int) string {
	if code == nil {
		return "nil"
	}
	return strconv.Itoa(*code)
}

func coreCases() []coreCase {
	bigContent := strings.Repeat("x", 10<<20)
	return []coreCase{
		{
			name: "allow",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "cat >/dev/null\n" + shAllow + "\n",
				launcher.Python: "import json, sys\njson.load(sys.stdin)\n" + pyAllow + "\n",
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.Allow)
				if r.Trace.ExitCode == nil || *r.Trace.ExitCode != 0 {
					t.Errorf("exit code = %s, want 0", exitCodeOf(r.Trace.ExitCode))
				}
				if r.Trace.HandlerAction != hook.Allow {
					t.Errorf("handler action = %q, want %q", r.Trace.HandlerAction, hook.Allow)
				}
			},
		},
		{
			name: "deny reads the event and its variables",
			scripts: map[launcher.Lang]string{
				launcher.Shell: `ev=$(cat)
case $ev in *'rm -rf'*) printf '{"schema_version":1,"action":"deny","reason":"rm at %s by %s"}\n' "$HOLARYN_HOOK_POINT" "$HOLARYN_HOOK_ID" ;; *) ` + shAllow + ` ;; esac
`,
				launcher.Python: `import json, os, sys
ev = json.load(sys.stdin)
if "rm -rf" in ev["data"]["args"]["command"]:
    print(json.dumps({"schema_version": 1, "action": "deny", "reason": "rm at %s by %s" % (os.environ["HOLARYN_HOOK_POINT"], os.environ["HOLARYN_HOOK_ID"])}))
else:
    ` + pyAllow + "\n",
			},
			event: toolEvent("rm -rf /"),
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.Deny)
				if !strings.HasPrefix(r.Decision.Reason, "rm at tool.before by "+r.Trace.HookID) {
					t.Fatalf("reason %q", r.Decision.Reason)
				}
			},
		},
		{
			name: "modify",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  `cat >/dev/null; printf '{"schema_version":1,"action":"modify","reason":"normalize","mutations":{"args":{"command":"ls"}},"output":{"rule":"r1"}}\n'`,
				launcher.Python: `import json; print(json.dumps({"schema_version": 1, "action": "modify", "reason": "normalize", "mutations": {"args": {"command": "ls"}}, "output": {"rule": "r1"}}))`,
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.Modify)
				var m map[string]map[string]string
				var out map[string]string
				if err := json.Unmarshal(r.Decision.Mutations, &m); err != nil {
					t.Errorf("mutations %s: %v", r.Decision.Mutations, err)
				}
				if got := m["args"]["command"]; got != "ls" {
					t.Errorf("mutations %s: args.command = %q, want %q", r.Decision.Mutations, got, "ls")
				}
				if err := json.Unmarshal(r.Decision.Output, &out); err != nil {
					t.Errorf("output %s: %v", r.Decision.Output, err)
				}
				if got := out["rule"]; got != "r1" {
					t.Errorf("output %s: rule = %q, want %q", r.Decision.Output, got, "r1")
				}
			},
		},
		{
			name: "request_approval",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  `printf '{"schema_version":1,"action":"request_approval","reason":"ask a human"}\n'`,
				launcher.Python: `print('{"schema_version":1,"action":"request_approval","reason":"ask a human"}')`,
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.RequestApproval)
				if r.Decision.Reason != "ask a human" {
					t.Fatalf("reason %q", r.Decision.Reason)
				}
			},
		},
		{
			name: "python main module pickles a dataclass",
			scripts: map[launcher.Lang]string{
				launcher.Python: `import dataclasses, pickle
@dataclasses.dataclass
class P:
    x: int
assert pickle.loads(pickle.dumps(P(3))) == P(3)
` + pyAllow + "\n",
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.Allow)
			},
		},
		{
			name: "sleep forever times out",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "sleep 1000\n",
				launcher.Python: "import time\ntime.sleep(1000)\n",
			},
			hook:  func(h *hook.Hook) { h.Timeout = 2 * time.Second },
			check: wantTimeout(2 * time.Second),
		},
		{
			name: "SIGTERM trapped still killed at the deadline",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "trap '' TERM\nsleep 1000\n",
				launcher.Python: "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(1000)\n",
			},
			hook:  func(h *hook.Hook) { h.Timeout = 2 * time.Second },
			check: wantTimeout(2 * time.Second),
		},
		{
			name: "double-forked daemon does not survive",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "setsid sh -c 'exec sleep 4242' </dev/null >/dev/null 2>&1 &\n" + shAllow + "\n",
				launcher.Python: "import subprocess\nsubprocess.Popen(['sleep', '4243'], start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n" + pyAllow + "\n",
			},
			check: func(t *testing.T, r *executor.Result, elapsed time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.Allow)
				if elapsed > 5*time.Second {
					t.Fatalf("the run waited %v for a daemon", elapsed)
				}
				for _, marker := range []string{"sleep 4242", "sleep 4243"} {
					if hostHasProcess(t, marker) {
						t.Fatalf("a process %q survived on the host", marker)
					}
				}
			},
		},
		{
			name: "yes is cut at the output cap",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "yes\n",
				launcher.Python: "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n",
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantFailure(t, r, hook.FailOutputLimit)
				if !r.Trace.Truncated {
					t.Error("truncated = false, want true")
				}
				if r.Trace.TimedOut {
					t.Error("timed out = true, want false")
				}
				if r.Trace.StdoutBytes < 65536 {
					t.Errorf("stdout bytes = %d, want at least 65536", r.Trace.StdoutBytes)
				}
			},
		},
		{
			name: "fork bomb hits the pids limit",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "bomb() { bomb | bomb & }\nbomb\nsleep 1\n",
				launcher.Python: "import os\nfor _ in range(100000):\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
			},
			hook: func(h *hook.Hook) { h.Timeout = 4 * time.Second },
			check: func(t *testing.T, r *executor.Result, elapsed time.Duration) {
				// It ends by its own exit or at the deadline; either way it fails closed.
				wantAction(t, r, hook.Deny)
				if bound := killedBy(4 * time.Second); elapsed > bound {
					t.Fatalf("run took %v, over %v", elapsed, bound)
				}
				if err := exec.Command("true").Run(); err != nil {
					t.Fatalf("the host cannot start a process after the bomb: %v", err)
				}
			},
		},
		{
			name: "memory bomb is oom",
			scripts: map[launcher.Lang]string{
				// The pause lets the Docker backend's cgroup watch start (it can
				// only after the engine's start returns); an OOM before that is
				// left to the engine's own flag, which misses some under load.
				launcher.Shell:  "sleep 0.3\nx=aaaaaaaaaaaaaaaa\nwhile :; do x=\"$x$x\"; done\n",
				launcher.Python: "import time\ntime.sleep(0.3)\nb = bytearray(1 << 30)\n",
			},
			hook: func(h *hook.Hook) { h.Memory = 64 << 20 },
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantFailure(t, r, hook.FailOOM)
				if !r.Trace.OOMKilled {
					t.Fatalf("oom killed = false, want true (exit code %s, signal %q)", exitCodeOf(r.Trace.ExitCode), r.Trace.Signal)
				}
			},
		},
		{
			name: "no network",
			scripts: map[launcher.Lang]string{
				launcher.Shell: `routes=$(wc -l </proc/net/route)
if [ "$routes" -gt 1 ]; then echo "route out exists" >&2; exit 9; fi
if wget -q -T 2 -O /dev/null http://192.0.2.1/ 2>/dev/null; then exit 10; fi
if nslookup example.com >/dev/null 2>&1; then exit 11; fi
` + shAllow + "\n",
				launcher.Python: `import socket, sys
try:
    socket.create_connection(("192.0.2.1", 80), timeout=2)
    sys.exit(10)
except OSError:
    pass
try:
    socket.getaddrinfo("example.com", 80)
    sys.exit(11)
except OSError:
    pass
` + pyAllow + "\n",
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.Allow)
			},
		},
		{
			name: "root filesystem is read-only and /tmp is noexec",
			scripts: map[launcher.Lang]string{
				// /var/tmp and /run: Podman mounts writable, executable
				// tmpfs there under a read-only root unless told otherwise.
				launcher.Shell: `for d in / /etc /usr /bin /var/tmp /run; do
	if (echo x >"$d/hookexec-probe") 2>/dev/null; then echo "$d is writable" >&2; exit 9; fi
done
echo x >/tmp/ok || exit 10
cp /bin/busybox /tmp/true && chmod +x /tmp/true || exit 12
/tmp/true 2>/dev/null
rc=$?
if [ "$rc" -ne 126 ]; then echo "/tmp is executable (exit $rc)" >&2; exit 11; fi
` + shAllow + "\n",
				launcher.Python: `import errno, os, shutil, subprocess, sys
for d in ("/", "/etc", "/usr", "/usr/lib", "/var/tmp", "/run"):
    try:
        open(os.path.join(d, "hookexec-probe"), "w")
        sys.exit(9)
    except OSError as e:
        assert e.errno in (errno.EROFS, errno.EACCES, errno.ENOENT), e
open("/tmp/ok", "w").write("x")
shutil.copy("/bin/busybox", "/tmp/bb")
os.chmod("/tmp/bb", 0o755)
try:
    subprocess.run(["/tmp/bb", "true"])
    sys.exit(11)
except PermissionError:
    pass
` + pyAllow + "\n",
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.Allow)
			},
			differs: map[string]difference{"kubernetes": {
				why:   "/tmp is an emptyDir, which takes no mount options: executable (exit 11), after the read-only root held",
				check: wantExit(11),
			}},
		},
		{
			name: "environment holds only allowed variables",
			scripts: map[launcher.Lang]string{
				// The container's own (pid 1) environment and the script's.
				launcher.Shell:  `names=$({ tr '\0' '\n' </proc/1/environ; env; } | cut -d= -f1 | sort -u | tr '\n' ' '); printf '{"schema_version":1,"action":"allow","reason":"%s"}\n' "$names"`,
				launcher.Python: `import json, os; names = sorted({kv.split(b"=")[0].decode() for kv in open("/proc/1/environ", "rb").read().split(b"\0") if kv} | set(os.environ)); print(json.dumps({"schema_version": 1, "action": "allow", "reason": " ".join(names)}))`,
			},
			hook:  func(h *hook.Hook) { h.Env = map[string]string{"MODE": "strict"} },
			check: wantOnlyAllowedEnv(),
			differs: map[string]difference{"kubernetes": {
				why:   "the kubelet gives every container the API service's address (KUBERNETES_SERVICE_*, KUBERNETES_PORT*), whatever enableServiceLinks says; nothing else",
				check: wantOnlyAllowedEnv("KUBERNETES_SERVICE_", "KUBERNETES_PORT"),
			}, "podman": {
				why:   "Podman gives every container container=podman and TERM=xterm, constants of its own (containers.conf's env), which its Docker API cannot unset; nothing of the host's",
				check: wantOnlyAllowedEnv("=container", "=TERM"),
			}},
		},
		{
			name: "10 MiB event to a script that never reads stdin",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  shAllow + "\n",
				launcher.Python: pyAllow + "\n",
			},
			event: toolEvent(bigContent),
			check: func(t *testing.T, r *executor.Result, elapsed time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.Allow) // a run that waited on the write would have timed out
			},
		},
	}
}

// wantOnlyAllowedEnv checks the variable names a hook reported: the
// declared and event ones present, nothing else but the shells' own and
// names with one of the prefixes ("=NAME": that name only).
func wantOnlyAllowedEnv(prefixes ...string) func(*testing.T, *executor.Result, time.Duration) {
	return func(t *testing.T, r *executor.Result, _ time.Duration) {
		t.Helper()
		wantNoFailure(t, r)
		// PWD and SHLVL are the shells' own.
		// HOOKEXEC_NEEDS: the programs a .sh script calls, for its launcher;
		// HOOKEXEC_DISPOSABLE: the .sh launcher's, a sandbox removed after its run.
		allowed := []string{"PATH", "HOME", "LANG", "HOSTNAME", "PYTHONIOENCODING", "PYTHONUTF8", "MODE", "PWD", "SHLVL", "OLDPWD", "HOOKEXEC_NEEDS", "HOOKEXEC_DISPOSABLE"}
		names := strings.Fields(r.Decision.Reason)
		if !slices.Contains(names, "MODE") || !slices.Contains(names, "HOLARYN_HOOK_POINT") {
			t.Fatalf("declared or event variables missing: %q", names)
		}
		for _, n := range names {
			ok := slices.Contains(allowed, n) || strings.HasPrefix(n, "HOLARYN_HOOK_")
			for _, p := range prefixes {
				exact, isName := strings.CutPrefix(p, "=")
				ok = ok || (isName && n == exact) || (!isName && strings.HasPrefix(n, p))
			}
			if !ok {
				t.Errorf("variable %q reached the sandbox", n)
			}
		}
		if strings.Contains(r.Decision.Reason, "SECRET") {
			t.Fatal("the host's secret variable reached the sandbox")
		}
	}
}

func wantTimeout(timeout time.Duration) func(*testing.T, *executor.Result, time.Duration) {
	return func(t *testing.T, r *executor.Result, elapsed time.Duration) {
		t.Helper()
		wantFailure(t, r, hook.FailTimeout)
		if !r.Trace.TimedOut {
			t.Error("timed out = false, want true")
		}
		if r.Trace.Signal != "SIGKILL" {
			t.Errorf("signal = %q, want %q", r.Trace.Signal, "SIGKILL")
		}
		if bound := killedBy(timeout); elapsed > bound {
			t.Fatalf("run took %v, over %v", elapsed, bound)
		}
	}
}

// killedBy is when a run killed at its timeout has its answer: the
// backend answers at most backend.KillGrace after the kill, whatever the
// engine does, and the executor's work after that touches no engine (the
// removal is in the background); a second is its margin under -race.
func killedBy(timeout time.Duration) time.Duration {
	return timeout + backend.KillGrace + time.Second
}

// hostHasProcess reports whether a process whose command line contains
// marker runs on the host (container processes are visible from it).
func hostHasProcess(t *testing.T, marker string) bool {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if strings.Contains(strings.ReplaceAll(string(b), "\x00", " "), marker) {
			return true
		}
	}
	return false
}

// TestCore runs every case on both backends, case for case.
func TestCore(t *testing.T) {
	t.Parallel()
	for _, eng := range slices.Concat(engines(t), runtimeEngines(t), sshEngines(t), podmanEngines(t), rootlessEngines(t), k8sEngines(t)) {
		for _, mode := range []string{"cold", "pooled"} {
			ex := caseExecutor(t, eng, 0)
			if mode == "pooled" {
				ex = caseExecutor(t, eng, 2)
			}
			for _, c := range coreCases() {
				for _, lang := range []launcher.Lang{launcher.Shell, launcher.Python} {
					script, ok := c.scripts[lang]
					if !ok {
						continue
					}
					t.Run(eng.label()+"/"+mode+"/"+c.name+"/"+string(lang), func(t *testing.T) {
						t.Parallel()
						runCase(t, ex, eng, lang, script, c)
					})
				}
			}
		}
	}
}

// caseExecutor is an executor for the case suites (core, adversarial),
// pooled when pool > 0 (it shuts down when the test ends; other suites'
// pools run beside it, so what is left is checked once all have shut down,
// in TestMain; TestServe checks one server's pool alone). A case checks
// one hook's behaviour against its own timeout, not load: each executor
// has an admission limiter of its own with two slots, and runCase runs
// one case at a time per executor, so a case never waits behind another
// suite's burst or its own suite's (a refill never takes the last slot).
// The load suites (overload, parallel mix, soak) share the engine's limiter.
func caseExecutor(t *testing.T, eng engineUnderTest, pool int) *executor.Executor {
	t.Helper()
	lim, err := admission.New(admission.Options{Initial: 2, Min: 2, Max: 2})
	if err != nil {
		t.Fatal(err)
	}
	ex, err := executor.New(executor.Options{
		Backend:      eng.b,
		Pool:         pool,
		Admission:    lim,
		DefaultImage: func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	lanes.Store(ex, make(chan struct{}, 1))
	t.Cleanup(func() {
		if err := ex.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return ex
}

// lanes holds, per case executor, the one case that may run on it.
var lanes sync.Map // *executor.Executor -> chan struct{}

func TestChangedScriptNeverLaunches(t *testing.T) {
	t.Parallel()
	b, refs := engine(t)
	counting := &countingBackend{Backend: b}
	ex := newExecutor(t, counting, refs)
	for _, change := range []string{"one byte", "symlink"} {
		t.Run(change, func(t *testing.T) {
			t.Parallel()
			h := writeScript(t, launcher.Shell, shAllow+"\n")
			pin, err := scriptpin.Read(h.PluginDir, h.Script)
			if err != nil {
				t.Fatal(err)
			}
			h.SHA256 = pin.SHA256.String()
			path := h.PluginDir + "/" + h.Script
			var want error
			switch change {
			case "one byte":
				if err := os.WriteFile(path, []byte(strings.Replace(shAllow, "allow", "allov", 1)+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				want = scriptpin.ErrChanged
			case "symlink":
				if err := os.WriteFile(h.PluginDir+"/real.sh", []byte(shAllow+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("real.sh", path); err != nil {
					t.Fatal(err)
				}
				want = scriptpin.ErrLink
			}
			if _, err := scriptpin.Load(h.PluginDir, h.Script, pin.SHA256); !errors.Is(err, want) {
				t.Fatalf("scriptpin.Load: %v, want %v", err, want)
			}
			before := counting.count()
			r, err := ex.Run(context.Background(), h, toolEvent("ls"))
			if err != nil {
				t.Fatal(err)
			}
			wantFailure(t, r, hook.FailRefusedChanged)
			if counting.count() != before {
				t.Fatal("a changed script reached the engine")
			}
		})
	}
	// And the unchanged pin runs.
	h := writeScript(t, launcher.Shell, shAllow+"\n")
	pin, _ := scriptpin.Read(h.PluginDir, h.Script)
	h.SHA256 = pin.SHA256.String()
	r, err := ex.Run(context.Background(), h, toolEvent("ls"))
	if err != nil {
		t.Fatal(err)
	}
	wantNoFailure(t, r)
}
