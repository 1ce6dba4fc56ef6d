package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitProject makes a git repository of the caller's (root's, here: not the
// sandbox's uid) with one commit on branch feature-x, a tracked file changed
// since and an untracked one, readable by every user.
func gitProject(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("git is needed to make the test's project: %v", err)
	}
	project := filepath.Join(t.TempDir(), "project")
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = project
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@example.com", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(project, "main.go"), []byte("package main\n"), 0o644)
	git("init", "-q", "-b", "main")
	git("add", "main.go")
	git("commit", "-q", "-m", "first commit")
	git("checkout", "-q", "-b", "feature-x")
	os.WriteFile(filepath.Join(project, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(project, "notes.txt"), []byte("x\n"), 0o644)
	// The sandbox's user may enter the test's directories above the
	// project (t.TempDir's are 0700); nothing above them is touched.
	for _, d := range []string{project, filepath.Dir(project), filepath.Dir(filepath.Dir(project))} {
		os.Chmod(d, 0o755)
	}
	return project
}

// A git-context hook, as Claude Code users write them, on the mounted
// project (read-only, another uid's): git tells it the branch, the
// repository's top, the changes and the last commit, as it does on the
// host, where without safe.directory it said "detected dubious ownership"
// and the hook printed nothing. A hook still cannot declare git's
// configuration itself.
func TestLastMileGitOnWorkspace(t *testing.T) {
	t.Parallel()
	engine(t)
	project := gitProject(t)
	hookScript := scriptFile(t, "git-context.sh", `#!/bin/sh
cat >/dev/null
branch=$(git branch --show-current 2>/dev/null)
top=$(git rev-parse --show-toplevel 2>/dev/null)
changes=$(git status --porcelain 2>/dev/null | tr '\n' ',')
last=$(git log -1 --format=%s 2>/dev/null)
diff=$(git diff --stat 2>/dev/null | tail -n 1 | tr -s ' ')
echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"branch: '"$branch"'; top: '"$top"'; changes: '"$changes"'; last: '"$last"'; diff:'"$diff"'"}}'
`)
	ev := []byte(strings.Replace(string(claudeEvent("UserPromptSubmit", "", nil, `,"prompt":"what next?"`)),
		`"cwd":"/work/p"`, `"cwd":"`+project+`"`, 1))
	for _, backend := range []string{"docker", "containerd"} {
		t.Run(backend, func(t *testing.T) {
			t.Parallel()
			r := hookExec(t, ev, nil, "run", "--backend", backend, timeoutFlag(t, backend), "--dialect", "claude",
				"--script", hookScript, "--workspace", project, "--trace", "-")
			r.wantCode(t, 0)
			var out struct {
				Specific struct {
					Context string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("answer %q: %v (stderr %s)", r.stdout, err, r.stderr)
			}
			want := "branch: feature-x; top: " + project + "; changes:  M main.go,?? notes.txt,; last: first commit; diff: 1 file changed, 2 insertions(+)"
			if out.Specific.Context != want {
				t.Errorf("context %q, want %q (stderr %s)", out.Specific.Context, want, r.stderr)
			}
			// The project is as it was: git wrote nothing there (no index
			// refresh, no lock left).
			if _, err := os.Stat(filepath.Join(project, ".git", "index.lock")); err == nil {
				t.Error("an index.lock was left in the project")
			}
			// git's configuration in the environment is the sandbox's own.
			r = hookExec(t, ev, nil, "run", "--backend", backend, timeoutFlag(t, backend), "--dialect", "claude",
				"--script", hookScript, "--workspace", project, "--env", "GIT_CONFIG_COUNT=0", "--trace", "-")
			if !strings.Contains(r.stderr, `"GIT_CONFIG_COUNT" is reserved`) || strings.Contains(r.stdout, "branch:") {
				t.Errorf("--env GIT_CONFIG_COUNT=0: exit %d stdout %q stderr %q, want it refused", r.code, r.stdout, r.stderr)
			}
		})
	}
}
