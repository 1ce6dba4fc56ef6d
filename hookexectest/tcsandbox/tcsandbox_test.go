package tcsandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/testcontainers/testcontainers-go"

	"github.com/hookexec/hook-exec/sandbox"
)

// customized applies Customize to a request the way testcontainers-go does:
// its config first, then the modifiers.
func customized(t *testing.T, opts ...sandbox.Option) (*testcontainers.GenericContainerRequest, *container.Config, *container.HostConfig) {
	t.Helper()
	req := &testcontainers.GenericContainerRequest{ContainerRequest: testcontainers.ContainerRequest{
		Image: "hookexec/hook-sh:test", Entrypoint: []string{"sh"}, Cmd: []string{"-c", "true"},
	}}
	if err := Customize(opts...)(req); err != nil {
		t.Fatal(err)
	}
	cfg := &container.Config{Image: req.Image, Entrypoint: req.Entrypoint, Cmd: req.Cmd, Env: []string{"TEST_SETTING=1"}}
	hc := &container.HostConfig{
		LogConfig:  container.LogConfig{Type: "json-file"},
		Mounts:     []mount.Mount{{Type: mount.TypeBind, Source: "/src", Target: "/work", ReadOnly: true}},
		Privileged: true,
	}
	req.ConfigModifier(cfg)
	req.HostConfigModifier(hc)
	return req, cfg, hc
}

func TestSandboxIsTheProductionSandbox(t *testing.T) {
	t.Parallel()
	req, cfg, hc := customized(t)
	limit := func(name string) int64 {
		for _, u := range hc.Ulimits {
			if u.Name == name {
				return u.Hard
			}
		}
		return -1
	}
	tests := []struct {
		fact string
		ok   bool
	}{
		{"runs as 65534:65534", cfg.User == "65534:65534"},
		{"has no network", hc.NetworkMode == "none" && cfg.NetworkDisabled},
		{"has a read-only root", hc.ReadonlyRootfs},
		{"is not privileged", !hc.Privileged},
		{"drops every capability", slices.Equal(hc.CapDrop, []string{"ALL"}) && len(hc.CapAdd) == 0},
		{"sets no-new-privileges", slices.Contains(hc.SecurityOpt, "no-new-privileges")},
		{"applies the seccomp profile", slices.ContainsFunc(hc.SecurityOpt, func(s string) bool { return strings.HasPrefix(s, "seccomp={") })},
		{"mounts /tmp noexec", strings.Contains(hc.Tmpfs["/tmp"], "noexec") && strings.Contains(hc.Tmpfs["/tmp"], "nosuid")},
		{"limits memory with swap equal", hc.Memory == sandbox.DefaultMemory && hc.MemorySwap == hc.Memory},
		{"limits pids", hc.PidsLimit != nil && *hc.PidsLimit == sandbox.DefaultPids},
		{"limits open files (nofile)", limit("nofile") == sandbox.DefaultNoFile},
		{"limits file size (fsize)", limit("fsize") == sandbox.DefaultFileSize},
		{"labels the container managed", req.Labels[sandbox.LabelManaged] == "true"},
		{"keeps the test's log driver", hc.LogConfig.Type == "json-file"},
		{"keeps the test's entrypoint", slices.Equal(cfg.Entrypoint, []string{"sh"})},
		{"keeps the test's mounts", len(hc.Mounts) == 1 && hc.Mounts[0].Target == "/work"},
		{"keeps the test's env after the sandbox's", len(cfg.Env) > 0 && cfg.Env[len(cfg.Env)-1] == "TEST_SETTING=1"},
		{"leaves stdin closed", !cfg.OpenStdin && !cfg.AttachStdin},
	}
	for _, tc := range tests {
		if !tc.ok {
			t.Errorf("the test container no longer %s", tc.fact)
		}
	}
}

func TestSandboxOptionsApply(t *testing.T) {
	t.Parallel()
	_, _, hc := customized(t, sandbox.WithLimits(64<<20, 8, 5e8))
	if hc.Memory != 64<<20 {
		t.Errorf("memory %d, want %d", hc.Memory, 64<<20)
	}
	if hc.PidsLimit == nil || *hc.PidsLimit != 8 {
		t.Errorf("pids %v, want 8", hc.PidsLimit)
	}
	if hc.NanoCPUs != 5e8 {
		t.Errorf("nano CPUs %d, want 5e8", hc.NanoCPUs)
	}
}
