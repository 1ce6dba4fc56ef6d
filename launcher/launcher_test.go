package launcher

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// interp is a way to run a launcher on this host: a directory put first on
// PATH in which "sh" or "python" is the interpreter under test.
type interp struct {
	name string
	lang Lang
	bin  string // the program that "sh" or "python" names
}

// hostInterps returns the interpreters the launcher is tested on: dash and
// busybox from HOOKEXEC_TEST_TOOLS (`make testtools` extracts them from
// Debian's packages; `make test` sets it), else from the host; bash and
// python3 from the host. A missing one is a failure, never a skip.
func hostInterps(t *testing.T) []interp {
	t.Helper()
	tools := os.Getenv("HOOKEXEC_TEST_TOOLS")
	var out []interp
	for _, c := range []struct {
		name, tool string
		host       []string
	}{
		{"dash", "bin/dash", []string{"/usr/bin/dash", "/bin/dash"}},
		{"busybox", "bin/busybox", []string{"/usr/bin/busybox", "/bin/busybox"}},
		{"bash", "", []string{"/bin/bash", "/usr/bin/bash"}},
	} {
		var candidates []string
		if tools != "" && c.tool != "" {
			candidates = append(candidates, filepath.Join(tools, c.tool))
		}
		found := ""
		for _, p := range append(candidates, c.host...) {
			if _, err := os.Stat(p); err == nil {
				found = p
				break
			}
		}
		if found == "" {
			t.Fatalf("%s is needed to test the launcher: run the tests with `make test` (it extracts dash and busybox with `make testtools`), or set HOOKEXEC_TEST_TOOLS to a directory with bin/dash and bin/busybox", c.name)
		}
		out = append(out, interp{c.name, Shell, found})
	}
	py, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatalf("python3 is needed to test the launcher: %v", err)
	}
	return append(out, interp{"python3", Python, strings.TrimSpace(string(py))})
}

// shellInterps are hostInterps' shells (dash, busybox, bash).
func shellInterps(t *testing.T) []interp {
	t.Helper()
	var out []interp
	for _, in := range hostInterps(t) {
		if in.lang == Shell {
			out = append(out, in)
		}
	}
	return out
}

type result struct {
	stdout, stderr []byte
	code           int
	tmp            string // TMPDIR the launcher used
}

// launch runs the launcher for script then event, with bin first on PATH,
// then pathRest (the system's PATH when nil).
func launch(t *testing.T, in interp, script, event []byte, pathRest []string, env ...string) result {
	t.Helper()
	return launchStdin(t, in, len(script), append(bytes.Clone(script), event...), pathRest, env...)
}

func launchStdin(t *testing.T, in interp, n int, stdin []byte, pathRest []string, env ...string) result {
	t.Helper()
	return launchReader(t, in, n, bytes.NewReader(stdin), pathRest, env...)
}

func launchReader(t *testing.T, in interp, n int, stdin io.Reader, pathRest []string, env ...string) result {
	t.Helper()
	bin := t.TempDir()
	name := Required(in.lang)[0]
	if err := os.Symlink(in.bin, filepath.Join(bin, name)); err != nil {
		t.Fatal(err)
	}
	if pathRest == nil {
		pathRest = []string{"/usr/local/bin", "/usr/bin", "/bin"}
	}
	argv, err := Argv(in.lang, n)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command(filepath.Join(bin, argv[0]), argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = append([]string{"PATH=" + strings.Join(append([]string{bin}, pathRest...), ":"), "TMPDIR=" + tmp}, env...)
	cmd.Stdin = stdin
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err = cmd.Run()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run launcher: %v", err)
	}
	return result{so.Bytes(), se.Bytes(), code, tmp}
}

func assertNoPrivateDir(t *testing.T, r result) {
	t.Helper()
	ents, err := os.ReadDir(r.tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Fatalf("the private directory survived: %v in %s", ents[0].Name(), r.tmp)
	}
}

// Scripts per language that show how they see stdin.
var readers = map[Lang]map[string]string{
	Shell: {
		"cat":   "cat\n",
		"child": "sh -c 'cat'\n",
		"dd":    "dd bs=65536 2>/dev/null\n",
	},
	Python: {
		"sys.stdin": "import sys\nsys.stdout.buffer.write(sys.stdin.buffer.read())\n",
		"os.read": "import os\nwhile True:\n    b = os.read(0, 65536)\n    if not b:\n        break\n" +
			"    while b:\n        b = b[os.write(1, b):]\n",
		"child": "import subprocess\nsubprocess.run(['cat'], check=True)\n",
	},
}

