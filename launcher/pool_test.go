package launcher

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// pooled runs a pooled launcher with stdin as given, env added to the
// sandbox's own environment.
func pooled(t *testing.T, in interp, stdin []byte, env ...string) result {
	t.Helper()
	bin := t.TempDir()
	if err := os.Symlink(in.bin, filepath.Join(bin, Required(in.lang)[0])); err != nil {
		t.Fatal(err)
	}
	argv, err := PoolArgv(in.lang)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command(filepath.Join(bin, argv[0]), argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = append([]string{"PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + tmp}, env...)
	cmd.Stdin = bytes.NewReader(stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err = cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{so.Bytes(), se.Bytes(), code, tmp}
}

func TestPooledLauncher(t *testing.T) {
	t.Parallel()
	scripts := map[Lang]string{
		Shell:  "printf '%s|%s|' \"$HOLARYN_HOOK_POINT\" \"$MODE\"; ls -A | tr '\\n' ' '; printf '|'; cat\nexit 3\n",
		Python: "import os, sys\nsys.stdout.write('%s|%s|%s |' % (os.environ['HOLARYN_HOOK_POINT'], os.environ['MODE'], ' '.join(os.listdir('.'))))\nsys.stdout.flush()\nsys.stdout.buffer.write(sys.stdin.buffer.read())\nraise SystemExit(3)\n",
	}
	odd := "it's \"quoted\" $HOME `x` \\ and\nnewline"
	event := []byte("{\"event\":1}\x00\xff")
	for _, in := range hostInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			stdin, err := PoolInput(in.lang, []string{"HOLARYN_HOOK_POINT=tool.before", "MODE=" + odd}, []byte(scripts[in.lang]), event)
			if err != nil {
				t.Fatal(err)
			}
			r := pooled(t, in, stdin)
			want := "tool.before|" + odd + "|hook." + string(in.lang) + " |" + string(event)
			if r.code != 3 {
				t.Errorf("exit %d, want 3; stderr %s", r.code, r.stderr)
			}
			if string(r.stdout) != want {
				t.Errorf("stdout %q, want %q", r.stdout, want)
			}
			assertNoPrivateDir(t, r)
		})
		t.Run(in.name+"/short", func(t *testing.T) {
			t.Parallel()
			for _, stdin := range []string{"", "12 0\necho", "x y\n"} {
				r := pooled(t, in, []byte(stdin))
				if err := Failure(r.code, r.stderr); !errors.Is(err, ErrLauncher) {
					t.Errorf("stdin %q: Failure = %v, want ErrLauncher (exit %d stderr %q)", stdin, err, r.code, r.stderr)
				}
				if strings.Contains(string(r.stdout), "echo") {
					t.Errorf("stdin %q: stdout %q, want no script run", stdin, r.stdout)
				}
				assertNoPrivateDir(t, r)
			}
		})
	}
	if _, err := PoolInput(Shell, []string{"NOEQUALS"}, nil, nil); err == nil {
		t.Fatal("a malformed environment entry was framed")
	}
}

// In a sandbox removed after its run (DisposableVar), the .sh launcher
// leaves its private directory to the removal; its report file is kept
// outside that directory, and the script sees neither.
func TestPooledDisposable(t *testing.T) {
	t.Parallel()
	for _, in := range shellInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			script := "ls -A | tr '\\n' ' '; printf '|%s|%s|' \"${HOOKEXEC_DISPOSABLE-unset}\" \"$MODE\"; cat\n"
			stdin, err := PoolInput(in.lang, []string{"MODE=m", DisposableVar + "=1"}, []byte(script), []byte("ev"))
			if err != nil {
				t.Fatal(err)
			}
			for _, disposable := range []bool{false, true} {
				var env []string
				if disposable {
					env = []string{DisposableVar + "=1"}
				}
				r := pooled(t, in, stdin, env...)
				if want := "hook.sh |unset|m|ev"; r.code != 0 || string(r.stdout) != want {
					t.Fatalf("disposable %v: exit %d, stdout %q, want %q; stderr %q", disposable, r.code, r.stdout, want, r.stderr)
				}
				ents, err := os.ReadDir(r.tmp)
				if err != nil {
					t.Fatal(err)
				}
				if !disposable && len(ents) != 0 {
					t.Errorf("not disposable: %d entries left in %s, want none", len(ents), r.tmp)
				}
				if disposable && len(ents) != 2 {
					t.Errorf("disposable: %d entries left in %s, want the private directory and the report file", len(ents), r.tmp)
				}
			}
		})
	}
}

