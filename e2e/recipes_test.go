package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hostSpawn runs a hook command the way Arcturn does: `$SHELL -c command`
// (sh here), payload on stdin, its own process group, SIGKILL to the group
// at the host's timeout.
func hostSpawn(t *testing.T, command string, payload []byte, timeout time.Duration) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(cli(t))+":"+os.Getenv("PATH"))
	cmd.Stdin = bytes.NewReader(payload)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the hook command outlived the host's %v timeout", timeout)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	return code, so.String(), se.String()
}

// TestRecipeArcturnPreToolUse: hook-exec configured as an Arcturn
// preToolUse command (the recipe in docs/hosts.md), driven as Arcturn drives it.
func TestRecipeArcturnPreToolUse(t *testing.T) {
	t.Parallel()
	engine(t)
	plugin := t.TempDir()
	guard := filepath.Join(plugin, "guard-bash.sh")
	os.WriteFile(guard, []byte("case $(cat) in *'rm -rf'*) echo 'refusing to run a recursive rm' >&2; exit 2;; esac\nexit 0\n"), 0o644)
	command := "hook-exec run --dialect arcturn --script " + guard + " --timeout 8s"
	code, _, stderr := hostSpawn(t, command, []byte(arcturnPre), 15*time.Second)
	if code != 2 {
		t.Errorf("deny: exit code = %d, want 2; stderr %q", code, stderr)
	}
	if got := strings.TrimSpace(lastLine(stderr)); got != "refusing to run a recursive rm" {
		t.Errorf("deny: last stderr line = %q, want %q", got, "refusing to run a recursive rm")
	}
	if code, _, stderr := hostSpawn(t, command, []byte(arcturnLs), 15*time.Second); code != 0 {
		t.Fatalf("allow: exit %d stderr %q", code, stderr)
	}
}

// TestRecipeBernsteinHookScript: a .bernstein/hooks/preToolUse.sh that hands
// the payload to hook-exec (the recipe in docs/hosts.md), run as Bernstein runs it.
func TestRecipeBernsteinHookScript(t *testing.T) {
	t.Parallel()
	engine(t)
	repo := t.TempDir()
	plugin := filepath.Join(repo, "plugin")
	os.MkdirAll(filepath.Join(repo, ".bernstein", "hooks"), 0o755)
	os.MkdirAll(plugin, 0o755)
	os.WriteFile(filepath.Join(plugin, "preToolUse.sh"), []byte(`payload=$(cat)
case $payload in *'"tool":"shell.run"'*) echo '{"decision": "deny", "reason": "shell.run blocked by site policy"}'; exit 0;; esac
echo '{"decision": "allow"}'
`), 0o644)
	wrapper := filepath.Join(repo, ".bernstein", "hooks", "preToolUse.sh")
	os.WriteFile(wrapper, []byte("#!/bin/sh\nexec hook-exec run --dialect bernstein --script \"$(dirname \"$0\")/../../plugin/preToolUse.sh\"\n"), 0o755)
	code, stdout, stderr := hostSpawn(t, wrapper, []byte(bernPre), 15*time.Second)
	// A Bernstein deny is a structured refusal on stdout with exit 0: a
	// non-zero exit would be read as a broken hook.
	if code != 0 {
		t.Errorf("deny: exit code = %d, want 0; stdout %q stderr %q", code, stdout, stderr)
	}
	wantIn(t, "deny: stdout", stdout, `"decision":"deny","reason":"shell.run blocked by site policy"`)
	allowed := strings.Replace(bernPre, "shell.run", "fs.read", 1)
	code, stdout, stderr = hostSpawn(t, wrapper, []byte(allowed), 15*time.Second)
	if code != 0 {
		t.Errorf("allow: exit code = %d, want 0; stderr %q", code, stderr)
	}
	wantIn(t, "allow: stdout", stdout, `"decision":"allow"`)
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