func TestEventByteExact(t *testing.T) {
	t.Parallel()
	big := make([]byte, 10<<20)
	rand.Read(big)
	events := map[string][]byte{
		"json":    []byte(`{"schema_version":1,"point":"tool.before","data":{"x":"é"}}`),
		"binary":  {0, 1, 2, 0xff, 0xfe, '\n', 0, '\r', '\n'},
		"invalid": []byte("\xc3\x28 not utf-8 \xa0\xa1"),
		"empty":   nil,
		"10MiB":   big,
	}
	for _, in := range hostInterps(t) {
		for rname, script := range readers[in.lang] {
			for ename, ev := range events {
				t.Run(in.name+"/"+rname+"/"+ename, func(t *testing.T) {
					t.Parallel()
					r := launch(t, in, []byte(script), ev, nil)
					if r.code != 0 {
						t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
					}
					if !bytes.Equal(r.stdout, ev) {
						t.Fatalf("script saw %d bytes, want the %d-byte event exactly", len(r.stdout), len(ev))
					}
					assertNoPrivateDir(t, r)
				})
			}
		}
	}
}

func TestReadBuiltinAndEOF(t *testing.T) {
	t.Parallel()
	scripts := map[Lang]string{
		// read sees the event's first line; a second cat after EOF sees nothing.
		Shell:  "IFS= read -r line\nprintf '%s|' \"$line\"\ncat >/dev/null\nprintf 'rest=%s' \"$(cat | wc -c)\"\n",
		Python: "import sys, os\nprint(sys.stdin.readline().rstrip(), end='|')\nsys.stdin.read()\nprint('rest=%d' % len(os.read(0, 10) + sys.stdin.read().encode()), end='')\n",
	}
	for _, in := range hostInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			r := launch(t, in, []byte(scripts[in.lang]), []byte("first line\nsecond\n"), nil)
			got := strings.ReplaceAll(string(r.stdout), " ", "")
			if r.code != 0 {
				t.Errorf("exit %d, want 0; stderr %s", r.code, r.stderr)
			}
			if got != "firstline|rest=0" {
				t.Errorf("stdout %q (spaces dropped: %q), want %q", r.stdout, got, "firstline|rest=0")
			}
		})
	}
}

func TestPrivateDirectory(t *testing.T) {
	t.Parallel()
	scripts := map[Lang]string{
		Shell:  "printf '%s %s ' \"$(pwd)\" \"$(stat -c %a .)\"; ls -A\n",
		Python: "import os\nprint(os.getcwd(), oct(os.stat('.').st_mode & 0o777)[2:], ' '.join(sorted(os.listdir('.'))))\n",
	}
	for _, in := range hostInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			r := launch(t, in, []byte(scripts[in.lang]), nil, nil)
			f := strings.Fields(string(r.stdout))
			if r.code != 0 {
				t.Errorf("exit %d, want 0; stderr %s", r.code, r.stderr)
			}
			if len(f) != 3 {
				t.Fatalf("stdout %q: %d fields, want 3 (cwd, mode, listing)", r.stdout, len(f))
			}
			if dir := filepath.Dir(f[0]); dir != r.tmp {
				t.Errorf("cwd %s is in %s, want a directory in %s", f[0], dir, r.tmp)
			}
			if f[1] != "700" {
				t.Errorf("cwd mode = %s, want 700", f[1])
			}
			if want := "hook." + string(in.lang); f[2] != want {
				t.Errorf("cwd holds %q, want only the script %q", f[2], want)
			}
			assertNoPrivateDir(t, r)
		})
	}
}

// With HOOKEXEC_PRIVATE_DIR (a kept /tmp) the launcher makes that
// directory, 0700, and no other; the script does not see the variable; the
// directory is gone after the run; one that exists already fails the run
// as the launcher's own (never a directory someone else made).
func TestGivenPrivateDirectory(t *testing.T) {
	t.Parallel()
	scripts := map[Lang]string{
		Shell:  "printf '%s %s %s' \"$(pwd)\" \"$(stat -c %a .)\" \"${HOOKEXEC_PRIVATE_DIR-unset}\"\n",
		Python: "import os\nprint(os.getcwd(), oct(os.stat('.').st_mode & 0o777)[2:], os.environ.get('HOOKEXEC_PRIVATE_DIR', 'unset'), end='')\n",
	}
	for _, in := range hostInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			kept := t.TempDir()
			given := filepath.Join(kept, "hook-exec.run1")
			r := launch(t, in, []byte(scripts[in.lang]), nil, nil, PrivateDirVar+"="+given)
			if r.code != 0 {
				t.Fatalf("exit %d, want 0; stderr %s", r.code, r.stderr)
			}
			if want := given + " 700 unset"; string(r.stdout) != want {
				t.Errorf("stdout %q, want %q", r.stdout, want)
			}
			if ents, _ := os.ReadDir(kept); len(ents) != 0 {
				t.Errorf("left in the kept /tmp: %v", ents)
			}
			assertNoPrivateDir(t, r)
			os.Mkdir(given, 0o755)
			r = launch(t, in, []byte(scripts[in.lang]), nil, nil, PrivateDirVar+"="+given)
			if r.code != ExitNoPrivateDir || len(r.stdout) != 0 {
				t.Errorf("with the directory made already: exit %d, stdout %q; want %d and no run", r.code, r.stdout, ExitNoPrivateDir)
			}
		})
	}
}

