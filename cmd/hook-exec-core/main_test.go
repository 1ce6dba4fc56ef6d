package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend"
)

type result struct {
	code           int
	stdout, stderr string
}

func TestMain(m *testing.M) {
	// The test binary stands in for hook-exec where a command starts
	// itself again (a reaper, a boundary's observers).
	if len(os.Args) > 1 && (os.Args[1] == "reap" || os.Args[1] == "observe") {
		// As main: a signal starts a bounded drain.
		ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := execute(ctx, os.Args[1:], stdio{os.Stdin, os.Stdout, os.Stderr})
		cancel()
		os.Exit(code)
	}
	enterNowhere = func() error { return nil } // serve in this process keeps the tests' directory
	os.Exit(m.Run())
}

// hookExec runs one command line in-process with buffers for its streams.
func hookExec(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := execute(context.Background(), args, stdio{strings.NewReader(stdin), &out, &errb})
	return result{code, out.String(), errb.String()}
}

// commandPaths lists every command of the tree, as argv without "hook-exec".
func commandPaths(c *cobra.Command) [][]string {
	var paths [][]string
	for _, sub := range c.Commands() {
		for _, p := range commandPaths(sub) {
			paths = append(paths, append([]string{sub.Name()}, p...))
		}
		paths = append(paths, []string{sub.Name()})
	}
	return paths
}

func TestHelpOnStdout(t *testing.T) {
	t.Parallel()
	paths := append(commandPaths(newRoot(stdio{})), nil)
	if len(paths) < 12 {
		t.Fatalf("found %d commands, want every command and subcommand", len(paths))
	}
	for _, p := range paths {
		args := append(append([]string{}, p...), "--help")
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			r := hookExec(t, "", args...)
			help, code := r.stdout, exitOK
			if hostRun("hook-exec "+strings.Join(p, " "), args, &recorder{r: strings.NewReader("")}) {
				// A command a host runs per event: help there is no answer,
				// and on stdout it would be read as one.
				help, code = r.stderr, exitDeny
			} else if r.stderr != "" {
				t.Errorf("stderr %q, want nothing: help goes to stdout", r.stderr)
			}
			if r.code != code {
				t.Errorf("exit %d, want %d", r.code, code)
			}
			for _, section := range []string{"Usage:", "Examples:", "Environment:", "Exit status:"} {
				if !strings.Contains(help, "\n"+section+"\n") && !strings.HasPrefix(help, section+"\n") {
					t.Errorf("help has no %q section:\n%s", section, help)
				}
			}
		})
	}
}

func TestHelpNamesExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--help"}, []string{"  0 ", "  2 ", "  64 ", "HOOKEXEC_BACKEND", "HOOKEXEC_STATE_DIR", "--event"}},
		{[]string{"images", "list", "--help"}, []string{"  1 ", "  64 ", "  125 ", "DOCKER_HOST", "--json"}},
		{[]string{"gc", "--help"}, []string{"  125 ", "--json", "--backend"}},
		{[]string{"traces", "--help"}, []string{"HOOKEXEC_STATE_DIR", "--state-dir"}},
		{[]string{"serve", "--help"}, []string{"  125 ", "second signal", "--drain-timeout", "private", "SO_PEERCRED"}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			r := hookExec(t, "", tc.args...)
			for _, w := range tc.want {
				if !strings.Contains(r.stdout, w) {
					t.Errorf("help does not mention %q", w)
				}
			}
		})
	}
}

func TestGlobalFlagsOnlyWhereTheyMeanSomething(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		present bool
	}{
		{[]string{"traces", "--help"}, false},
		{[]string{"version", "--help"}, false},
		{[]string{"images", "build", "--help"}, true},
		{[]string{"image", "check", "--help"}, true},
		{[]string{"run", "--help"}, true},
	}
	for _, tc := range tests {
		r := hookExec(t, "", tc.args...)
		if got := strings.Contains(r.stdout, "--backend"); got != tc.present {
			t.Errorf("%q: --backend in help = %v, want %v", tc.args, got, tc.present)
		}
	}
}

