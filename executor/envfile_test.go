package executor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// What a hook writes to CLAUDE_ENV_FILE is sourced by its host before
// every Bash command: only plain assignments pass, re-quoted so that
// sourcing them runs nothing, and never a loader or a secret-like name.
func TestEnvFileCollect(t *testing.T) {
	t.Parallel()
	o, err := newEnvOut()
	if err != nil {
		t.Fatal(err)
	}
	defer o.remove()
	os.WriteFile(o.file, []byte(`# set by the hook
export NODE_ENV=production
export GREETING="it's fine"
PROJECT_ROOT='/work/p'
export EVIL="$(rm -rf ~)"
export TICK=`+"`id`"+`
export LD_PRELOAD=/tmp/x.so
export GITHUB_TOKEN=abc
export PATH=/usr/bin;rm -rf ~
export PATH=/work/p/bin
export GIT_SSH_COMMAND='sh -c id'
export EDITOR=/work/p/evil
`), 0o644)
	dst := filepath.Join(t.TempDir(), "claude-env")
	allow := []string{"NODE_ENV", "GREETING", "PROJECT_ROOT", "EVIL", "TICK", "LD_PRELOAD", "GITHUB_TOKEN", "PATH", "GIT_SSH_COMMAND", "EDITOR"}
	n, refused, err := o.collect(dst, allow, "CLAUDE_ENV_FILE")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(dst)
	want := "export NODE_ENV='production'\nexport GREETING='it'\\''s fine'\nexport PROJECT_ROOT='/work/p'\n"
	if diff := cmp.Diff(want, string(b)); diff != "" || n != 3 {
		t.Errorf("taken %d (-want +got):\n%s", n, diff)
	}
	got := strings.Join(refused, "\n")
	for _, line := range []string{"line 5:", "line 6:", "line 7:", "line 8:", "line 9:", "line 10: PATH", "line 11: GIT_SSH_COMMAND", "line 12: EDITOR"} {
		if !strings.Contains(got, line) {
			t.Errorf("refusals %q lack %s", refused, line)
		}
	}
}

// A link where the file should be is never followed on the host.
func TestEnvFileLinkRefused(t *testing.T) {
	t.Parallel()
	o, err := newEnvOut()
	if err != nil {
		t.Fatal(err)
	}
	defer o.remove()
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("export A=1\n"), 0o600)
	os.Remove(o.file)
	os.Symlink(secret, o.file)
	dst := filepath.Join(t.TempDir(), "claude-env")
	n, refused, err := o.collect(dst, []string{"A"}, "CLAUDE_ENV_FILE")
	if err != nil || n != 0 || len(refused) != 1 || !strings.Contains(refused[0], "not a regular file") {
		t.Fatalf("taken %d refused %q err %v", n, refused, err)
	}
	if _, err := os.Stat(dst); !os.IsNotExist(err) {
		t.Error("the host's file was written")
	}
}

// A name the operator did not allow is never taken (PIP_INDEX_URL would
// have pip run an attacker's setup.py on the host).
func TestEnvFileAllowList(t *testing.T) {
	t.Parallel()
	o, err := newEnvOut()
	if err != nil {
		t.Fatal(err)
	}
	defer o.remove()
	os.WriteFile(o.file, []byte("export NODE_ENV=production\nexport PIP_INDEX_URL=https://evil.example/simple\n"), 0o644)
	dst := filepath.Join(t.TempDir(), "claude-env")
	n, refused, err := o.collect(dst, []string{"NODE_ENV"}, "CLAUDE_ENV_FILE")
	b, _ := os.ReadFile(dst)
	if err != nil || n != 1 || string(b) != "export NODE_ENV='production'\n" || len(refused) != 1 || !strings.Contains(refused[0], "PIP_INDEX_URL is not among") {
		t.Fatalf("taken %d %q refused %q err %v", n, b, refused, err)
	}
}

// A hook writing CLAUDE_ENV_FILE without end fills no disk: past the bound
// the file is emptied while the run goes on, and nothing is taken.
func TestEnvFileOverflow(t *testing.T) {
	t.Parallel()
	o, err := newEnvOut()
	if err != nil {
		t.Fatal(err)
	}
	defer o.remove()
	o.watch()
	f, err := os.OpenFile(o.file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := []byte("export A=" + strings.Repeat("x", 1000) + "\n")
	for written := 0; !o.overflow.Load(); written += len(line) {
		if written > 1<<30 {
			t.Fatal("1 GiB written and the file was never emptied")
		}
		f.Write(line)
	}
	dst := filepath.Join(t.TempDir(), "claude-env")
	n, refused, err := o.collect(dst, []string{"A"}, "CLAUDE_ENV_FILE")
	if err != nil || n != 0 || len(refused) != 1 || !strings.Contains(refused[0], "grew over 65536 bytes during the run") {
		t.Fatalf("taken %d refused %q err %v", n, refused, err)
	}
	if err := o.remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(o.parent); !os.IsNotExist(err) {
		t.Errorf("%s left behind: %v", o.parent, err)
	}
}
