package sandbox

import (
	"errors"
	"slices"
	"strings"
	"testing"

	specs "github.com/opencontainers/runtime-spec/specs-go"
)

func TestHardenedDefaults(t *testing.T) {
	t.Parallel()
	s, err := New("img", []string{"sh", "-c", "true"})
	if err != nil {
		t.Fatal(err)
	}
	if s.User != "65534:65534" || !s.ReadOnlyRoot || !s.NoNetwork || !s.NoNewPrivileges || !s.DropAllCaps || !s.TmpNoExec {
		t.Fatalf("not hardened: %+v", s)
	}
	if s.Memory != DefaultMemory || s.Pids != DefaultPids || s.NanoCPUs != DefaultNanoCPUs || s.Labels[LabelManaged] != "true" {
		t.Fatalf("limits or label missing: %+v", s)
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
	if err != nil || l.NoNetwork || l.ReadOnlyRoot || l.TmpNoExec || l.User != "1000:1000" || l.Memory != 64<<20 || l.Pids != 8 || l.NanoCPUs != 5e8 {
		t.Fatalf("loosenings not applied: %+v %v", l, err)
	}
}

func TestEnvPolicy(t *testing.T) {
	t.Parallel()
	env, err := Env(map[string]string{"MODE": "strict", "log_level": "2"}, map[string]string{"HOLARYN_HOOK_POINT": "tool.before"})
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
	} {
		_, err := Env(map[string]string{name: "x"}, nil)
		if !errors.Is(err, ErrEnv) {
			t.Errorf("declared %q accepted", name)
		} else if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not name %q", err, name)
		}
	}
	if _, err := Env(nil, map[string]string{"PATH": "/x"}); !errors.Is(err, ErrEnv) {
		t.Error("a non-event variable passed as an event variable")
	}
}

func TestOCI(t *testing.T) {
	t.Parallel()
	s, _ := New("img", []string{"sh"}, WithEnv([]string{"A=1"}))
	o, err := s.OCI("rootfs")
	if err != nil {
		t.Fatal(err)
	}
	if !o.Root.Readonly || o.Process.User.UID != 65534 || o.Process.User.GID != 65534 || !o.Process.NoNewPrivileges {
		t.Fatalf("root/user/nnp: %+v %+v", o.Root, o.Process.User)
	}
	c := o.Process.Capabilities
	if len(c.Bounding)+len(c.Effective)+len(c.Permitted)+len(c.Inheritable)+len(c.Ambient) != 0 {
		t.Fatalf("capabilities kept: %+v", c)
	}
	if !slices.ContainsFunc(o.Linux.Namespaces, func(n specs.LinuxNamespace) bool { return n.Type == specs.NetworkNamespace && n.Path == "" }) {
		t.Fatal("no private network namespace")
	}
	r := o.Linux.Resources
	if *r.Memory.Limit != DefaultMemory || *r.Memory.Swap != DefaultMemory || *r.Pids.Limit != DefaultPids || *r.CPU.Quota != 100000 {
		t.Fatalf("resources: %+v", r)
	}
	var tmp *specs.Mount
	for i := range o.Mounts {
		if o.Mounts[i].Destination == "/tmp" {
			tmp = &o.Mounts[i]
		}
	}
	if tmp == nil || !slices.Contains(tmp.Options, "noexec") || !slices.Contains(tmp.Options, "nosuid") || !slices.Contains(tmp.Options, "nodev") {
		t.Fatalf("/tmp mount: %+v", tmp)
	}
	if o.Annotations[LabelManaged] != "true" || !slices.Equal(o.Process.Env, []string{"A=1"}) {
		t.Fatal("labels or env lost")
	}
}

func TestMounts(t *testing.T) {
	t.Parallel()
	s, err := New("img", []string{"sh"}, WithMount(Mount{Source: "/w", Target: "/w"}), WithWritableMount(Mount{Source: "/f", Target: "/tmp/f"}))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Mounts[0].ReadOnly || s.Mounts[1].ReadOnly {
		t.Fatalf("mounts %+v", s.Mounts)
	}
	o, err := s.OCI("rootfs")
	if err != nil {
		t.Fatal(err)
	}
	last := o.Mounts[len(o.Mounts)-1]
	if last.Destination != "/tmp/f" || !slices.Contains(last.Options, "rw") || !slices.Contains(o.Mounts[len(o.Mounts)-2].Options, "ro") {
		t.Fatalf("OCI mounts %+v", o.Mounts)
	}
	for _, bad := range []Mount{{Source: "/x", Target: "/"}, {Source: "/x", Target: "/tmp"}, {Source: "/x", Target: "/proc/sys"}, {Source: "/x", Target: "rel"}, {Target: "/w"}, {Source: "/x", Target: "/dev"}} {
		if _, err := New("img", []string{"sh"}, WithMount(bad)); !errors.Is(err, ErrInvalid) {
			t.Errorf("mount %+v accepted", bad)
		}
	}
	v, _ := New("img", []string{"sh"}, WithMount(Mount{Source: "vol", Target: "/v", Volume: true}))
	if _, err := v.OCI("rootfs"); !errors.Is(err, ErrInvalid) {
		t.Error("a volume converted to an OCI bind mount")
	}
}
