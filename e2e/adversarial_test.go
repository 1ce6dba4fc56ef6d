package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/scriptpin"
)

// adversarialCases are the hostile scripts of the reliability suite beyond
// those of the core suite (which runs them too).
func adversarialCases() []coreCase {
	capped := func(h *hook.Hook) { h.MaxOutputBytes = 64 << 10 }
	return []coreCase{
		{
			name: "stderr flood is cut at the cap",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "yes >&2\n",
				launcher.Python: "import sys\nwhile True:\n    sys.stderr.write('e' * 65536)\n",
			},
			hook: capped,
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantFailure(t, r, hook.FailOutputLimit)
				if !r.Trace.Truncated {
					t.Error("truncated = false, want true")
				}
				if r.Trace.StderrBytes < 64<<10 {
					t.Errorf("stderr bytes = %d, want at least %d", r.Trace.StderrBytes, 64<<10)
				}
				if r.Trace.StdoutBytes != 0 {
					t.Errorf("stdout bytes = %d, want 0", r.Trace.StdoutBytes)
				}
			},
		},
		{
			name: "one 100 MB line without a newline",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "head -c 100000000 /dev/zero | tr '\\0' x\n",
				launcher.Python: "import sys\nsys.stdout.write('x' * 100_000_000)\n",
			},
			hook: capped,
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantFailure(t, r, hook.FailOutputLimit)
				if !r.Trace.Truncated {
					t.Error("truncated = false, want true")
				}
				if r.Trace.StdoutBytes < 64<<10 {
					t.Errorf("stdout bytes = %d, want at least %d", r.Trace.StdoutBytes, 64<<10)
				}
			},
		},
		{
			name: "busy loop times out",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "while :; do :; done\n",
				launcher.Python: "while True:\n    pass\n",
			},
			hook:  func(h *hook.Hook) { h.Timeout = 2 * time.Second },
			check: wantTimeout(2 * time.Second),
		},
		{
			name: "filling /tmp hits ENOSPC inside",
			scripts: map[launcher.Lang]string{
				launcher.Shell: `if dd if=/dev/zero of=/tmp/fill bs=1048576 count=64 2>/tmp/err; then exit 9; fi
` + shAllow + "\n",
				launcher.Python: `import errno
try:
    with open("/tmp/fill", "wb") as f:
        for _ in range(64):
            f.write(b"\0" * 1048576)
            f.flush()
    raise SystemExit(9)
except OSError as e:
    assert e.errno in (errno.ENOSPC, errno.EFBIG), e
` + pyAllow + "\n",
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.Allow)
			},
		},
		{
			name: "privileged system calls are refused",
			scripts: map[launcher.Lang]string{
				launcher.Shell: `mkdir /tmp/m
if mount -t tmpfs none /tmp/m 2>/dev/null; then exit 9; fi
if unshare -U true 2>/dev/null; then exit 10; fi
` + shAllow + "\n",
				launcher.Python: `import ctypes, errno, json, os
libc = ctypes.CDLL(None, use_errno=True)
res = {}
try:
    os.setuid(0)
    res["setuid"] = "ok"
except PermissionError:
    res["setuid"] = "EPERM"
def call(name, *args):
    ctypes.set_errno(0)
    rc = getattr(libc, name)(*args)
    res[name] = "ok" if rc == 0 else errno.errorcode.get(ctypes.get_errno(), "?")
os.mkdir("/tmp/m")
call("mount", b"none", b"/tmp/m", b"tmpfs", ctypes.c_ulong(0), None)
call("unshare", 0x10000000)
call("ptrace", 16, 1, None, None)
ctypes.set_errno(0)
rc = libc.syscall(250, 1, 0, 0, 0, 0)
res["keyctl"] = "ok" if rc >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
print(json.dumps({"schema_version": 1, "action": "allow", "reason": json.dumps(res, sort_keys=True)}))
`,
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantNoFailure(t, r)
				wantAction(t, r, hook.Allow)
				if strings.Contains(r.Decision.Reason, `"ok"`) {
					t.Fatalf("a privileged call succeeded: %s", r.Decision.Reason)
				}
				for _, call := range []string{"setuid", "mount", "unshare", "ptrace", "keyctl"} {
					if r.Decision.Reason != "" && !strings.Contains(r.Decision.Reason, `"`+call+`": "EPERM"`) {
						t.Errorf("%s not refused with EPERM: %s", call, r.Decision.Reason)
					}
				}
			},
		},
		{
			name: "reading past the event gives EOF at once",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "cat >/dev/null\nn=$(cat | wc -c)\n[ \"$n\" -eq 0 ] || exit 9\n" + shAllow + "\n",
				launcher.Python: "import os, sys\nsys.stdin.read()\nassert sys.stdin.read() == ''\nassert os.read(0, 10) == b''\n" + pyAllow + "\n",
			},
			check: func(t *testing.T, r *executor.Result, elapsed time.Duration) {
				wantNoFailure(t, r)
				if elapsed > 5*time.Second {
					t.Fatalf("took %v", elapsed)
				}
			},
		},
		{
			name: "closed stdout and stderr, still running: timeout applies",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "exec >&- 2>&-\nsleep 1000\n",
				launcher.Python: "import os, time\nos.close(1)\nos.close(2)\ntime.sleep(1000)\n",
			},
			hook:  func(h *hook.Hook) { h.Timeout = 2 * time.Second },
			check: wantTimeout(2 * time.Second),
		},
		{
			name: "closed stdout and stderr, then exit 3: status reported",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "exec >&- 2>&-\nsleep 0.3\nexit 3\n",
				launcher.Python: "import os, time\nos.close(1)\nos.close(2)\ntime.sleep(0.3)\nos._exit(3)\n",
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantFailure(t, r, hook.FailExitNonzero)
				if r.Trace.ExitCode == nil || *r.Trace.ExitCode != 3 {
					t.Fatalf("exit code = %s, want 3", exitCodeOf(r.Trace.ExitCode))
				}
			},
		},
		{
			name: "an instant exit keeps its output and status",
			scripts: map[launcher.Lang]string{
				launcher.Shell:  "printf out; printf err >&2; exit 7\n",
				launcher.Python: "import os\nos.write(1, b'out')\nos.write(2, b'err')\nos._exit(7)\n",
			},
			check: func(t *testing.T, r *executor.Result, _ time.Duration) {
				wantFailure(t, r, hook.FailExitNonzero)
				if r.Trace.ExitCode == nil || *r.Trace.ExitCode != 7 {
					t.Errorf("exit code = %s, want 7", exitCodeOf(r.Trace.ExitCode))
				}
				if r.Trace.StdoutBytes != 3 {
					t.Errorf("stdout bytes = %d, want 3", r.Trace.StdoutBytes)
				}
				if r.Trace.StderrExcerpt != "err" {
					t.Errorf("stderr excerpt = %q, want %q", r.Trace.StderrExcerpt, "err")
				}
			},
		},
	}
}