// With HOOKEXEC_CWD the script starts there (the event's cwd, as Arcturn,
// Bernstein and Claude Code start a hook), its private copy stays in the
// private directory, and the variable itself is not the script's.
func TestWorkingDirectory(t *testing.T) {
	t.Parallel()
	scripts := map[Lang]string{
		Shell:  "printf '%s|%s|%s|' \"$(pwd)\" \"${HOOKEXEC_CWD-unset}\" \"$(dirname \"$0\")\"; ls\n",
		Python: "import os, sys\nprint('%s|%s|%s|%s' % (os.getcwd(), os.environ.get('HOOKEXEC_CWD', 'unset'), os.path.dirname(os.path.abspath(sys.argv[0])), ' '.join(os.listdir('.'))))\n",
	}
	for _, in := range hostInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			os.WriteFile(filepath.Join(ws, "notes.md"), nil, 0o644)
			r := launch(t, in, []byte(scripts[in.lang]), nil, nil, "HOOKEXEC_CWD="+ws)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
			}
			f := strings.Split(strings.TrimSpace(string(r.stdout)), "|")
			if len(f) != 4 {
				t.Fatalf("stdout %q", r.stdout)
			}
			if f[0] != ws || f[1] != "unset" || filepath.Dir(f[2]) != r.tmp || strings.TrimSpace(f[3]) != "notes.md" {
				t.Errorf("cwd %q, HOOKEXEC_CWD %q, script in %q, listing %q; want %q, unset, a directory in %q, notes.md",
					f[0], f[1], f[2], f[3], ws, r.tmp)
			}
			assertNoPrivateDir(t, r)
		})
		t.Run(in.name+"/a cwd that cannot be entered", func(t *testing.T) {
			t.Parallel()
			r := launch(t, in, []byte("echo ran\n"), nil, nil, "HOOKEXEC_CWD=/nonexistent/dir")
			if r.code != ExitNoPrivateDir || strings.Contains(string(r.stdout), "ran") {
				t.Errorf("exit %d stdout %q, want %d and the script not run", r.code, r.stdout, ExitNoPrivateDir)
			}
			assertNoPrivateDir(t, r)
		})
	}
}

func TestExitStatusAndCleanup(t *testing.T) {
	t.Parallel()
	type tc struct {
		name   string
		script map[Lang]string
		code   int
	}
	cases := []tc{
		{"exit 0", map[Lang]string{Shell: "exit 0\n", Python: "raise SystemExit(0)\n"}, 0},
		{"exit 1", map[Lang]string{Shell: "exit 1\n", Python: "raise SystemExit(1)\n"}, 1},
		{"exit 2", map[Lang]string{Shell: "exit 2\n", Python: "import sys\nsys.exit(2)\n"}, 2},
		{"killed", map[Lang]string{Shell: "kill -9 $$\n", Python: "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"}, 137},
		{"deletes its dir", map[Lang]string{Shell: "rm -rf \"$(pwd)\"\nexit 3\n", Python: "import os, shutil\nshutil.rmtree(os.getcwd())\nraise SystemExit(3)\n"}, 3},
		{"chmods its dir", map[Lang]string{
			Shell:  "mkdir -p a/b && touch a/b/c && chmod 000 a/b a .\nexit 4\n",
			Python: "import os\nos.makedirs('a/b')\nopen('a/b/c','w').close()\nfor p in ('a/b','a','.'):\n    os.chmod(p, 0)\nraise SystemExit(4)\n"}, 4},
		{"uncaught exception", map[Lang]string{Shell: "false\n", Python: "raise RuntimeError('x')\n"}, 1},
		// A script posing as the launcher blaming the image leaves as 120.
		{"exit 122 posing as the launcher", map[Lang]string{
			Shell:  "echo 'hook-launcher: missing program: dd (the image must provide sh, mktemp, dd, wc and rm)' >&2\nexit 122\n",
			Python: "import sys\nsys.stderr.write('hook-launcher: missing program: dd\\n')\nsys.exit(122)\n"}, ExitScriptReserved},
		{"exit 121", map[Lang]string{Shell: "exit 121\n", Python: "raise SystemExit(121)\n"}, ExitScriptReserved},
		{"exit 124", map[Lang]string{Shell: "exit 124\n", Python: "raise SystemExit(124)\n"}, ExitScriptReserved},
		{"exit 125 passes", map[Lang]string{Shell: "exit 125\n", Python: "raise SystemExit(125)\n"}, 125},
	}
	for _, in := range hostInterps(t) {
		for _, c := range cases {
			t.Run(in.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				r := launch(t, in, []byte(c.script[in.lang]), nil, nil)
				if r.code != c.code {
					t.Fatalf("exit %d, want %d; stderr %s", r.code, c.code, r.stderr)
				}
				if err := Failure(r.code, r.stderr); err != nil {
					t.Fatalf("the script's own status was taken for a launcher failure: %v", err)
				}
				assertNoPrivateDir(t, r)
			})
		}
	}
}

