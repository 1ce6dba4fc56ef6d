package containerd

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	specs "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/hookexec/hook-exec/sandbox"
)

func mountAt(ms []specs.Mount, dest string) *specs.Mount {
	for i := range ms {
		if ms[i].Destination == dest {
			return &ms[i]
		}
	}
	return nil
}

func TestSpecHardened(t *testing.T) {
	t.Parallel()
	s, err := sandbox.New("img", []string{"sh", "-c", "true"}, sandbox.WithEnv([]string{"HOME=/tmp", "A=1"}))
	if err != nil {
		t.Fatal(err)
	}
	o, err := newSpec(context.Background(), "abc", s, []string{"PATH=/bin", "HOME=/root"}, runtime{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"sh", "-c", "true"}, o.Process.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"PATH=/bin", "HOME=/tmp", "A=1"}, o.Process.Env); diff != "" {
		t.Errorf("env: the sandbox's over the image's (-want +got):\n%s", diff)
	}
	if got := o.Process.User; got.UID != 65534 || got.GID != 65534 {
		t.Errorf("user = %d:%d, want 65534:65534", got.UID, got.GID)
	}
	if !o.Root.Readonly {
		t.Error("root is writable")
	}
	if !o.Process.NoNewPrivileges {
		t.Error("no_new_privileges is off")
	}
	if diff := cmp.Diff(&specs.LinuxCapabilities{}, o.Process.Capabilities); diff != "" {
		t.Errorf("capabilities kept (-want +got):\n%s", diff)
	}
	if got, want := o.Linux.CgroupsPath, "/hookexec/abc"; got != want {
		t.Errorf("cgroups path = %q, want %q", got, want)
	}
	var ns []specs.LinuxNamespaceType
	for _, n := range o.Linux.Namespaces {
		if n.Path != "" {
			t.Errorf("namespace %s joins %s", n.Type, n.Path)
		}
		ns = append(ns, n.Type)
	}
	for _, want := range []specs.LinuxNamespaceType{specs.PIDNamespace, specs.IPCNamespace, specs.UTSNamespace, specs.MountNamespace, specs.NetworkNamespace, specs.CgroupNamespace} {
		if !slices.Contains(ns, want) {
			t.Errorf("no private %s namespace", want)
		}
	}
	r := o.Linux.Resources
	if got := *r.Memory.Limit; got != sandbox.DefaultMemory {
		t.Errorf("memory limit = %d, want %d", got, sandbox.DefaultMemory)
	}
	if got := *r.Memory.Swap; got != sandbox.DefaultMemory {
		t.Errorf("memory+swap = %d, want %d (no swap)", got, sandbox.DefaultMemory)
	}
	if got := *r.Pids.Limit; got != sandbox.DefaultPids {
		t.Errorf("pids = %d, want %d", got, sandbox.DefaultPids)
	}
	if got, want := *r.CPU.Quota, int64(sandbox.DefaultNanoCPUs*cpuPeriod/1e9); got != want {
		t.Errorf("cpu quota = %d, want %d", got, want)
	}
	wantLimits := []specs.POSIXRlimit{
		{Type: "RLIMIT_NOFILE", Hard: sandbox.DefaultNoFile, Soft: sandbox.DefaultNoFile},
		{Type: "RLIMIT_FSIZE", Hard: sandbox.DefaultFileSize, Soft: sandbox.DefaultFileSize},
	}
	if diff := cmp.Diff(wantLimits, o.Process.Rlimits); diff != "" {
		t.Errorf("rlimits (-want +got):\n%s", diff)
	}
	if !slices.Contains(o.Linux.MaskedPaths, "/proc/kcore") {
		t.Errorf("masked paths %q lack /proc/kcore", o.Linux.MaskedPaths)
	}
	if !slices.Contains(o.Linux.ReadonlyPaths, "/proc/sys") {
		t.Errorf("read-only paths %q lack /proc/sys", o.Linux.ReadonlyPaths)
	}
	if o.Linux.Seccomp == nil || o.Linux.Seccomp.DefaultAction != specs.ActErrno {
		t.Errorf("seccomp = %+v, want the default profile (errno by default)", o.Linux.Seccomp)
	}
	if got := o.Annotations[sandbox.LabelManaged]; got != "true" {
		t.Errorf("managed annotation = %q", got)
	}
	if m := mountAt(o.Mounts, "/run"); m != nil {
		t.Errorf("a writable /run is mounted: %+v", m)
	}
	tmp := mountAt(o.Mounts, "/tmp")
	if tmp == nil {
		t.Fatal("no /tmp mount")
	}
	for _, opt := range []string{"noexec", "nosuid", "nodev", "size=16777216"} {
		if !slices.Contains(tmp.Options, opt) {
			t.Errorf("/tmp options %q lack %s", tmp.Options, opt)
		}
	}
}

