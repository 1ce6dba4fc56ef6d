//go:build linux

package containerd

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestShimID(t *testing.T) {
	t.Parallel()
	const addr = "/var/run/docker/containerd/containerd.sock"
	line := func(args ...string) []byte { return []byte(strings.Join(args, "\x00") + "\x00") }
	for _, tc := range []struct {
		name    string
		cmdline []byte
		want    string
	}{
		{"ours", line("/usr/bin/containerd-shim-runc-v2", "-namespace", "hookexec", "-id", "hookexec-0123", "-address", addr), "hookexec-0123"},
		{"another namespace", line("/usr/bin/containerd-shim-runc-v2", "-namespace", "moby", "-id", "hookexec-0123", "-address", addr), ""},
		{"another containerd", line("/usr/bin/containerd-shim-runc-v2", "-namespace", "hookexec", "-id", "hookexec-0123", "-address", "/run/containerd/containerd.sock"), ""},
		{"not a shim", line("/bin/sleep", "-namespace", "hookexec", "-id", "hookexec-0123", "-address", addr), ""},
		{"an id not hook-exec's", line("/usr/bin/containerd-shim-runc-v2", "-namespace", "hookexec", "-id", "pause", "-address", addr), ""},
		{"empty", nil, ""},
	} {
		if got, ok := shimID(tc.cmdline, addr); got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: %q %v, want %q", tc.name, got, ok, tc.want)
		}
	}
}

func TestProcessAge(t *testing.T) {
	t.Parallel()
	age, ok := processAge(os.Getpid())
	if !ok || age < 0 || age > 24*time.Hour {
		t.Errorf("this process's age %v (%v)", age, ok)
	}
	if _, ok := processAge(1 << 30); ok {
		t.Error("a pid that does not exist has an age")
	}
}
