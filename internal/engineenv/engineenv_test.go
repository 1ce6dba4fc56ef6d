package engineenv

import (
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The finding this package answers: a project's settings handed a hook
// DOCKER_HOST=ssh://127.0.0.1 and HOOKEXEC_SSH=bash, and hook-exec ran
// bash on a project file. Sealed, none of what the host hands survives;
// the user's pinned values and home do.
func TestSealDropsWhatTheHostHands(t *testing.T) {
	state := t.TempDir()
	if err := Write(state, map[string]string{"HOOKEXEC_BACKEND": "containerd", "DOCKER_HOST": "unix:///run/user.sock"}); err != nil {
		t.Fatal(err)
	}
	hostile := []string{
		"DOCKER_HOST=ssh://127.0.0.1", "HOOKEXEC_SSH=bash", "HOOKEXEC_STATE_DIR=/proj/state", "HOOKEXEC_SERVER=/proj/sock",
		"KUBECONFIG=/proj/kc", "CONTAINERD_ADDRESS=/proj/c.sock", "SSH_ASKPASS=/proj/x", "LD_PRELOAD=/proj/x.so",
		"PATH=/proj/bin:/usr/bin", "HOME=/proj", "XDG_RUNTIME_DIR=/proj/run", "XDG_STATE_HOME=/proj", "TMPDIR=/proj/tmp",
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://evil", "BASH_ENV=/proj/x",
		"SSH_AUTH_SOCK=/run/agent", "HOOKEXEC_FRONT=none", "CLAUDE_PROJECT_DIR=/proj", "LANG=C.UTF-8",
	}
	env, err := Seal(hostile, state)
	if err != nil {
		t.Fatal(err)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"SSH_AUTH_SOCK=/run/agent", "HOOKEXEC_FRONT=none", "CLAUDE_PROJECT_DIR=/proj", "LANG=C.UTF-8",
		"HOME=" + u.HomeDir, "PATH=" + SystemPath, "HOOKEXEC_STATE_DIR=" + state,
		"DOCKER_HOST=unix:///run/user.sock", "HOOKEXEC_BACKEND=containerd"}
	got := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "XDG_RUNTIME_DIR=/run/user/") })
	if !slices.Equal(got, want) {
		t.Fatalf("sealed:\n%q\nwant\n%q", got, want)
	}
}

// A pinned HOME (the installing user's, not the password database's)
// replaces the one Seal takes, once.
func TestSealPinnedHome(t *testing.T) {
	state := t.TempDir()
	Write(state, map[string]string{"HOME": "/tmp/testhome"})
	env, err := Seal([]string{"HOME=/proj"}, state)
	if err != nil {
		t.Fatal(err)
	}
	var homes []string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			homes = append(homes, v)
		}
	}
	if !slices.Equal(homes, []string{"/tmp/testhome"}) {
		t.Fatalf("HOME %q", homes)
	}
}

// Only the user's own file counts: one others may write, or one behind a
// link (a project's file), is refused, not read; a name it may not hold,
// or a relative ssh program, is an error.
func TestReadRefuses(t *testing.T) {
	t.Run("group-writable", func(t *testing.T) {
		dir := t.TempDir()
		Write(dir, map[string]string{"DOCKER_HOST": "unix:///x"})
		os.Chmod(filepath.Join(dir, FileName), 0o664)
		if _, err := Read(dir); !errors.Is(err, ErrPinned) {
			t.Fatalf("err %v, want ErrPinned", err)
		}
	})
	t.Run("link", func(t *testing.T) {
		dir, other := t.TempDir(), t.TempDir()
		Write(other, map[string]string{"DOCKER_HOST": "ssh://127.0.0.1"})
		os.Symlink(filepath.Join(other, FileName), filepath.Join(dir, FileName))
		if _, err := Read(dir); !errors.Is(err, ErrPinned) {
			t.Fatalf("err %v, want ErrPinned", err)
		}
	})
	for name, body := range map[string]string{
		"unknown name": `{"env":{"LD_PRELOAD":"/x.so"}}`,
		"relative ssh": `{"env":{"HOOKEXEC_SSH":"bash"}}`,
		"unknown key":  `{"env":{},"extra":1}`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, FileName), []byte(body), 0o600)
			if m, err := Read(dir); err == nil {
				t.Fatalf("read %v", m)
			}
		})
	}
	if m, err := Read(t.TempDir()); err != nil || m != nil {
		t.Fatalf("no file: %v %v", m, err)
	}
}

