package sandbox

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestHardenedDefaults(t *testing.T) {
	t.Parallel()
	s, err := New("img", []string{"sh", "-c", "true"})
	if err != nil {
		t.Fatal(err)
	}
	if s.User != "65534:65534" {
		t.Errorf("user = %q, want 65534:65534", s.User)
	}
	for name, on := range map[string]bool{"read-only root": s.ReadOnlyRoot, "no network": s.NoNetwork,
		"no new privileges": s.NoNewPrivileges, "no capabilities": s.DropAllCaps, "noexec /tmp": s.TmpNoExec} {
		if !on {
			t.Errorf("%s is off by default", name)
		}
	}
	if s.Memory != DefaultMemory {
		t.Errorf("memory = %d, want the default %d", s.Memory, DefaultMemory)
	}
	if s.Pids != DefaultPids {
		t.Errorf("pids = %d, want the default %d", s.Pids, DefaultPids)
	}
	if s.NanoCPUs != DefaultNanoCPUs {
		t.Errorf("nano CPUs = %d, want the default %d", s.NanoCPUs, int64(DefaultNanoCPUs))
	}
	if got := s.Labels[LabelManaged]; got != "true" {
		t.Errorf("managed label = %q, want true", got)
	}
	for _, bad := range [][]Option{
		{WithLimits(-1, 0, 0)}, {WithLimits(1<<20, 0, 0)}, {WithUser(0, 1)},
		{WithLabels(map[string]string{LabelManaged: "false"})},
	} {
		if _, err := New("img", []string{"x"}, bad...); !errors.Is(err, ErrInvalid) {
			t.Errorf("option accepted: %v", err)
		}
	}
	if _, err := New("img", nil); !errors.Is(err, ErrInvalid) {
		t.Error("empty command accepted")
	}
	l, err := New("img", []string{"x"}, WithNetwork(), WithWritableRoot(), WithExecTmp(), WithUser(1000, 1000), WithLimits(64<<20, 8, 5e8))
	if err != nil {
		t.Fatal(err)
	}
	for name, on := range map[string]bool{"WithNetwork": l.NoNetwork, "WithWritableRoot": l.ReadOnlyRoot, "WithExecTmp": l.TmpNoExec} {
		if on {
			t.Errorf("%s not applied", name)
		}
	}
	if l.User != "1000:1000" {
		t.Errorf("WithUser: user = %q", l.User)
	}
	if l.Memory != 64<<20 {
		t.Errorf("WithLimits: memory = %d, want %d", l.Memory, 64<<20)
	}
	if l.Pids != 8 {
		t.Errorf("WithLimits: pids = %d, want 8", l.Pids)
	}
	if l.NanoCPUs != 5e8 {
		t.Errorf("WithLimits: nano CPUs = %d, want %d", l.NanoCPUs, int64(5e8))
	}
}

func TestEnvPolicy(t *testing.T) {
	t.Parallel()
	prefixes := []string{"HOLARYN_HOOK_"} // a host's, as hook.VarPrefixes gives them
	env, err := Env(map[string]string{"MODE": "strict", "log_level": "2"}, map[string]string{"HOLARYN_HOOK_POINT": "tool.before"}, prefixes)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"HOLARYN_HOOK_POINT=tool.before", "MODE=strict", "PYTHONIOENCODING=utf-8", "PYTHONUTF8=1", "log_level=2"}
	if !slices.Equal(env, want) {
		t.Fatalf("Env = %q, want %q", env, want)
	}
	for _, name := range []string{
		"GITHUB_TOKEN", "aws_secret_access_key", "DB_PASSWORD", "PASSWD", "GOOGLE_CREDENTIALS", "SSH_PRIVATE_KEY",
		"OPENAI_API_KEY", "AUTH_HEADER", "LD_PRELOAD", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONSTARTUP",
		"PYTHONEXECUTABLE", "BASH_ENV", "ENV", "HOLARYN_HOOK_POINT", "1ABC", "A-B", "", "A=B",
		"hookexec_dir", // the .sh launcher's own variables carry this prefix
	} {
		_, err := Env(map[string]string{name: "x"}, nil, prefixes)
		if !errors.Is(err, ErrEnv) {
			t.Errorf("declared %q accepted", name)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %q", err, name)
		}
	}
	if _, err := Env(nil, map[string]string{"PATH": "/x"}, prefixes); !errors.Is(err, ErrEnv) {
		t.Error("a non-event variable passed as an event variable")
	}
}

func TestMounts(t *testing.T) {
	t.Parallel()
	s, err := New("img", []string{"sh"}, WithMount(Mount{Source: "/w", Target: "/w"}), WithWritableMount(Mount{Source: "/f", Target: "/tmp/f"}))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Mounts[0].ReadOnly {
		t.Errorf("WithMount: mount %s read-only = false, want true", s.Mounts[0].Target)
	}
	if s.Mounts[1].ReadOnly {
		t.Errorf("WithWritableMount: mount %s read-only = true, want false", s.Mounts[1].Target)
	}
	for _, bad := range []Mount{{Source: "/x", Target: "/"}, {Source: "/x", Target: "/tmp"}, {Source: "/x", Target: "/proc/sys"}, {Source: "/x", Target: "rel"}, {Target: "/w"}, {Source: "/x", Target: "/dev"}} {
		if _, err := New("img", []string{"sh"}, WithMount(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("mount %+v accepted", bad)
		}
	}
	// A kept /tmp names an absolute directory, never the root.
	k, err := New("img", []string{"sh"}, WithTmpDir("/state/tmp/k/"))
	if err != nil || k.TmpDir != "/state/tmp/k" {
		t.Errorf("WithTmpDir: TmpDir %q, %v", k.TmpDir, err)
	}
	for _, bad := range []string{"", "rel/tmp", "/", "/.."} {
		if _, err := New("img", []string{"sh"}, WithTmpDir(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("WithTmpDir(%q) accepted", bad)
		}
	}
}

// git reads the mounted workspace as its owner's repository through the
// sandbox's own configuration entries; a hook cannot declare those names.
func TestGitSafeDirectory(t *testing.T) {
	t.Parallel()
	env, err := Env(map[string]string{"MODE": "x"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := GitSafeDirectory(env, "/work/p")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0=/work/p", "MODE=x", "PYTHONIOENCODING=utf-8", "PYTHONUTF8=1"}
	if !slices.Equal(got, want) {
		t.Errorf("GitSafeDirectory = %q, want %q", got, want)
	}
	for _, dir := range []string{"", "work/p", "/work/../p", "/work/p/", "/a\x00b"} {
		if _, err := GitSafeDirectory(env, dir); !errors.Is(err, ErrEnv) {
			t.Errorf("GitSafeDirectory(%q) = %v, want ErrEnv", dir, err)
		}
	}
	for _, name := range []string{"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "git_config_value_0", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_GLOBAL", "GIT_CONFIG"} {
		if _, err := Env(map[string]string{name: "1"}, nil, nil); !errors.Is(err, ErrEnv) {
			t.Errorf("declared %q accepted", name)
		}
	}
	if _, err := Env(map[string]string{"GIT_PAGER": "cat"}, nil, nil); err != nil {
		t.Errorf("declared GIT_PAGER refused: %v", err)
	}
}