// invalidDecisions are answers a holaryn hook may not give.
var invalidDecisions = map[string]string{
	"invalid JSON":   `{schema_version: 1}`,
	"truncated":      `{"schema_version":1,"action":"al`,
	"duplicated key": `{"schema_version":1,"action":"allow","action":"deny"}`,
	"unknown action": `{"schema_version":1,"action":"maybe"}`,
	"oversized":      "", // written by the script itself
}

func TestAdversarial(t *testing.T) {
	t.Parallel()
	for _, eng := range slices.Concat(engines(t), runtimeEngines(t), podmanEngines(t), rootlessEngines(t), k8sEngines(t)) {
		ex := caseExecutor(t, eng, 0)
		pooled := caseExecutor(t, eng, 2)
		// On the container engines, each case again as a host's hook
		// command runs it through the user's server.
		var srv *testServer
		if eng.runtime == "" && eng.name != "kubernetes" && eng.via == "" {
			srv = startServer(t, eng)
		}
		for _, c := range adversarialCases() {
			for _, lang := range []launcher.Lang{launcher.Shell, launcher.Python} {
				script, ok := c.scripts[lang]
				if !ok {
					continue
				}
				if srv != nil {
					t.Run(eng.label()+"/server/"+c.name+"/"+string(lang), func(t *testing.T) {
						t.Parallel()
						runCaseViaServer(t, srv, lang, script, c)
					})
				}
				t.Run(eng.label()+"/"+c.name+"/"+string(lang), func(t *testing.T) {
					t.Parallel()
					runCase(t, ex, eng, lang, script, c)
				})
				t.Run(eng.label()+"/pooled/"+c.name+"/"+string(lang), func(t *testing.T) {
					t.Parallel()
					runCase(t, pooled, eng, lang, script, c)
				})
			}
		}
		for name, answer := range invalidDecisions {
			t.Run(eng.label()+"/invalid decision/"+name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				os.WriteFile(filepath.Join(dir, "answer.json"), []byte(answer), 0o644)
				c := coreCase{
					hook: func(h *hook.Hook) { h.MaxOutputBytes = 256 << 10 },
					check: func(t *testing.T, r *executor.Result, _ time.Duration) {
						wantFailure(t, r, hook.FailInvalidDecision)
					},
				}
				script := "import sys\nsys.stdout.write(" + fmt.Sprintf("%q", answer) + ")\n"
				if name == "oversized" { // built in the script: the script itself stays small
					script = "import sys\nsys.stdout.write('{\"schema_version\":1,\"action\":\"allow\",\"reason\":\"' + 'x' * 71680 + '\"}')\n"
				}
				runCase(t, ex, eng, launcher.Python, script, c)
			})
		}
	}
}