func TestPythonMain(t *testing.T) {
	t.Parallel()
	script := `import dataclasses, pickle, sys
@dataclasses.dataclass
class Point:
    x: int
    y: int
p = pickle.loads(pickle.dumps(Point(1, 2)))
assert p == Point(1, 2), p
assert __name__ == "__main__" and sys.modules["__main__"].Point is Point
assert sys.flags.isolated and sys.flags.no_site
print("ok", end="")
`
	for _, in := range hostInterps(t) {
		if in.lang != Python {
			continue
		}
		r := launch(t, in, []byte(script), nil, nil)
		if r.code != 0 {
			t.Errorf("exit %d, want 0; stderr %s", r.code, r.stderr)
		}
		if string(r.stdout) != "ok" {
			t.Errorf("stdout %q, want %q", r.stdout, "ok")
		}
	}
}

func TestShortScript(t *testing.T) {
	t.Parallel()
	for _, in := range hostInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			r := launchStdin(t, in, 100, []byte("echo never run\n"), nil)
			if r.code != ExitShortScript {
				t.Errorf("exit %d, want %d; stderr %s", r.code, ExitShortScript, r.stderr)
			}
			if bytes.Contains(r.stdout, []byte("never run")) {
				t.Errorf("stdout %q: the short script ran", r.stdout)
			}
			if err := Failure(r.code, r.stderr); !errors.Is(err, ErrLauncher) {
				t.Fatalf("Failure = %v, want ErrLauncher", err)
			}
			assertNoPrivateDir(t, r)
		})
	}
}