// Install pins an ssh program by its absolute path, and never a relative
// one, nor HOME when it is the password database's.
func TestOf(t *testing.T) {
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "ssh"), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", bin)
	u, _ := user.Current()
	environ := []string{"DOCKER_HOST=ssh://box", "HOME=" + u.HomeDir, "LANG=C"}
	m, err := Of(environ)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 2 || m["HOOKEXEC_SSH"] != filepath.Join(bin, "ssh") || m["DOCKER_HOST"] != "ssh://box" {
		t.Fatalf("pinned %v", m)
	}
	environ = append(environ, "HOOKEXEC_SSH=nossh")
	if _, err := Of(environ); err == nil || !strings.Contains(err.Error(), `"nossh"`) {
		t.Fatalf("a relative ssh no PATH finds: %v", err)
	}
}

func TestSealed(t *testing.T) {
	for _, tc := range []struct {
		argv   []string
		sealed bool
		dir    string
		bad    bool
	}{
		{[]string{"run", "--sealed", "--state-dir", "/s", "--script", "x"}, true, "/s", false},
		{[]string{"run", "-sealed", "--state-dir=/s"}, true, "/s", false},
		{[]string{"run", "--sealed", "--script", "x", "--arg", "--server", "--env", "A=--backend"}, true, "", false},
		{[]string{"run", "--script", "x"}, false, "", false},
		{[]string{"run", "--", "--sealed"}, false, "", false},
		// Round 5: a hook's argument that the front would read as the state
		// directory, and the core as a refused line.
		{[]string{"run", "--sealed", "--script", "x", "--arg", "a", "--state-dir=/proj/.x"}, false, "", true},
		{[]string{"run", "--sealed", "--state-dir", "/s", "--server=/proj/s.sock"}, false, "", true},
		{[]string{"run", "--sealed", "--backend", "local"}, false, "", true},
	} {
		s, d, err := Sealed(tc.argv)
		if s != tc.sealed || d != tc.dir || (err != nil) != tc.bad {
			t.Errorf("%q: %v %q %v", tc.argv, s, d, err)
		}
	}
}

// Steers: what a hook's env may not set.
func TestSteers(t *testing.T) {
	for _, n := range []string{"DOCKER_HOST", "HOOKEXEC_SSH", "KUBECONFIG", "SSH_ASKPASS", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "PATH", "PYTHONPATH", "BASH_ENV", "HOME", "CONTAINERD_ADDRESS"} {
		if !Steers(n) {
			t.Errorf("%s does not steer", n)
		}
	}
	for _, n := range []string{"MODE", "LOG_LEVEL", "NODE_ENV", "PATHS_FILE"} {
		if Steers(n) {
			t.Errorf("%s steers", n)
		}
	}
}

// BenchmarkSeal is what sealing adds to each installed command's start
// (the front and the core each seal once): compare with
// BenchmarkEnviron, the copy of the environment every start makes anyway.
func BenchmarkSeal(b *testing.B) {
	state := b.TempDir()
	Write(state, map[string]string{"HOOKEXEC_BACKEND": "containerd"})
	env := os.Environ()
	for b.Loop() {
		if _, err := Seal(env, state); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEnviron(b *testing.B) {
	for b.Loop() {
		_ = slices.Clone(os.Environ())
	}
}

// FuzzSealed: an installed command's words after the hook's own (its
// arguments, env values) are a project's. Whatever they are, a line is
// sealed only with Flag before them, and its state directory is only the
// word install writes right after Flag.
func FuzzSealed(f *testing.F) {
	f.Add("run --sealed --state-dir /s --script x --arg --state-dir=/p")
	f.Add("run --sealed --arg --server --env A=--backend")
	f.Add("install claude --sealed --session-start")
	f.Add("run -- --sealed --state-dir /p")
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Fields(line)
		sealed, dir, err := Sealed(argv)
		if err != nil {
			return
		}
		at := slices.IndexFunc(argv, func(a string) bool { return a == Flag || a == "-sealed" })
		if dash := slices.Index(argv, "--"); dash >= 0 && (at < 0 || dash < at) {
			at = -1
		}
		if sealed != (at >= 0) {
			t.Fatalf("%q: sealed %v", argv, sealed)
		}
		if dir != "" && !(at+1 < len(argv) && (argv[at+1] == "--state-dir="+dir || argv[at+1] == "-state-dir="+dir || (argv[at+1] == "--state-dir" && at+2 < len(argv) && argv[at+2] == dir))) {
			t.Fatalf("%q: state directory %q not right after %s", argv, dir, Flag)
		}
	})
}