func TestUsageErrorsExit64(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "h.sh")
	tests := []struct {
		name string
		args []string
		want string // in the one line on stderr
	}{
		{"no command", nil, ""},
		{"unknown command", []string{"nonsense"}, `unknown command "nonsense"`},
		{"unknown flag", []string{"run", "--script", script, "--no-such-flag"}, "unknown flag: --no-such-flag"},
		{"unknown flag before the command", []string{"--no-such-flag", "gc"}, "unknown flag: --no-such-flag"},
		{"bad --memory", []string{"run", "--script", script, "--memory", "lots"}, `"--memory"`},
		{"zero --memory", []string{"run", "--script", script, "--memory", "0"}, `"--memory"`},
		{"bad --pids", []string{"run", "--script", script, "--pids", "many"}, `"--pids"`},
		{"zero --pids", []string{"run", "--script", script, "--pids", "0"}, `"--pids"`},
		{"bad --cpus", []string{"run", "--script", script, "--cpus", "x"}, `"--cpus"`},
		{"negative --cpus", []string{"run", "--script", script, "--cpus", "-1"}, `"--cpus"`},
		{"run without --script", []string{"run"}, "--script is required"},
		{"run with an argument", []string{"run", "--script", script, "extra"}, `unexpected argument "extra"`},
		{"secret-like --env", []string{"run", "--script", script, "--env", "GITHUB_TOKEN=x"}, "GITHUB_TOKEN"},
		{"missing --event file", []string{"run", "--script", script, "--event", filepath.Join(t.TempDir(), "none.json")}, "--event"},
		{"images without a command", []string{"images"}, "want a command"},
		{"serve bad --log-format", []string{"serve", "--socket", filepath.Join(t.TempDir(), "s", "s.sock"), "--log-format", "xml"}, `--log-format "xml"`},
		{"serve bad --log-level", []string{"serve", "--socket", filepath.Join(t.TempDir(), "s", "s.sock"), "--log-level", "loud"}, `--log-level "loud"`},
		{"traces show without ID", []string{"traces", "show"}, "want ID"},
		{"images unknown command", []string{"images", "nope"}, `unknown command "nope"`},
		{"image check without IMAGE", []string{"image", "check"}, "IMAGE"},
		{"image check bad --lang", []string{"image", "check", "x", "--lang", "rb"}, "--lang"},
		{"images list on local", []string{"images", "list", "--backend", "local"}, "holds no images"},
		{"images import on docker", []string{"images", "import", "x.tar", "--backend", "docker"}, "containerd"},
		{"serve without --socket", []string{"serve"}, "--socket is required"},
		{"image check on local", []string{"image", "check", "img:1", "--backend", "local"}, "container backend"},
		{"gc on local", []string{"gc", "--backend", "local"}, "no sandboxes"},
		{"unknown backend", []string{"gc", "--backend", "podman"}, "unknown backend"},
		{"--backend on traces", []string{"traces", "--backend", "docker"}, "unknown flag: --backend"},
		{"version with an argument", []string{"version", "x"}, "unexpected argument"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// A Holaryn event: no host reads the usage status as "go on".
			r := hookExec(t, `{"schema_version":1,"point":"tool.before","data":{}}`, tc.args...)
			if r.code != exitUsage {
				t.Errorf("exit %d, want 64 (stderr %q)", r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("stdout %q, want nothing", r.stdout)
			}
			if tc.want == "" {
				return
			}
			if lines := strings.Count(strings.TrimSuffix(r.stderr, "\n"), "\n") + 1; lines != 1 {
				t.Errorf("stderr has %d lines, want 1: %q", lines, r.stderr)
			}
			if !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q does not say %q", r.stderr, tc.want)
			}
			if !strings.Contains(r.stderr, "--help") {
				t.Errorf("stderr %q does not point at --help", r.stderr)
			}
		})
	}
}

func TestRunOnATerminalSaysSo(t *testing.T) {
	saved := isTerminal
	isTerminal = func(io.Reader) bool { return true }
	defer func() { isTerminal = saved }()
	script := filepath.Join(t.TempDir(), "h.sh")
	r := hookExec(t, "", "run", "--script", script)
	if r.code != exitUsage {
		t.Errorf("exit %d, want 64", r.code)
	}
	if !strings.Contains(r.stderr, "--event FILE") {
		t.Errorf("stderr %q does not say how to give the event", r.stderr)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"-v"}, {"--version"}} {
		r := hookExec(t, "", args...)
		if r.code != exitOK {
			t.Errorf("%q: exit %d, want 0", args, r.code)
		}
		for _, w := range []string{"Version:", "Git commit:", "Go version:  " + runtime.Version(), runtime.GOOS + "/" + runtime.GOARCH} {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%q: stdout %q has no %q", args, r.stdout, w)
			}
		}
	}
}

func TestCompletion(t *testing.T) {
	t.Parallel()
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := hookExec(t, "", "completion", shell)
		if r.code != exitOK {
			t.Errorf("%s: exit %d, want 0 (stderr %q)", shell, r.code, r.stderr)
		}
		if !strings.Contains(r.stdout, "hook-exec") {
			t.Errorf("%s: the script does not name hook-exec", shell)
		}
	}
}

