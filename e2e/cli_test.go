package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/images"
	"github.com/hookexec/hook-exec/launcher"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// cli returns the path of a freshly built hook-exec front, with
// hook-exec-core beside it.
func cli(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hookexec-e2e-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "hook-exec")
		out, err := exec.Command("go", "build", "-o", dir+"/", "../cmd/hook-exec", "../cmd/hook-exec-core").CombinedOutput()
		if err != nil {
			binErr = errors.New(string(out))
		}
	})
	if binErr != nil {
		t.Fatalf("build hook-exec: %v", binErr)
	}
	return binPath
}

type cliResult struct {
	code           int
	stdout, stderr string
	elapsed        time.Duration
}

// hookExec runs the binary as a host would: argv, stdin, an environment.
func hookExec(t testing.TB, stdin []byte, env []string, args ...string) cliResult {
	t.Helper()
	cmd := exec.Command(cli(t), args...)
	cmd.Stdin = bytes.NewReader(stdin)
	cmd.Env = append(os.Environ(), env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	start := time.Now()
	err := cmd.Run()
	r := cliResult{stdout: so.String(), stderr: se.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run hook-exec: %v", err)
	}
	return r
}

// wantCode reports an exit code other than want, with the run's output.
func (r cliResult) wantCode(t testing.TB, want int) {
	t.Helper()
	if r.code != want {
		t.Errorf("exit code = %d, want %d; stdout %q stderr %q", r.code, want, r.stdout, r.stderr)
	}
}

// wantIn reports an output (named what) that lacks sub.
func wantIn(t *testing.T, what, s, sub string) {
	t.Helper()
	if !strings.Contains(s, sub) {
		t.Errorf("%s %q lacks %q", what, s, sub)
	}
}

func decisionOf(t *testing.T, r cliResult) hook.Decision {
	t.Helper()
	var d hook.Decision
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil {
		t.Fatalf("stdout is not a decision: %q (stderr %q)", r.stdout, r.stderr)
	}
	return d
}

// hostDir is a new directory outside /tmp, removed after the test: a
// project, a home or a state directory, whose paths a hook's kept /tmp
// (--tmp-data) may not hold as mount points.
func hostDir(t testing.TB) string {
	t.Helper()
	d, err := os.MkdirTemp("/var/tmp", "hookexec-e2e-")
	if err != nil {
		t.Fatalf("a directory outside /tmp: %v", err)
	}
	os.Chmod(d, 0o755) // as t.TempDir's: the sandbox's user may enter it
	t.Cleanup(func() {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				os.Chmod(p, 0o700) // what a hook took its permissions away from
			}
			return nil
		})
		os.RemoveAll(d)
	})
	return d
}

func scriptFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCLIRun(t *testing.T) {
	t.Parallel()
	engine(t)
	guard := scriptFile(t, "guard.sh", `ev=$(cat)
case $ev in *'rm -rf'*) printf '{"schema_version":1,"action":"deny","reason":"no rm"}\n' ;; *) printf '{"schema_version":1,"action":"allow"}\n' ;; esac
`)
	t.Run("allow exits 0", func(t *testing.T) {
		t.Parallel()
		r := hookExec(t, toolEvent("ls"), nil, "run", "--script", guard)
		r.wantCode(t, 0)
		if d := decisionOf(t, r); d.Action != hook.Allow {
			t.Errorf("action = %q, want %q", d.Action, hook.Allow)
		}
	})
	t.Run("deny exits 2", func(t *testing.T) {
		t.Parallel()
		r := hookExec(t, toolEvent("rm -rf /"), nil, "run", "--script", guard, "--trace", "-")
		d := decisionOf(t, r)
		r.wantCode(t, 2)
		if d.Action != hook.Deny {
			t.Errorf("action = %q, want %q", d.Action, hook.Deny)
		}
		if d.Reason != "no rm" {
			t.Errorf("reason = %q, want %q", d.Reason, "no rm")
		}
		var tr hook.Trace
		if err := json.Unmarshal([]byte(strings.TrimSpace(r.stderr)), &tr); err != nil {
			t.Fatalf("trace on stderr %q: %v", r.stderr, err)
		}
		if tr.SchemaVersion != 1 {
			t.Errorf("trace schema_version = %d, want 1", tr.SchemaVersion)
		}
		if tr.FinalAction != hook.Deny {
			t.Errorf("trace final action = %q, want %q", tr.FinalAction, hook.Deny)
		}
		if tr.HandlerAction != hook.Deny {
			t.Errorf("trace handler action = %q, want %q", tr.HandlerAction, hook.Deny)
		}
	})
	t.Run("changed pin fails closed without a container", func(t *testing.T) {
		t.Parallel()
		r := hookExec(t, toolEvent("ls"), nil, "run", "--script", guard, "--sha256", strings.Repeat("0", 64))
		r.wantCode(t, 2)
		wantIn(t, "stderr", r.stderr, string(hook.FailRefusedChanged))
	})
	t.Run("usage errors exit 64", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{
			{"run"},
			{"run", "--script", guard, "--no-such-flag"},
			{"run", "--script", guard, "--env", "GITHUB_TOKEN=x"},
			{"run", "--script", guard, "--mode", "observational", "--failure-policy", "deny"},
			{"run", "--script", guard, "--memory", "lots"},
			{"nonsense"},
		} {
			r := hookExec(t, toolEvent("ls"), nil, args...)
			if r.code != 64 {
				t.Errorf("%q: exit code = %d, want 64; stderr %q", args, r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("%q: stdout = %q, want none", args, r.stdout)
			}
		}
	})
	t.Run("unreachable engine is an engine_error at once", func(t *testing.T) {
		t.Parallel()
		sock := filepath.Join(t.TempDir(), "nothing.sock")
		r := hookExec(t, toolEvent("ls"), []string{"DOCKER_HOST=unix://" + sock}, "run", "--script", guard, "--image", "x")
		r.wantCode(t, 2)
		wantIn(t, "stderr", r.stderr, string(hook.FailEngineError))
		wantIn(t, "stderr", r.stderr, sock)
		if r.elapsed > 5*time.Second {
			t.Fatalf("took %v", r.elapsed)
		}
	})
	t.Run("event over the limit refused before launch", func(t *testing.T) {
		t.Parallel()
		r := hookExec(t, toolEvent(strings.Repeat("x", 2048)), nil, "run", "--script", guard, "--max-event-bytes", "1024")
		r.wantCode(t, 2)
		wantIn(t, "stderr", r.stderr, "over the 1024-byte limit")
	})
}

