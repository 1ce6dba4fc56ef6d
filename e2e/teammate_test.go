package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/engineenv"
)

// localUser is an account this test made, its home, and the groups its
// processes run with (the engine's socket group).
type localUser struct {
	name     string
	uid, gid uint32
	groups   []uint32
	home     string
}

// newUser makes an account for the test (root only), with its home at
// home and the docker group, so that it reaches the engine; removed at
// the end.
func newUser(t *testing.T, name, home string) localUser {
	t.Helper()
	out, err := exec.Command("useradd", "-M", "-d", home, "-s", "/bin/sh", "-G", "docker", name).CombinedOutput()
	if err != nil {
		t.Fatalf("useradd %s: %v: %s", name, err, out)
	}
	t.Cleanup(func() { exec.Command("userdel", name).Run() })
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	g, err := user.LookupGroup("docker")
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dg, _ := strconv.Atoi(g.Gid)
	os.MkdirAll(home, 0o755)
	os.Chown(home, uid, gid)
	return localUser{name: name, uid: uint32(uid), gid: uint32(gid), groups: []uint32{uint32(dg)}, home: home}
}

// run runs argv as u in dir, with a host's environment for u: its home,
// path, and nothing of hook-exec's (its state directory is its default).
func (u localUser) run(t *testing.T, dir string, env []string, stdin []byte, argv ...string) cliResult {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append([]string{"HOME=" + u.home, "USER=" + u.name, "LANG=C.UTF-8", "HOOKEXEC_SERVER=off", "HOOKEXEC_BACKEND=docker"}, env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: u.uid, Gid: u.gid, Groups: u.groups}}
	cmd.Stdin = bytes.NewReader(stdin)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	r := cliResult{stdout: so.String(), stderr: se.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// chownTree gives u every file under dir.
func chownTree(t *testing.T, dir string, u localUser) {
	t.Helper()
	filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			err = os.Lchown(p, int(u.uid), int(u.gid))
		}
		return err
	})
}