func runCase(t *testing.T, ex *executor.Executor, eng engineUnderTest, lang launcher.Lang, script string, c coreCase) {
	t.Helper()
	h := writeScript(t, lang, script)
	if c.hook != nil {
		c.hook(&h)
	}
	h.Timeout += eng.start
	event := c.event
	if event == nil {
		event = toolEvent("ls")
	}
	if lane, ok := lanes.Load(ex); ok {
		lane.(chan struct{}) <- struct{}{}
		defer func() { <-lane.(chan struct{}) }()
	}
	start := time.Now()
	r, err := ex.Run(context.Background(), h, event)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	assertGone(t, r.Trace.ExecutionID)
	if r.Trace.Image != eng.refs[lang] && r.Trace.Failure == nil {
		t.Errorf("trace image = %q, want %q (or a failure)", r.Trace.Image, eng.refs[lang])
	}
	if r.Trace.Backend != eng.name || r.Trace.Runtime != eng.runtime {
		t.Errorf("trace backend %q runtime %q, want %q %q", r.Trace.Backend, r.Trace.Runtime, eng.name, eng.runtime)
	}
	if r.Trace.ScriptSHA256 == "" {
		t.Error("trace script_sha256 is empty")
	}
	check := c.check
	if d, ok := c.differenceOn(eng); ok {
		t.Logf("on %s: %s", eng.label(), d.why)
		check = d.check
	}
	check(t, r, elapsed-eng.start)
}

// TestRefusedBeforeAnyContainer: scripts that break a rule never reach an engine.
func TestRefusedBeforeAnyContainer(t *testing.T) {
	t.Parallel()
	b, refs := engine(t)
	counting := &countingBackend{Backend: b}
	ex := newExecutor(t, counting, refs)
	tests := []struct {
		name, file string
		body       []byte
		rel        string // the path the hook names, when not the file itself
		rule       error
	}{
		{"over 16 KiB", "h.sh", append([]byte("#"), make([]byte, 16384)...), "", scriptpin.ErrTooLarge},
		{"byte-order mark", "h.py", []byte("\xef\xbb\xbfprint(1)\n"), "", scriptpin.ErrBOM},
		{"CRLF shell script", "h.sh", []byte("echo hi\r\n"), "", scriptpin.ErrCRLF},
		{"invalid UTF-8", "h.py", []byte("print('\xff')\n"), "", scriptpin.ErrNotUTF8},
		{"NUL byte", "h.sh", []byte("echo\x00hi\n"), "", scriptpin.ErrNUL},
		{"symlink", "real.sh", []byte("echo hi\n"), "link.sh", scriptpin.ErrLink},
		{"path escaping the plugin dir", "h.sh", []byte("echo hi\n"), "../h.sh", scriptpin.ErrEscape},
		{"absolute path", "h.sh", []byte("echo hi\n"), "/etc/passwd.sh", scriptpin.ErrAbsolute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, tc.file), tc.body, 0o644); err != nil {
				t.Fatal(err)
			}
			rel := tc.file
			if tc.rel != "" {
				rel = tc.rel
				if tc.rel == "link.sh" {
					if err := os.Symlink(tc.file, filepath.Join(dir, "link.sh")); err != nil {
						t.Fatal(err)
					}
				}
			}
			// The rule itself, by its sentinel: a missing file would also be refused.
			if _, err := scriptpin.Read(dir, rel); !errors.Is(err, tc.rule) {
				t.Fatalf("scriptpin.Read: %v, want %v", err, tc.rule)
			}
			before := counting.count()
			r, err := ex.Run(context.Background(), hook.Hook{ID: "rules-" + tc.name, PluginDir: dir, Script: rel, Timeout: 10 * time.Second}, toolEvent("ls"))
			if err != nil {
				t.Fatal(err)
			}
			wantFailure(t, r, hook.FailRefusedRule)
			if !strings.Contains(r.Trace.Failure.Message, tc.rule.Error()) {
				t.Errorf("failure %q does not name the rule %q", r.Trace.Failure.Message, tc.rule)
			}
			if counting.count() != before {
				t.Fatal("a script that breaks a rule reached the engine")
			}
		})
	}
}