// noddRecipe is an image whose shell is dash and whose coreutils lack dd:
// busybox would supply dd to its own shell even with the link removed.
var noddRecipe = images.Recipe{
	Name:       "test-nodd",
	Packages:   []string{"dash", "coreutils", "libc6", "libacl1", "libattr1", "libgmp10", "libselinux1", "libpcre2-8-0"},
	Remove:     []string{"bin/dd", "usr/bin/dd"},
	Dockerfile: "FROM scratch\nCOPY rootfs/ /\nENV PATH=/usr/local/bin:/usr/bin:/bin\n",
}

var (
	noddOnce sync.Once
	noddRef  string
	noddErr  error
)

func noddImage(t *testing.T) string {
	t.Helper()
	b, _ := engine(t)
	noddOnce.Do(func() {
		noddRef, noddErr = (&images.Builder{Docker: b.Client(), Out: os.Stderr}).Build(context.Background(), noddRecipe)
	})
	if noddErr != nil {
		t.Fatalf("build the test image without dd: %v", noddErr)
	}
	return noddRef
}

func TestImageCheck(t *testing.T) {
	t.Parallel()
	_, refs := engine(t)
	nodd := noddImage(t)
	tests := []struct {
		image, lang string
		code        int
		missing     string
	}{
		{refs[launcher.Shell], "sh", 0, ""},
		{refs[launcher.Python], "", 0, ""},
		{refs[launcher.Shell], "py", 1, "python"},
		{nodd, "sh", 1, "dd"},
		{nodd, "py", 1, "python"},
	}
	for _, tc := range tests {
		t.Run(tc.image+"/"+tc.lang, func(t *testing.T) {
			t.Parallel()
			args := []string{"image", "check", tc.image, "--json"}
			if tc.lang != "" {
				args = append(args, "--lang", tc.lang)
			}
			r := hookExec(t, nil, nil, args...)
			if r.code != tc.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", r.code, tc.code, r.stdout, r.stderr)
			}
			var rep struct {
				Languages map[string]struct {
					Runnable bool
					Missing  []string
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("report %q: %v", r.stdout, err)
			}
			if tc.missing != "" {
				wantIn(t, "stderr", r.stderr, tc.missing)
				if rep.Languages[tc.lang].Runnable {
					t.Errorf("report: %s runnable = true, want false; stdout %q", tc.lang, r.stdout)
				}
				if missing := rep.Languages[tc.lang].Missing; !strings.Contains(strings.Join(missing, " "), tc.missing) {
					t.Errorf("report: %s missing = %q, want %s named", tc.lang, missing, tc.missing)
				}
				if tc.missing == "dd" && len(rep.Languages["sh"].Missing) != 1 {
					t.Fatalf("only dd is missing, report says %v", rep.Languages["sh"].Missing)
				}
			}
		})
	}
}