func TestSpecLoosened(t *testing.T) {
	t.Parallel()
	s, err := sandbox.New("img", []string{"x"}, sandbox.WithNetwork(), sandbox.WithWritableRoot(), sandbox.WithExecTmp())
	if err != nil {
		t.Fatal(err)
	}
	o, err := newSpec(context.Background(), "abc", s, nil, runtime{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Root.Readonly {
		t.Error("WithWritableRoot: root still read-only")
	}
	for _, n := range o.Linux.Namespaces {
		if n.Type == specs.NetworkNamespace {
			t.Error("WithNetwork: a private network namespace remains")
		}
	}
	if tmp := mountAt(o.Mounts, "/tmp"); slices.Contains(tmp.Options, "noexec") {
		t.Errorf("WithExecTmp: /tmp options %q", tmp.Options)
	}
}

func TestSpecMounts(t *testing.T) {
	t.Parallel()
	s, err := sandbox.New("img", []string{"sh"}, sandbox.WithMount(sandbox.Mount{Source: "/w", Target: "/w"}), sandbox.WithWritableMount(sandbox.Mount{Source: "/f", Target: "/tmp/f"}))
	if err != nil {
		t.Fatal(err)
	}
	o, err := newSpec(context.Background(), "abc", s, nil, runtime{})
	if err != nil {
		t.Fatal(err)
	}
	if w := mountAt(o.Mounts, "/w"); w == nil {
		t.Error("no workspace mount at /w")
	} else {
		if w.Source != "/w" {
			t.Errorf("workspace mount source = %q, want %q", w.Source, "/w")
		}
		if !slices.Contains(w.Options, "ro") {
			t.Errorf("workspace mount options %q lack ro", w.Options)
		}
	}
	if f := mountAt(o.Mounts, "/tmp/f"); f == nil {
		t.Error("no writable mount at /tmp/f")
	} else if !slices.Contains(f.Options, "rw") {
		t.Errorf("writable mount options %q lack rw", f.Options)
	}
	// /tmp must come before the bind mounted below it.
	if i, j := slices.IndexFunc(o.Mounts, func(m specs.Mount) bool { return m.Destination == "/tmp" }), slices.IndexFunc(o.Mounts, func(m specs.Mount) bool { return m.Destination == "/tmp/f" }); i > j {
		t.Errorf("/tmp mounted after /tmp/f (%d > %d): the bind would be hidden", i, j)
	}
	// A kept /tmp is a bind in the tmpfs's place, still nosuid, nodev,
	// noexec, and still before what is mounted below it.
	k, _ := sandbox.New("img", []string{"sh"}, sandbox.WithTmpDir("/state/tmp/k"), sandbox.WithWritableMount(sandbox.Mount{Source: "/f", Target: "/tmp/f"}))
	if o, err = newSpec(context.Background(), "abc", k, nil, runtime{}); err != nil {
		t.Fatal(err)
	}
	if tm := mountAt(o.Mounts, "/tmp"); tm == nil || tm.Type != "bind" || tm.Source != "/state/tmp/k" {
		t.Errorf("kept /tmp: mount %+v, want a bind of /state/tmp/k", tm)
	} else {
		for _, want := range []string{"rw", "nosuid", "nodev", "noexec"} {
			if !slices.Contains(tm.Options, want) {
				t.Errorf("kept /tmp: options %q lack %s", tm.Options, want)
			}
		}
	}
	if n := len(slices.DeleteFunc(slices.Clone(o.Mounts), func(m specs.Mount) bool { return m.Destination != "/tmp" })); n != 1 {
		t.Errorf("kept /tmp: %d mounts at /tmp, want 1", n)
	}
	if i, j := slices.IndexFunc(o.Mounts, func(m specs.Mount) bool { return m.Destination == "/tmp" }), slices.IndexFunc(o.Mounts, func(m specs.Mount) bool { return m.Destination == "/tmp/f" }); i > j {
		t.Errorf("kept /tmp mounted after /tmp/f (%d > %d)", i, j)
	}
	v, _ := sandbox.New("img", []string{"sh"}, sandbox.WithMount(sandbox.Mount{Source: "vol", Target: "/v", Volume: true}))
	if _, err := newSpec(context.Background(), "abc", v, nil, runtime{}); !errors.Is(err, sandbox.ErrInvalid) {
		t.Errorf("a volume on containerd: err = %v, want ErrInvalid", err)
	}
}