// TestParallelMix runs 16 hooks at once on each backend, mixing hostile and
// well-behaved scripts: every run gets its own answer. The timeout is sized
// from the engine's measured cold latency so that every run is admitted
// in time: all 16 wait in the admission queue, the limit's worth at a
// time, with a margin of five: the mix's own fork bombs and OOM kills
// slow creations three to four times (measured on a fuse-overlayfs
// engine), and other suites run beside this one.
func TestParallelMix(t *testing.T) {
	t.Parallel()
	type want struct {
		action hook.Action
		kind   hook.FailureKind // "" for success; "any" for any failure
	}
	mix := []struct {
		script string
		hook   func(*hook.Hook)
		want   want
	}{
		{"cat >/dev/null\n" + shAllow + "\n", nil, want{hook.Allow, ""}},
		{`printf '{"schema_version":1,"action":"deny","reason":"r%s"}\n' "$HOLARYN_HOOK_ID"`, nil, want{hook.Deny, ""}},
		{"sleep 1000\n", nil, want{hook.Deny, hook.FailTimeout}},
		{"yes\n", nil, want{hook.Deny, hook.FailOutputLimit}},
		{"bomb() { bomb | bomb & }\nbomb\nsleep 1\n", nil, want{hook.Deny, "any"}},
		{"x=aaaaaaaaaaaaaaaa\nwhile :; do x=\"$x$x\"; done\n", func(h *hook.Hook) { h.Memory = 64 << 20 }, want{hook.Deny, hook.FailOOM}},
		{"echo hi\r\n", nil, want{hook.Deny, hook.FailRefusedRule}},
		{"exit 5\n", func(h *hook.Hook) { h.FailurePolicy = hook.PolicyContinue }, want{hook.Allow, hook.FailExitNonzero}},
	}
	for _, eng := range engines(t) {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			const runs = 16
			cold := coldLatency(t, eng)
			ex, err := executor.New(executor.Options{
				Backend:        eng.b,
				MaxConcurrency: runs,
				DefaultImage:   func(_ context.Context, l launcher.Lang) (string, error) { return eng.refs[l], nil },
			})
			if err != nil {
				t.Fatal(err)
			}
			// The admission bound adapts down to 1 when creations slow (seen in
			// make test: 4 -> 1, a creation 4x the cold latency, a run shed as
			// overloaded under a timeout sized for 4), so the timeout is sized for
			// every creation in turn, each up to 5 cold latencies.
			timeout := time.Duration(5*(runs+3)) * cold
			t.Logf("%d runs, admission bound %d (may fall to 1), timeout %v", runs, ex.Admission().Limit(), timeout.Round(time.Millisecond))
			var wg sync.WaitGroup
			errs := make(chan error, runs)
			for i := range runs {
				m := mix[i%len(mix)]
				h := writeScript(t, launcher.Shell, m.script)
				h.ID = fmt.Sprintf("mix-%d", i)
				h.Timeout = timeout
				if m.hook != nil {
					m.hook(&h)
				}
				wg.Go(func() {
					r, err := ex.Run(context.Background(), h, toolEvent("ls"))
					switch {
					case err != nil:
						errs <- fmt.Errorf("run %d: %w", i, err)
					case r.Decision.Action != m.want.action:
						errs <- fmt.Errorf("run %d (%q): action %s, want %s (%+v)", i, m.script, r.Decision.Action, m.want.action, r.Trace.Failure)
					case m.want.kind == hook.FailOOM && eng.name == "docker" && r.Trace.Failure != nil &&
						r.Trace.Failure.Kind == hook.FailExitNonzero && r.Trace.ExitCode != nil && *r.Trace.ExitCode == 137:
						// Written reason: under this much parallel load Docker's engine
						// misses OOM kills now and then (plain `docker run` measured 1 in
						// 24), and the backend's own cgroup watch cannot start before the
						// engine's start returns; when the container is gone by then, only
						// the SIGKILL status is left. The decision (deny) is still checked;
						// containerd reads the kernel's counter and is held to oom.
						assertGone(t, r.Trace.ExecutionID)
					case m.want.kind == "" && r.Trace.Failure != nil, m.want.kind == "any" && r.Trace.Failure == nil,
						m.want.kind != "" && m.want.kind != "any" && (r.Trace.Failure == nil || r.Trace.Failure.Kind != m.want.kind):
						errs <- fmt.Errorf("run %d (%q): failure %+v, want %s", i, m.script, r.Trace.Failure, m.want.kind)
					case m.want.action == hook.Deny && m.want.kind == "" && r.Decision.Reason != "r"+h.ID:
						errs <- fmt.Errorf("run %d got another run's answer: %q", i, r.Decision.Reason)
					default:
						assertGone(t, r.Trace.ExecutionID)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}
