package containerd

import (
	"errors"
	"net"
	"path/filepath"
	"testing"

	"github.com/hookexec/hook-exec/backend"
)

func TestNormalizeRef(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"hookexec/hook-sh:abc":             "docker.io/hookexec/hook-sh:abc",
		"docker.io/hookexec/hook-sh:abc":   "docker.io/hookexec/hook-sh:abc",
		"busybox":                          "docker.io/library/busybox:latest",
		"registry.local:5000/team/img:1.0": "registry.local:5000/team/img:1.0",
	} {
		if got := NormalizeRef(in); got != want {
			t.Errorf("NormalizeRef(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAddress(t *testing.T) {
	if a, err := Address("/x.sock"); err != nil || a != "/x.sock" {
		t.Fatalf("given address: %q %v", a, err)
	}
	t.Setenv("HOOKEXEC_CONTAINERD_ADDRESS", "/env.sock")
	if a, _ := Address(""); a != "/env.sock" {
		t.Fatalf("env address: %q", a)
	}
	t.Setenv("HOOKEXEC_CONTAINERD_ADDRESS", "")
	dir := t.TempDir()
	sock := filepath.Join(dir, "c.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	saved := Candidates
	defer func() { Candidates = saved }()
	Candidates = []string{filepath.Join(dir, "missing.sock"), sock}
	if a, err := Address(""); err != nil || a != sock {
		t.Fatalf("discovered %q %v, want %q", a, err, sock)
	}
	Candidates = []string{filepath.Join(dir, "missing.sock")}
	if _, err := Address(""); !errors.Is(err, backend.ErrEngine) {
		t.Fatalf("no socket: %v", err)
	}
}