func TestMissingProgram(t *testing.T) {
	t.Parallel()
	var dash interp
	for _, in := range hostInterps(t) {
		if in.name == "dash" {
			dash = in
		}
	}
	for _, missing := range []string{"mktemp", "dd", "wc", "rm"} {
		t.Run(missing, func(t *testing.T) {
			t.Parallel()
			// A PATH with only the launcher's programs, less one.
			bin := t.TempDir()
			for _, p := range []string{"mktemp", "dd", "wc", "rm", "cat"} {
				if p == missing {
					continue
				}
				full, err := exec.LookPath(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(full, filepath.Join(bin, p)); err != nil {
					t.Fatal(err)
				}
			}
			r := launch(t, dash, []byte("echo ran\n"), nil, []string{bin})
			if r.code != ExitMissingProgram {
				t.Errorf("exit %d, want %d; stderr %s", r.code, ExitMissingProgram, r.stderr)
			}
			if bytes.Contains(r.stdout, []byte("ran")) {
				t.Errorf("stdout %q: the script ran", r.stdout)
			}
			var mp *MissingProgramError
			if err := Failure(r.code, r.stderr); !errors.As(err, &mp) || mp.Program != missing {
				t.Fatalf("Failure = %v, want the missing %s named", err, missing)
			}
			assertNoPrivateDir(t, r)
		})
	}
}

// TestMissingPython is not parallel: it empties PATH for exec.Command's look-up.
func TestMissingPython(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	argv, _ := Argv(Python, 0)
	err := exec.Command(argv[0], argv[1:]...).Run()
	var mp *MissingProgramError
	if !errors.As(StartFailure(Python, err), &mp) || mp.Program != "python" {
		t.Fatalf("StartFailure(%v) did not name python", err)
	}
	if StartFailure(Python, errors.New("permission denied")) != nil {
		t.Fatal("an unrelated start error was read as a missing program")
	}
}

func TestArgv(t *testing.T) {
	t.Parallel()
	a, err := Argv(Shell, 42)
	if err != nil {
		t.Fatalf("Argv(sh): %v", err)
	}
	for _, w := range []struct {
		i    int
		want string
	}{{0, "sh"}, {1, "-c"}, {3, "hook-launcher"}, {4, "42"}} {
		if a[w.i] != w.want {
			t.Errorf("sh argv[%d] = %q, want %q (argv %q)", w.i, a[w.i], w.want, a)
		}
	}
	a, err = Argv(Python, 7)
	if err != nil {
		t.Fatalf("Argv(python): %v", err)
	}
	if diff := cmp.Diff([]string{"python", "-I", "-S", "-c"}, a[:4]); diff != "" {
		t.Errorf("py argv[:4] (-want +got):\n%s", diff)
	}
	if a[5] != "7" {
		t.Errorf("py argv[5] = %q, want %q (argv %q)", a[5], "7", a)
	}
	if _, err := Argv("rb", 1); !errors.Is(err, ErrLang) {
		t.Fatalf("Argv(rb) = %v", err)
	}
	if Failure(0, []byte("hook-launcher: missing program: dd")) != nil {
		t.Fatal("exit 0 read as a launcher failure")
	}
}

func TestShebang(t *testing.T) {
	t.Parallel()
	tests := []struct {
		script, shell, flags string
		refused              bool
	}{
		{"echo hi\n", "", "", false},
		{"#!/bin/sh\necho\n", "sh", "", false},
		{"#!/bin/bash\n", "bash", "", false},
		{"#!/usr/bin/env bash\nset -euo pipefail\n", "bash", "", false},
		{"#!/bin/bash -e\n", "bash", "-e", false},
		{"#! /usr/bin/bash -eu\n", "bash", "-eu", false},
		{"#!/usr/bin/env python3\n", "", "", true},
		{"#!/tmp/evil/bash\n", "", "", true},
		{"#!/bin/bash -c 'rm -rf /'\n", "", "", true},
		{"#!/bin/bash --rcfile\n", "", "", true},
		{"#!/bin/bash -c\n", "", "", true},
		{"#!/bin/sh -es\n", "", "", true},
		{"#!/bin/bash -i\n", "", "", true},
		{"#!/bin/bash -eo\n", "", "", true},
		{"#!/bin/bash -xv\n", "bash", "-xv", false},
		{"#!\n", "", "", true},
	}
	for _, tc := range tests {
		shell, flags, err := Shebang([]byte(tc.script))
		if tc.refused {
			if !errors.Is(err, ErrShebang) {
				t.Errorf("%q: err %v, want ErrShebang", tc.script, err)
			}
			continue
		}
		if err != nil || shell != tc.shell || flags != tc.flags {
			t.Errorf("%q: %q %q %v, want %q %q", tc.script, shell, flags, err, tc.shell, tc.flags)
		}
	}
}

// HOOKEXEC_SHELL runs the script under the shell its #! line names, with
// its option word; a shell the image lacks is the launcher's missing
// program, never a script that ran under another shell.
func TestShellFromShebang(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("bash is needed on the host for this test: %v", err)
	}
	for _, in := range shellInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			script := []byte("#!/bin/bash -e\n[[ \"x-rm -rf-y\" == *\"rm -rf\"* ]] && echo \"bash $BASH_VERSION $-\"\n")
			r := launch(t, in, script, nil, []string{filepath.Dir(bash)}, "HOOKEXEC_SHELL=bash", "HOOKEXEC_SHELL_FLAGS=-e")
			if r.code != 0 || !strings.HasPrefix(string(r.stdout), "bash ") || !strings.Contains(string(r.stdout), "e") {
				t.Errorf("exit %d stdout %q stderr %q, want bash with -e", r.code, r.stdout, r.stderr)
			}
			tools := t.TempDir() // the launcher's programs, and no bash
			for _, p := range Required(Shell)[1:] {
				real, err := exec.LookPath(p)
				if err != nil {
					t.Fatal(err)
				}
				os.Symlink(real, filepath.Join(tools, p))
			}
			r = launch(t, in, script, nil, []string{tools}, "HOOKEXEC_SHELL=bash")
			if r.code != ExitMissingProgram || !strings.Contains(string(r.stderr), "missing program: bash") {
				t.Errorf("exit %d stderr %q, want %d naming bash", r.code, r.stderr, ExitMissingProgram)
			}
		})
	}
}

