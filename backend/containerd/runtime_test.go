package containerd

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// onPath is a lookPath that finds only the given programs, at /opt/bin.
func onPath(progs ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		for _, p := range progs {
			switch {
			case p == name && name[0] == '/':
				return name, nil
			case p == name:
				return "/opt/bin/" + name, nil
			}
		}
		return "", exec.ErrNotFound
	}
}

func TestResolveRuntime(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, runtime string
		path          []string
		wantType      string
		wantBinary    string // "" for the shim's default
		wantGVisor    bool
	}{
		{"default", "", nil, runcShim, "", false},
		{"runc", "runc", nil, runcShim, "", false},
		{"runsc through the wrapper", "runsc", []string{RunscWrapper, "containerd-shim-runsc-v1"}, runcShim, "/opt/bin/" + RunscWrapper, true},
		{"runsc through gVisor's shim", "runsc", []string{"containerd-shim-runsc-v1"}, runscShim, "", true},
		{"a shim by its type", "io.containerd.kata.v2", nil, "io.containerd.kata.v2", "", false},
		// (crun itself is refused where it cannot run: backend.CrunUnsupported.)
		{"a runc-compatible binary", "youki", []string{"youki"}, runcShim, "/opt/bin/youki", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rt, err := resolveRuntime(tc.runtime, onPath(tc.path...))
			if err != nil {
				t.Fatal(err)
			}
			if rt.typ != tc.wantType {
				t.Errorf("shim %q, want %q", rt.typ, tc.wantType)
			}
			bin := ""
			if rt.opts != nil {
				bin = rt.opts.BinaryName
			}
			if bin != tc.wantBinary {
				t.Errorf("binary %q, want %q", bin, tc.wantBinary)
			}
			if rt.gvisor != tc.wantGVisor {
				t.Errorf("gvisor %v, want %v", rt.gvisor, tc.wantGVisor)
			}
			if rt.opts == nil && rt.shimOptions() != nil {
				t.Error("shimOptions is a typed nil: containerd would marshal it")
			}
		})
	}
}

func TestResolveRuntimeRefused(t *testing.T) {
	t.Parallel()
	for name, runtime := range map[string]string{
		"runsc without wrapper or shim":        "runsc",
		"a binary not on PATH":                 "crun",
		"a relative path":                      "bin/crun",
		"shell metacharacters":                 "runc;reboot",
		"runsc by its path, without its flags": "/usr/bin/runsc",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := resolveRuntime(runtime, onPath("/usr/bin/runsc", "/usr/bin/runsc-hookexec")); !errors.Is(err, backend.ErrRuntime) {
				t.Fatalf("err %v, want ErrRuntime", err)
			}
		})
	}
}

// A runtime binary is found in root's directories only, and only when no
// one but root can change it: never through the caller's PATH.
func TestSystemLookPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	if p, err := systemLookPath("sh"); err != nil || !strings.HasPrefix(p, "/") {
		t.Errorf("systemLookPath(sh) = %q, %v; want /bin/sh or the like", p, err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "crun")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	if p, err := systemLookPath("crun"); err == nil && p == bin {
		t.Errorf("systemLookPath(crun) took %s from PATH", p)
	}
	if os.Geteuid() == 0 {
		os.Chmod(dir, 0o777)
	}
	if _, err := systemLookPath(bin); err == nil {
		t.Errorf("systemLookPath(%s) accepted a binary root does not alone control", bin)
	}
}

// Under gVisor the host's pids cgroup counts gVisor's own tasks: the limit
// is scaled from the hook's, never left at it (a trivial pipeline would
// fail) nor removed.
func TestSpecGVisorPids(t *testing.T) {
	t.Parallel()
	s, err := sandbox.New("img", []string{"true"}, sandbox.WithLimits(0, 32, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rt   runtime
		want int64
	}{{runtime{typ: runcShim}, 32}, {runtime{typ: runcShim, gvisor: true}, backend.RunscHostPids(32)}} {
		o, err := newSpec(context.Background(), "abc", s, nil, tc.rt)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&tc.want, o.Linux.Resources.Pids.Limit); diff != "" {
			t.Errorf("gvisor %v: pids limit (-want +got):\n%s", tc.rt.gvisor, diff)
		}
	}
}