// TestPooledPythonMain: a pooled run is the real __main__ too, with
// Python's own exit statuses and atexit handlers.
func TestPooledPythonMain(t *testing.T) {
	t.Parallel()
	var py interp
	for _, in := range hostInterps(t) {
		if in.lang == Python {
			py = in
		}
	}
	main := `import dataclasses, pickle, sys, atexit
@dataclasses.dataclass
class Point:
    x: int
assert pickle.loads(pickle.dumps(Point(1))) == Point(1)
assert __name__ == "__main__" and sys.modules["__main__"].Point is Point and sys.argv == ["hook.py"]
atexit.register(lambda: print("atexit", end=""))
print("ok", end=" ")
`
	tests := []struct {
		script, stdout, stderr string
		code                   int
	}{
		{main, "ok atexit", "", 0},
		{"raise SystemExit(7)\n", "", "", 7},
		{"import sys\nsys.exit('bad thing')\n", "", "bad thing", 1},
		{"raise ValueError('boom')\n", "", "ValueError: boom", 1},
		{"import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n", "", "", 137},
	}
	for _, tc := range tests {
		stdin, _ := PoolInput(Python, nil, []byte(tc.script), nil)
		r := pooled(t, py, stdin)
		if r.code != tc.code {
			t.Errorf("%q: exit %d, want %d (stderr %q)", tc.script, r.code, tc.code, r.stderr)
		}
		if string(r.stdout) != tc.stdout {
			t.Errorf("%q: stdout %q, want %q", tc.script, r.stdout, tc.stdout)
		}
		if !strings.Contains(string(r.stderr), tc.stderr) {
			t.Errorf("%q: stderr %q, want it to contain %q", tc.script, r.stderr, tc.stderr)
		}
		assertNoPrivateDir(t, r)
	}
}

// A pooled run's environment block is evaluated after the script is read:
// a PATH it sets cannot choose the dd that reads the script, the copy's
// extension comes from the header hook-exec writes, and names a hook's
// environment may use (ext, m, e) are not the launcher's.
func TestPooledEnvironmentSourcedLast(t *testing.T) {
	t.Parallel()
	for _, in := range shellInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			script := []byte("printf '%s|%s|' \"$0\" \"$PATH\"; IFS= read -r x; printf '%s' \"$x\"\n")
			sh := filepath.Join(t.TempDir(), "sh")
			if err := os.Symlink(in.bin, sh); err != nil {
				t.Fatal(err)
			}
			stdin, err := PoolInput(Shell, []string{"PATH=/nowhere", "HOOKEXEC_SHELL=" + sh, "HOOKEXEC_EXT=.mjs", "ext=/../../evil", "m=0", "e=1"}, script, []byte("event"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(stdin, []byte(strconv.Itoa(len(script))+" ")) || !bytes.Contains(stdin[:bytes.IndexByte(stdin, '\n')], []byte(" .mjs")) {
				t.Fatalf("header %q, want N M .mjs", stdin[:bytes.IndexByte(stdin, '\n')])
			}
			r := pooled(t, in, stdin)
			if r.code != 0 || string(r.stdout) != "./hook.mjs|/nowhere|event" {
				t.Errorf("exit %d stdout %q stderr %q, want ./hook.mjs|/nowhere|event", r.code, r.stdout, r.stderr)
			}
			assertNoPrivateDir(t, r) // the launcher's own rm is found whatever PATH the block set
		})
	}
	if _, err := PoolInput(Shell, []string{"HOOKEXEC_EXT=.x y"}, nil, nil); !errors.Is(err, ErrLauncher) {
		t.Errorf("an odd extension: err %v, want ErrLauncher", err)
	}
}

// A pooled launcher in a sandbox of its own checks the script was read
// whole by dd's own count of records, not wc (here a wc that lies, which
// must not be called): whatever dd the image has (the host's, busybox's,
// or one that reports otherwise, where the real wc decides), a whole
// script runs and a short one never does.
func TestPooledScriptReadWhole(t *testing.T) {
	t.Parallel()
	program := func(dir, name, src string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	lyingWc := "#!/bin/sh\necho 1\n"
	dds := map[string]string{"host": t.TempDir(), "odd": t.TempDir()}
	program(dds["host"], "wc", lyingWc)
	program(dds["odd"], "dd", "#!/bin/sh\n/bin/dd \"$@\" 2>/dev/null\ns=$?\necho 'dd: done' >&2\nexit $s\n")
	for _, in := range hostInterps(t) {
		if in.name == "busybox" {
			dds["busybox"] = t.TempDir()
			if err := os.Symlink(in.bin, filepath.Join(dds["busybox"], "dd")); err != nil {
				t.Fatal(err)
			}
			program(dds["busybox"], "wc", lyingWc)
		}
	}
	script := []byte("echo ran\n")
	whole, err := PoolInput(Shell, []string{"MODE=m\nsecond line"}, script, []byte("ev"))
	if err != nil {
		t.Fatal(err)
	}
	short := whole[:bytes.Index(whole, script)+4] // the header, the block, 4 of the script's bytes
	for _, in := range shellInterps(t) {
		for dd, dir := range dds {
			t.Run(in.name+"/"+dd, func(t *testing.T) {
				t.Parallel()
				path := "PATH=" + dir + ":/usr/local/bin:/usr/bin:/bin"
				r := pooled(t, in, whole, DisposableVar+"=1", path)
				if r.code != 0 || string(r.stdout) != "ran\n" {
					t.Errorf("whole script: exit %d, stdout %q; stderr %q", r.code, r.stdout, r.stderr)
				}
				r = pooled(t, in, short, DisposableVar+"=1", path)
				if r.code != ExitShortScript || bytes.Contains(r.stdout, []byte("ran")) {
					t.Errorf("short script: exit %d, stdout %q, want %d and nothing run; stderr %q", r.code, r.stdout, ExitShortScript, r.stderr)
				}
			})
		}
	}
}