// HOOKEXEC_EXT names the private copy's extension (node reads it: .mjs is
// a module); any other value is the launcher's usage error, before the
// script is read.
func TestPrivateCopyExtension(t *testing.T) {
	t.Parallel()
	for _, in := range shellInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			// echo stands in for node: it prints the path it is given.
			r := launch(t, in, []byte("export default 1\n"), nil, nil, "HOOKEXEC_SHELL=echo", "HOOKEXEC_EXT=.mjs")
			if r.code != 0 || string(r.stdout) != "./hook.mjs\n" {
				t.Errorf("exit %d stdout %q stderr %q, want ./hook.mjs", r.code, r.stdout, r.stderr)
			}
			r = launch(t, in, []byte("exit 0\n"), nil, nil, "HOOKEXEC_EXT=/../x")
			if r.code != ExitUsage || !strings.Contains(string(r.stderr), "HOOKEXEC_EXT must be .sh, .js, .mjs or .cjs") {
				t.Errorf("exit %d stderr %q, want %d", r.code, r.stderr, ExitUsage)
			}
		})
	}
}

// trickle hands out its bytes a few at a time: each Read becomes one write
// to the launcher's pipe, so each read(2) of the launcher's gets a piece.
type trickle struct {
	b []byte
	n int
}

func (r *trickle) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	k := min(r.n, len(p), len(r.b))
	copy(p, r.b[:k])
	r.b = r.b[k:]
	time.Sleep(100 * time.Microsecond)
	return k, nil
}

