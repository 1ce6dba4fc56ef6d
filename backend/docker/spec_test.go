package docker

import (
	"slices"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/mount"

	"github.com/hookexec/hook-exec/sandbox"
)

func TestConfigIsHardened(t *testing.T) {
	t.Parallel()
	s, err := sandbox.New("img", []string{"sh", "-c", "x"}, sandbox.WithEnv([]string{"A=1"}))
	if err != nil {
		t.Fatal(err)
	}
	cfg, hc := Config(s)
	if cfg.Image != "img" {
		t.Errorf("image = %q, want %q", cfg.Image, "img")
	}
	if !slices.Equal(cfg.Entrypoint, s.Argv) {
		t.Errorf("entrypoint = %q, want the sandbox argv %q", cfg.Entrypoint, s.Argv)
	}
	if len(cfg.Cmd) != 0 {
		t.Errorf("cmd = %q, want none", cfg.Cmd)
	}
	if cfg.User != "65534:65534" {
		t.Errorf("user = %q, want %q", cfg.User, "65534:65534")
	}
	if cfg.Tty {
		t.Error("tty = true, want false")
	}
	if !cfg.OpenStdin {
		t.Error("open stdin = false, want true")
	}
	if !cfg.StdinOnce {
		t.Error("stdin once = false, want true")
	}
	if !cfg.NetworkDisabled {
		t.Error("network disabled = false, want true")
	}
	if hc.NetworkMode != "none" {
		t.Errorf("network mode = %q, want %q", hc.NetworkMode, "none")
	}
	if !hc.ReadonlyRootfs {
		t.Error("read-only rootfs = false, want true")
	}
	if hc.AutoRemove {
		t.Error("auto remove = true, want false")
	}
	if hc.LogConfig.Type != "none" {
		t.Errorf("log driver = %q, want %q", hc.LogConfig.Type, "none")
	}
	if !slices.Equal(hc.CapDrop, []string{"ALL"}) {
		t.Errorf("cap drop = %q, want [ALL]", hc.CapDrop)
	}
	if !slices.Contains(hc.SecurityOpt, "no-new-privileges") {
		t.Errorf("security opts = %q, want no-new-privileges among them", hc.SecurityOpt)
	}
	if hc.Memory != sandbox.DefaultMemory {
		t.Errorf("memory = %d, want %d", hc.Memory, sandbox.DefaultMemory)
	}
	if hc.MemorySwap != hc.Memory {
		t.Errorf("memory swap = %d, want the memory limit %d", hc.MemorySwap, hc.Memory)
	}
	if *hc.PidsLimit != sandbox.DefaultPids {
		t.Errorf("pids limit = %d, want %d", *hc.PidsLimit, sandbox.DefaultPids)
	}
	if hc.NanoCPUs != 1e9 {
		t.Errorf("nano CPUs = %d, want %d", hc.NanoCPUs, int64(1e9))
	}
	tmp := hc.Tmpfs["/tmp"]
	for _, opt := range []string{"noexec", "nosuid", "nodev"} {
		if !strings.Contains(tmp, opt) {
			t.Errorf("tmpfs /tmp options %q lack %s", tmp, opt)
		}
	}
	if len(hc.Ulimits) != 2 {
		t.Errorf("ulimits = %v, want 2", hc.Ulimits)
	}
	if got := cfg.Labels[sandbox.LabelManaged]; got != "true" {
		t.Errorf("label %s = %q, want %q", sandbox.LabelManaged, got, "true")
	}
	l, _ := sandbox.New("img", []string{"x"}, sandbox.WithNetwork(), sandbox.WithExecTmp())
	cfg, hc = Config(l)
	if cfg.NetworkDisabled {
		t.Error("with network: network disabled = true, want false")
	}
	if hc.NetworkMode == "none" {
		t.Errorf("with network: network mode = %q, want anything but none", hc.NetworkMode)
	}
	if tmp := hc.Tmpfs["/tmp"]; strings.Contains(tmp, "noexec") {
		t.Errorf("with exec tmp: tmpfs /tmp options %q, want no noexec", tmp)
	}
	// A kept /tmp: a bind of its directory in the tmpfs's place.
	k, _ := sandbox.New("img", []string{"x"}, sandbox.WithTmpDir("/state/tmp/k"))
	_, hc = Config(k)
	if _, ok := hc.Tmpfs["/tmp"]; ok {
		t.Errorf("kept /tmp: a tmpfs at /tmp too: %v", hc.Tmpfs)
	}
	if len(hc.Mounts) != 1 || hc.Mounts[0].Target != "/tmp" || hc.Mounts[0].Source != "/state/tmp/k" || hc.Mounts[0].ReadOnly || hc.Mounts[0].Type != mount.TypeBind {
		t.Errorf("kept /tmp: mounts %+v, want one read-write bind of /state/tmp/k at /tmp", hc.Mounts)
	}
}