// TestTeammateClone: a team commits its installed hooks. Alice installs
// the project's Claude Code, Cursor and Gemini CLI hooks; Bob, another
// account with his own home and state directory, clones the project to
// another path, and there: the committed files name no path of Alice's
// machine; the installed commands, run through /bin/sh -c with each
// host's environment, give the host's own outcomes; without hook-exec on
// Bob's PATH every blocking hook blocks, naming hook-exec (never the
// shell's 127, an allow to Claude Code); a script edited in the clone is
// refused; check names the pins, --trust-committed approves them as they
// are, --check --ci fails on the edit, and uninstall in the clone gives
// back Alice's original files byte for byte. On the Docker engine, which
// other accounts reach through its socket's group.
func TestTeammateClone(t *testing.T) {
	t.Parallel()
	engine(t)
	if os.Getuid() != 0 {
		if os.Getenv("HOOKEXEC_REQUIRE_ENGINE") == "1" {
			t.Fatal("the teammate test makes two accounts: it needs root")
		}
		t.Skip("the teammate test makes two accounts: it needs root")
	}
	if _, err := user.LookupGroup("docker"); err != nil {
		t.Fatalf("no docker group for the accounts to reach the engine: %v", err)
	}
	root, err := os.MkdirTemp("", "hookexec-teammate-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	os.Chmod(root, 0o755)
	// hook-exec where both find it: on their PATH.
	bin := filepath.Join(root, "bin")
	os.MkdirAll(bin, 0o755)
	for _, name := range []string{"hook-exec", "hook-exec-core"} {
		copyFile(t, filepath.Join(filepath.Dir(cli(t)), name), filepath.Join(bin, name), 0o755)
	}
	hx := filepath.Join(bin, "hook-exec")
	tag := strconv.Itoa(os.Getpid())
	alice := newUser(t, "hxalice"+tag, filepath.Join(root, "alice"))
	bob := newUser(t, "hxbob"+tag, filepath.Join(root, "bob"))
	path := "PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin"

	timeout := hookTimeout(t, engineFor(t, "docker")) + 2e9
	project := filepath.Join(alice.home, "src", "app")
	// The team's devcontainer names an image both engines' users have
	// (hook-bash, the newest): the project's hooks run there, on Bob's
	// clone too.
	out, err := exec.Command("docker", "images", "--format", "{{.Repository}}:{{.Tag}}", "hookexec/hook-bash").Output()
	devImage, _, _ := strings.Cut(string(out), "\n")
	if err != nil || devImage == "" {
		t.Fatalf("no hook-bash image for the devcontainer: %v", err)
	}
	os.MkdirAll(filepath.Join(project, ".devcontainer"), 0o755)
	gitInit(t, project)
	os.WriteFile(filepath.Join(project, ".devcontainer", "devcontainer.json"), fmt.Appendf(nil, "{\"image\": %q}\n", devImage), 0o644)
	originals := map[string]string{}
	for _, h := range installHosts {
		config := filepath.Join(project, h.config)
		guard := filepath.Join(filepath.Dir(config), "hooks", "guard.sh")
		os.MkdirAll(filepath.Dir(guard), 0o755)
		os.WriteFile(guard, []byte(h.guard), 0o755)
		originals[h.config] = h.document(timeout.Milliseconds() / max(h.unit, 1))
		os.WriteFile(config, []byte(originals[h.config]), 0o644)
	}
	chownTree(t, alice.home, alice)
	for _, h := range installHosts {
		r := alice.run(t, project, []string{path}, nil, hx, "install", h.name, "--yes")
		r.wantCode(t, 0)
	}

	// The clone: what the team committed (everything of the project), at
	// another path, Bob's.
	clone := filepath.Join(bob.home, "work", "app-clone")
	os.MkdirAll(filepath.Dir(clone), 0o755)
	if out, err := exec.Command("cp", "-a", project, clone).CombinedOutput(); err != nil {
		t.Fatalf("clone: %v: %s", err, out)
	}
	// Bob's hook-exec runs every call in its own process, as this suite's
	// do (no server outlives the test).
	if err := engineenv.Write(filepath.Join(bob.home, ".local/state/hook-exec"), map[string]string{"HOOKEXEC_SERVER": "off"}); err != nil {
		t.Fatal(err)
	}
	chownTree(t, bob.home, bob)
	committed, _ := exec.Command("grep", "-rlF", "-e", alice.home, "-e", "/tmp/", clone).Output()
	if len(committed) > 0 {
		t.Errorf("the committed files name paths of Alice's machine: %s", committed)
	}

	for _, h := range installHosts {
		before := hookCommands(t, h, filepath.Join(project, h.config)) // installed
		original := commandsOf(t, h, originals[h.config])
		hostEnv := append(append(h.vars(clone), h.env...), path)
		for _, command := range []string{"rm -rf build", "ls -la"} {
			payload := h.payload(clone, command)
			e := mustEnvelope(t, h, payload)
			for i := range before {
				host := bob.run(t, clone, hostEnv, payload, "bash", "-c", hostCommand(h, original[i], clone))
				want, err := hook.Interpret(e, host.code, []byte(host.stdout), []byte(host.stderr))
				if err != nil {
					t.Fatalf("%s on the host: %v", original[i], err)
				}
				got := bob.run(t, clone, hostEnv, payload, "/bin/sh", "-c", hostCommand(h, before[i], clone))
				d, err := hook.Interpret(e, got.code, []byte(got.stdout), []byte(got.stderr))
				if err != nil || d.Action != want.Action || d.Reason != want.Reason {
					t.Errorf("%s hook %d on %q in Bob's clone: %+v %v, on the host %s %q (stdout %q stderr %q)", h.name, i, command, d, err, want.Action, want.Reason, got.stdout, got.stderr)
				}
			}
		}
		// No hook-exec on this machine: every blocking hook blocks.
		noHookExec := append(append(h.vars(clone), h.env...), "PATH=/usr/bin:/bin")
		for i := range before {
			payload := h.payload(clone, "ls -la")
			got := bob.run(t, clone, noHookExec, payload, "/bin/sh", "-c", hostCommand(h, before[i], clone))
			d, err := hook.Interpret(mustEnvelope(t, h, payload), got.code, []byte(got.stdout), []byte(got.stderr))
			if got.code == 127 || err != nil || d.Action != hook.Deny || !strings.Contains(d.Reason, "hook-exec") {
				t.Errorf("%s hook %d without hook-exec: exit %d, %+v %v (stdout %q stderr %q)", h.name, i, got.code, d, err, got.stdout, got.stderr)
			}
		}
	}

	// Bob's first session: check names the pins as committed, trust
	// approves them as they are (and adds the session's check), and an
	// edit of a script in the clone is refused.
	env := []string{path}
	r := bob.run(t, clone, env, nil, hx, "install", "claude", "--check", "--ci")
	r.wantCode(t, 0)
	r = bob.run(t, clone, env, nil, hx, "install", "claude", "--trust-committed", "--yes")
	r.wantCode(t, 0)
	wantIn(t, "trust's stdout", r.stdout, "trusted 2 hooks of claude as committed")
	wantIn(t, "trust's stdout", r.stdout, "the project's devcontainer image "+devImage+" runs the project's own hooks")
	r = bob.run(t, clone, env, nil, hx, "install", "claude", "--check")
	r.wantCode(t, 0)
	claude := installHosts[0]
	guard := filepath.Join(clone, ".claude/hooks/guard.sh")
	os.WriteFile(guard, []byte(claude.guard+"# edited in the clone\n"), 0o755)
	os.Chown(guard, int(bob.uid), int(bob.gid))
	payload := claude.payload(clone, "ls -la")
	installed := hookCommands(t, claude, filepath.Join(clone, claude.config))
	if !strings.Contains(installed[0], " --image "+devImage+" ") {
		t.Errorf("the committed command does not run in the devcontainer's image: %s", installed[0])
	}
	got := bob.run(t, clone, []string{path, "CLAUDE_PROJECT_DIR=" + clone}, payload, "/bin/sh", "-c", installed[0])
	d, err := hook.Interpret(mustEnvelope(t, claude, payload), got.code, []byte(got.stdout), []byte(got.stderr))
	if err != nil || d.Action != hook.Deny || !strings.Contains(d.Reason, "hook-exec install claude") {
		t.Errorf("an edited script: %+v %v (stdout %q)", d, err, got.stdout)
	}
	r = bob.run(t, clone, env, nil, hx, "install", "claude", "--check", "--ci")
	r.wantCode(t, 1)
	wantIn(t, "check --ci", r.stdout, guard+" changed since approval")
	os.WriteFile(guard, []byte(claude.guard), 0o755)

	// Uninstall in the clone: Alice's originals, byte for byte.
	for _, h := range installHosts {
		r := bob.run(t, clone, env, nil, hx, "uninstall", h.name)
		r.wantCode(t, 0)
		if got, _ := os.ReadFile(filepath.Join(clone, h.config)); string(got) != originals[h.config] {
			t.Errorf("%s: uninstall in the clone left\n%s", h.name, got)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(filepath.Join(clone, h.config)), "hook-exec")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: uninstall left its side directory: %v", h.name, err)
		}
	}
}

// hostCommand is an installed command as its host hands it to a shell:
// Gemini CLI puts the project's directory, shell-quoted, in place of
// $GEMINI_PROJECT_DIR first.
func hostCommand(h installHost, command, dir string) string {
	if h.name == "gemini" {
		return strings.ReplaceAll(command, "$GEMINI_PROJECT_DIR", "'"+strings.ReplaceAll(dir, "'", `'\''`)+"'")
	}
	return command
}

// commandsOf are the command strings of a host's document, in order.
func commandsOf(t *testing.T, h installHost, doc string) []string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "doc.json")
	os.WriteFile(f, []byte(doc), 0o644)
	return hookCommands(t, h, f)
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
