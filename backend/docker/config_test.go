package docker

import (
	"slices"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/sandbox"
)

func TestConfigIsHardened(t *testing.T) {
	t.Parallel()
	s, err := sandbox.New("img", []string{"sh", "-c", "x"}, sandbox.WithEnv([]string{"A=1"}))
	if err != nil {
		t.Fatal(err)
	}
	cfg, hc := Config(s)
	if cfg.Image != "img" || !slices.Equal(cfg.Entrypoint, s.Argv) || len(cfg.Cmd) != 0 || cfg.User != "65534:65534" || cfg.Tty || !cfg.OpenStdin || !cfg.StdinOnce {
		t.Fatalf("config %+v", cfg)
	}
	if !cfg.NetworkDisabled || hc.NetworkMode != "none" || !hc.ReadonlyRootfs || hc.AutoRemove || hc.LogConfig.Type != "none" {
		t.Fatalf("host config %+v", hc)
	}
	if !slices.Equal(hc.CapDrop, []string{"ALL"}) || !slices.Contains(hc.SecurityOpt, "no-new-privileges") {
		t.Fatalf("caps %v secopt %v", hc.CapDrop, hc.SecurityOpt)
	}
	if hc.Memory != sandbox.DefaultMemory || hc.MemorySwap != hc.Memory || *hc.PidsLimit != sandbox.DefaultPids || hc.NanoCPUs != 1e9 {
		t.Fatalf("resources %+v", hc.Resources)
	}
	if tmp := hc.Tmpfs["/tmp"]; !strings.Contains(tmp, "noexec") || !strings.Contains(tmp, "nosuid") || !strings.Contains(tmp, "nodev") {
		t.Fatalf("tmpfs %q", tmp)
	}
	if len(hc.Ulimits) != 2 || cfg.Labels[sandbox.LabelManaged] != "true" {
		t.Fatalf("ulimits %v labels %v", hc.Ulimits, cfg.Labels)
	}
	l, _ := sandbox.New("img", []string{"x"}, sandbox.WithNetwork(), sandbox.WithExecTmp())
	cfg, hc = Config(l)
	if cfg.NetworkDisabled || hc.NetworkMode == "none" || strings.Contains(hc.Tmpfs["/tmp"], "noexec") {
		t.Fatal("loosenings not carried into the Docker config")
	}
}