// TestRunLocal runs an owner hook on the local backend (no engine), with
// the global flags before and after the command and in the one-dash
// spelling Go's flag package accepted.
func TestRunLocal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "h.sh")
	if err := os.WriteFile(script, []byte(`case $(cat) in *deny-me*) echo '{"schema_version":1,"action":"deny","reason":"no"}';; *) echo '{"schema_version":1,"action":"allow"}';; esac`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	event := `{"schema_version":1,"event_id":"e1","timestamp":0,"point":"tool.before","session_id":"s","depth":0,"data":{"cmd":"%s"}}`
	eventFile := filepath.Join(dir, "event.json")
	if err := os.WriteFile(eventFile, fmt.Appendf(nil, event, "deny-me"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	tests := []struct {
		name  string
		stdin string
		args  []string
		code  int
	}{
		{"flags after", fmt.Sprintf(event, "ls"), []string{"run", "--backend", "local", "--state-dir", state, "--scope", "owner", "--script", script}, exitOK},
		{"flags before", fmt.Sprintf(event, "ls"), []string{"--backend", "local", "--state-dir=" + state, "run", "--scope", "owner", "--script", script}, exitOK},
		{"one dash", fmt.Sprintf(event, "ls"), []string{"run", "-backend", "local", "-state-dir", state, "-scope=owner", "-script", script}, exitOK},
		{"deny from --event", "", []string{"run", "--backend", "local", "--state-dir", state, "--scope", "owner", "--script", script, "--event", eventFile}, exitDeny},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := hookExec(t, tc.stdin, tc.args...)
			if r.code != tc.code {
				t.Errorf("exit %d, want %d (stdout %q stderr %q)", r.code, tc.code, r.stdout, r.stderr)
			}
			if !strings.HasPrefix(r.stdout, `{"schema_version":1,"action":`) {
				t.Errorf("stdout %q is not a decision", r.stdout)
			}
		})
	}
}

func TestServeRefusesANonSocket(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "private")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "not-a-socket")
	if err := os.WriteFile(path, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := hookExec(t, "", "serve", "--socket", path, "--backend", "local")
	if r.code != exitFail {
		t.Errorf("exit %d, want 1 (stderr %q)", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "not a socket") {
		t.Errorf("stderr %q does not say the path is not a socket", r.stderr)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "keep me" {
		t.Errorf("the file was changed or removed: %q, %v", b, err)
	}
}

// TestServeRefusesAnOpenDirectory: a socket where others may enter is
// refused, and nothing is made there.
func TestServeRefusesAnOpenDirectory(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "hook-exec.sock")
	// Bounded: a serve that wrongly listens stops when ctx is done.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	code := execute(ctx, []string{"serve", "--socket", path, "--backend", "local"}, stdio{strings.NewReader(""), io.Discard, &stderr})
	r := result{code: code, stderr: stderr.String()}
	if r.code != exitFail {
		t.Errorf("exit %d, want 1 (stderr %q)", r.code, r.stderr)
	}
	if want := dir + " has mode 0755: group or others may enter it"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q does not say %q", r.stderr, want)
	}
	if _, err := os.Lstat(path); err == nil {
		t.Errorf("a socket was made in the open directory")
	}
}

func TestFailureExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		code int
	}{
		{"engine unreachable", fmt.Errorf("%w: dial unix /nothing", backend.ErrEngine), exitEngine},
		{"engine wrapped twice", fmt.Errorf("list: %w", fmt.Errorf("%w: refused", backend.ErrEngine)), exitEngine},
		{"other", errors.New("disk full"), exitFail},
	}
	for _, tc := range tests {
		var stderr bytes.Buffer
		if got := report(nil, failure(tc.err), &stderr); got != tc.code {
			t.Errorf("%s: exit %d, want %d", tc.name, got, tc.code)
		}
		if !strings.Contains(stderr.String(), tc.err.Error()) {
			t.Errorf("%s: stderr %q does not carry the error", tc.name, stderr.String())
		}
	}
}

func TestLongFlagsWithOneDash(t *testing.T) {
	t.Parallel()
	root := newRoot(stdio{})
	tests := []struct {
		in, want []string
	}{
		{[]string{"run", "-script", "x.sh"}, []string{"run", "--script", "x.sh"}},
		{[]string{"run", "-timeout=5s"}, []string{"run", "--timeout=5s"}},
		{[]string{"-backend", "local", "gc"}, []string{"--backend", "local", "gc"}},
		{[]string{"-v"}, []string{"-v"}},
		{[]string{"run", "--cpus", "-1"}, []string{"run", "--cpus", "-1"}},
		{[]string{"run", "--env", "-notaflag"}, []string{"run", "--env", "-notaflag"}},
		{[]string{"run", "--", "-script"}, []string{"run", "--", "-script"}},
	}
	for _, tc := range tests {
		if got := longFlagsWithOneDash(root, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
	}
}

// doctor with no engine that answers exits 1 and names, per engine, why.
func TestDoctorWithoutEngines(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
	r := hookExec(t, "", "doctor", "--containerd-address", "/nonexistent/containerd.sock")
	if r.code != exitFail {
		t.Fatalf("exit %d, want %d\n%s%s", r.code, exitFail, r.stdout, r.stderr)
	}
	for _, want := range []string{"docker: cannot run hooks: ", "/nonexistent/docker.sock", "containerd: cannot run hooks: ", "/nonexistent/containerd.sock"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout does not say %q:\n%s", want, r.stdout)
		}
	}
	if !strings.Contains(r.stderr, "no engine here can run a hook") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// A runtime the backend cannot have is a usage error, before anything runs.
func TestRuntimeOnTheLocalBackend(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "h.sh")
	os.WriteFile(script, []byte("echo hi\n"), 0o644)
	r := hookExec(t, `{"schema_version":1,"point":"tool.before","data":{}}`, "run", "--backend", "local", "--runtime", "runsc", "--script", script)
	if r.code != exitUsage || !strings.Contains(r.stderr, "the local backend runs no container") {
		t.Fatalf("exit %d stderr %q, want %d naming the local backend", r.code, r.stderr, exitUsage)
	}
}