func TestMissingProgramRun(t *testing.T) {
	t.Parallel()
	_, refs := engine(t)
	nodd := noddImage(t)
	tests := []struct {
		lang    launcher.Lang
		image   string
		missing string
	}{
		{launcher.Shell, nodd, "dd"},
		{launcher.Python, refs[launcher.Shell], "python"},
	}
	for _, tc := range tests {
		t.Run(tc.missing, func(t *testing.T) {
			t.Parallel()
			script := scriptFile(t, "hook."+string(tc.lang), "echo hi\n")
			r := hookExec(t, toolEvent("ls"), nil, "run", "--script", script, "--image", tc.image, "--trace", "-")
			r.wantCode(t, 2)
			wantIn(t, "stderr", r.stderr, `"kind":"missing_program"`)
			wantIn(t, "stderr", r.stderr, `\"`+tc.missing+`\"`)
		})
	}
}

func TestDemo(t *testing.T) {
	t.Parallel()
	engine(t)
	r := hookExec(t, nil, nil, "demo")
	r.wantCode(t, 0)
	wantIn(t, "stdout", r.stdout, `"action":"deny","reason":"refusing a recursive rm"`)
	wantIn(t, "stdout", r.stdout, `{"schema_version":1,"action":"allow"}`)
}

func TestCLIContainerd(t *testing.T) {
	t.Parallel()
	_, refs := engine(t)
	engines(t)
	t.Run("demo", func(t *testing.T) {
		t.Parallel()
		r := hookExec(t, nil, nil, "demo", "--backend", "containerd")
		r.wantCode(t, 0)
		wantIn(t, "stdout", r.stdout, `"reason":"refusing a recursive rm"`)
		wantIn(t, "stdout", r.stdout, "docker.io/hookexec/hook-sh")
	})
	t.Run("image check names python", func(t *testing.T) {
		t.Parallel()
		r := hookExec(t, nil, []string{"HOOKEXEC_BACKEND=containerd"}, "image", "check", refs[launcher.Shell], "--lang", "py")
		r.wantCode(t, 1)
		wantIn(t, "stderr", r.stderr, "python")
	})
	t.Run("run with an image not imported", func(t *testing.T) {
		t.Parallel()
		script := scriptFile(t, "h.sh", "exit 0\n")
		r := hookExec(t, toolEvent("ls"), nil, "run", "--backend", "containerd", "--script", script, "--image", "hookexec/not-there:1")
		r.wantCode(t, 2)
		wantIn(t, "stderr", r.stderr, "images build --backend containerd")
	})
	t.Run("unreachable address", func(t *testing.T) {
		t.Parallel()
		script := scriptFile(t, "h.sh", "exit 0\n")
		sock := filepath.Join(t.TempDir(), "c.sock")
		r := hookExec(t, toolEvent("ls"), nil, "run", "--backend", "containerd", "--containerd-address", sock, "--script", script)
		r.wantCode(t, 2)
		wantIn(t, "stderr", r.stderr, "engine_error")
		wantIn(t, "stderr", r.stderr, sock)
		if r.elapsed > 2*time.Second {
			t.Fatalf("an unreachable containerd took %v to report", r.elapsed)
		}
	})
}

// A command run in its own process answers and exits without waiting for
// its sandbox's removal: its reaper removes the sandbox, and the process's
// channel directory, once it is gone. Nothing is left either way.
func TestCLIRunLeavesItsRemovalsToItsReaper(t *testing.T) {
	t.Parallel()
	guard := scriptFile(t, "guard.sh", "cat >/dev/null\nprintf '{\"schema_version\":1,\"action\":\"allow\"}\\n'\n")
	for _, eng := range engines(t) {
		t.Run(eng.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(cli(t), "run", "--backend", eng.name, "--script", guard, "--trace", "-")
			cmd.Stdin = bytes.NewReader(toolEvent("ls"))
			var so, se bytes.Buffer
			cmd.Stdout, cmd.Stderr = &so, &se
			if err := cmd.Run(); err != nil {
				t.Fatalf("run: %v; stderr %s", err, se.String())
			}
			var tr hook.Trace
			if err := json.Unmarshal(bytes.TrimSpace(se.Bytes()), &tr); err != nil || tr.ExecutionID == "" {
				t.Fatalf("trace %q: %v", se.String(), err)
			}
			assertGoneAnywhere(t, tr.ExecutionID)
			pattern := filepath.Join(os.TempDir(), fmt.Sprintf("hook-exec-channels-%d-*", cmd.Process.Pid))
			deadline := time.Now().Add(time.Minute)
			for {
				left, _ := filepath.Glob(pattern)
				if len(left) == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the process's channel directory %s survived it by a minute", left[0])
				}
				time.Sleep(50 * time.Millisecond)
			}
		})
	}
}