// The script is read exactly, whether dd can fill a block (iflag=fullblock:
// a few reads, however the bytes arrive) or not (an older dd: one read per
// byte): never one byte of the event with it.
func TestExactScriptRead(t *testing.T) {
	t.Parallel()
	script := []byte("# " + strings.Repeat("padding ", 300) + "\ncat\n")
	event := []byte(`{"tool":"bash","args":{"command":"ls"}}`)
	for _, in := range shellInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			stdin := append(bytes.Clone(script), event...)
			r := launchReader(t, in, len(script), &trickle{b: stdin, n: 7}, nil)
			if r.code != 0 || !bytes.Equal(r.stdout, event) {
				t.Errorf("fullblock dd, in pieces: exit %d stdout %q stderr %q, want the event", r.code, r.stdout, r.stderr)
			}
			// A dd without iflag=fullblock: the launcher falls back to bs=1.
			old := t.TempDir()
			dd, err := exec.LookPath("dd")
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(old, "dd"), []byte("#!/bin/sh\ncase \"$*\" in *iflag*) echo 'dd: unknown operand' >&2; exit 1;; esac\nexec "+dd+" \"$@\"\n"), 0o755)
			for _, p := range Required(Shell)[1:] {
				if p == "dd" {
					continue
				}
				real, err := exec.LookPath(p)
				if err != nil {
					t.Fatal(err)
				}
				os.Symlink(real, filepath.Join(old, p))
			}
			os.Symlink("/bin/cat", filepath.Join(old, "cat"))
			r = launchReader(t, in, len(script), &trickle{b: stdin, n: 7}, []string{old})
			if r.code != 0 || !bytes.Equal(r.stdout, event) {
				t.Errorf("a dd without fullblock: exit %d stdout %q stderr %q, want the event", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// BenchmarkShellLauncher: the .sh launcher under busybox with a 2.6 KB
// script that reads its event, against the same busybox running that
// script from a file (the baseline: what no launcher costs), in the same
// process; the ratio is the launcher's overhead.
func BenchmarkShellLauncher(b *testing.B) {
	t := &testing.T{}
	var bb interp
	for _, in := range hostInterps(t) {
		if in.name == "busybox" {
			bb = in
		}
	}
	if bb.bin == "" {
		b.Fatal("busybox is needed: set HOOKEXEC_TEST_TOOLS (make testtools)")
	}
	script := []byte("#!/bin/sh\n" + strings.Repeat("# a comment line of a real hook's size, some forty bytes\n", 45) + "cat >/dev/null\nprintf '{\"schema_version\":1,\"action\":\"allow\"}\\n'\n")
	event := []byte(`{"tool":"bash","args":{"command":"ls"}}`)
	dir := b.TempDir()
	file := filepath.Join(dir, "hook.sh")
	os.WriteFile(file, script, 0o644)
	argv, _ := Argv(Shell, len(script))
	run := func(args []string, stdin []byte) {
		cmd := exec.Command(bb.bin, args...)
		cmd.Env = []string{"PATH=" + filepath.Dir(bb.bin) + ":/usr/bin:/bin", "TMPDIR=" + dir}
		cmd.Stdin = bytes.NewReader(stdin)
		if out, err := cmd.Output(); err != nil || !bytes.Contains(out, []byte("allow")) {
			b.Fatalf("%v: %q %v", args, out, err)
		}
	}
	var base, launcher time.Duration
	for b.Loop() {
		t0 := time.Now()
		run([]string{"sh", file}, event)
		t1 := time.Now()
		run(argv, append(bytes.Clone(script), event...))
		base, launcher = base+t1.Sub(t0), launcher+time.Since(t1)
	}
	b.ReportMetric(float64(launcher)/float64(base), "launcher/baseline")
}

// HOOKEXEC_NEEDS names the programs the script calls. Where the image has
// no stand-in, the first one the PATH lacks fails the launch as a missing
// program before the script runs (a guard whose jq is missing would allow
// everything); the variable does not reach the script.
func TestNeededPrograms(t *testing.T) {
	t.Parallel()
	for _, in := range shellInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			script := []byte("echo \"ran ${HOOKEXEC_NEEDS-unset}\"\n")
			for _, env := range [][]string{
				{"HOOKEXEC_NEEDS=cat no-such-program-hookexec", StandInVar + "=/no/such/stand-in"},
				// A stand-in, but the script sets a PATH of its own.
				{"HOOKEXEC_NEEDS=cat no-such-program-hookexec", StandInVar + "=" + standIn(t), NeedsNowVar + "=1"},
			} {
				r := launch(t, in, script, nil, nil, env...)
				var mp *MissingProgramError
				if err := Failure(r.code, r.stderr); r.code != ExitMissingProgram || !errors.As(err, &mp) || mp.Program != "no-such-program-hookexec" {
					t.Fatalf("%q: exit %d stderr %q (%v), want %d naming no-such-program-hookexec", env, r.code, r.stderr, err, ExitMissingProgram)
				}
				if len(r.stdout) != 0 {
					t.Errorf("%q: stdout %q: the script ran", env, r.stdout)
				}
				assertNoPrivateDir(t, r)
			}
			r := launch(t, in, script, nil, nil, "HOOKEXEC_NEEDS=cat /bin/sh")
			if r.code != 0 || string(r.stdout) != "ran unset\n" {
				t.Errorf("exit %d stdout %q stderr %q, want the script run without the variable", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// standIn writes the stand-in where a test's launcher finds it (StandInVar).
func standIn(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "missing")
	if err := os.WriteFile(p, []byte(StandIn), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Missing programs are judged when called: with the image's stand-in, a
// script that never reaches the program it lacks runs and its answer
// counts; one that calls it fails as a missing program naming it, even when
// it swallows the failure and exits 0 (a guard whose jq is missing never
// allows), however it calls it (a pipe, $(...), env, xargs, sh -c, a
// Python subprocess). Nothing is left behind either way.
func TestMissingProgramJudgedWhenCalled(t *testing.T) {
	t.Parallel()
	const gone = "no-such-jq-hookexec"
	standin := standIn(t)
	ran := "cmd=$(cat)\ncase $cmd in *commit*) " + gone + " -r .x >/dev/null 2>&1 ;; esac\necho ran\nexit 3\n"
	cases := []struct {
		name, script, event string
		called              bool
	}{
		{"not reached", ran, "ls", false},
		{"stand-ins' directory locked", "chmod 000 \"${PATH##*:}\" \"${PATH##*:}/..\"\necho ran\nexit 3\n", "", false},
		{"reached", ran, "git commit -m x", true},
		{"pipe then exit 0", gone + " -r .x | grep -q rm && exit 2 || exit 0\n", "rm -rf /", true},
		{"swallowed in $(...)", "cmd=$(" + gone + " -r .x 2>/dev/null)\ncase $cmd in *rm*) exit 2;; esac\nexit 0\n", "rm -rf /", true},
		{"status 127 seen", "set -e\n" + gone + " .\n", "", true},
		{"env", "env " + gone + " . 2>/dev/null; exit 0\n", "", true},
		{"xargs", "echo a | xargs " + gone + " 2>/dev/null; exit 0\n", "", true},
		{"sh -c", "sh -c '" + gone + " .' 2>/dev/null; exit 0\n", "", true},
		{"python subprocess", "python3 -c 'import subprocess; subprocess.run([\"" + gone + "\"])' 2>/dev/null; exit 0\n", "", true},
	}
	for _, in := range shellInterps(t) {
		for _, c := range cases {
			t.Run(in.name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				r := launch(t, in, []byte(c.script), []byte(c.event), nil, "HOOKEXEC_NEEDS=cat "+gone, StandInVar+"="+standin)
				assertNoPrivateDir(t, r)
				if !c.called {
					if r.code != 3 || string(r.stdout) != "ran\n" {
						t.Fatalf("exit %d stdout %q stderr %q, want the script's own exit 3 and output", r.code, r.stdout, r.stderr)
					}
					return
				}
				var mp *MissingProgramError
				if err := Failure(r.code, r.stderr); r.code != ExitMissingProgram || !errors.As(err, &mp) || mp.Program != gone {
					t.Fatalf("exit %d stdout %q stderr %q (%v), want %d naming %s", r.code, r.stdout, r.stderr, err, ExitMissingProgram, gone)
				}
				if !strings.Contains(mp.Why, "called") {
					t.Errorf("why %q, want it to say the script called it", mp.Why)
				}
			})
		}
	}
}

// The pooled launcher judges them the same way: the programs and the
// stand-in's place travel in the run's environment block.
func TestPooledMissingProgramJudgedWhenCalled(t *testing.T) {
	t.Parallel()
	const gone = "no-such-jq-hookexec"
	standin := standIn(t)
	script := []byte("cmd=$(cat)\ncase $cmd in *commit*) " + gone + " -r .x | grep -q rm && exit 2 || exit 0 ;; esac\necho ran\n")
	for _, in := range shellInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct {
				event  string
				called bool
			}{{"ls", false}, {"git commit -m x", true}} {
				stdin, err := PoolInput(Shell, []string{NeedsVar + "=" + gone, StandInVar + "=" + standin}, script, []byte(c.event))
				if err != nil {
					t.Fatal(err)
				}
				r := pooled(t, in, stdin, DisposableVar+"=1")
				err = Failure(r.code, r.stderr)
				var mp *MissingProgramError
				switch {
				case c.called && (r.code != ExitMissingProgram || !errors.As(err, &mp) || mp.Program != gone):
					t.Errorf("%s: exit %d stdout %q stderr %q, want %d naming %s", c.event, r.code, r.stdout, r.stderr, ExitMissingProgram, gone)
				case !c.called && (r.code != 0 || string(r.stdout) != "ran\n"):
					t.Errorf("%s: exit %d stdout %q stderr %q, want the script's answer", c.event, r.code, r.stdout, r.stderr)
				}
			}
		})
	}
}

// HOOKEXEC_SCRIPT_PATH: the script runs from its own file in its tree,
// beside the files it reads there (a kit's lib/, a sibling module), with
// $0 and __file__ as its host gives them; the variable is gone before it
// runs, and the private directory still goes.
func TestScriptRunsFromItsTree(t *testing.T) {
	t.Parallel()
	scripts := map[Lang]struct{ name, body, lib, libName string }{
		Shell: {"guard.sh", ". \"$(dirname \"$0\")/lib/common.sh\"\nprintf '%s|%s|%s' \"$0\" \"$(greet)\" \"${HOOKEXEC_SCRIPT_PATH-unset}\"\n",
			"greet() { echo from-lib; }\n", "lib/common.sh"},
		Python: {"guard.py", "import os, sys\nimport policy\nprint('%s|%s|%s' % (__file__, policy.greet(), os.environ.get('HOOKEXEC_SCRIPT_PATH', 'unset')), end='')\n",
			"def greet():\n    return 'from-lib'\n", "policy.py"},
	}
	for _, in := range hostInterps(t) {
		t.Run(in.name, func(t *testing.T) {
			t.Parallel()
			sc := scripts[in.lang]
			tree := t.TempDir()
			path := filepath.Join(tree, sc.name)
			os.MkdirAll(filepath.Join(tree, "lib"), 0o755)
			os.WriteFile(path, []byte(sc.body), 0o644)
			os.WriteFile(filepath.Join(tree, sc.libName), []byte(sc.lib), 0o644)
			r := launch(t, in, []byte(sc.body), nil, nil, ScriptPathVar+"="+path)
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
			}
			if want := path + "|from-lib|unset"; string(r.stdout) != want {
				t.Errorf("stdout %q, want %q", r.stdout, want)
			}
			assertNoPrivateDir(t, r)
		})
	}
}

func TestHostShell(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"run-hook.cmd", ": << 'CMDBLOCK'\n@echo off\nCMDBLOCK\n", "bash"},
		{"guard.sh", "echo hi\n", ""},
		{"guard", "#!/bin/sh\necho hi\n", "sh"},
		{"guard", "#!/usr/bin/env dash\necho hi\n", "dash"},
	} {
		got, _, err := HostShell(tc.name, []byte(tc.body))
		if err != nil || got != tc.want {
			t.Errorf("HostShell(%q) = %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
}
