package docker

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// fakeEngine answers /info with the given runtimes, as dockerd does.
func fakeEngine(t *testing.T, runtimes map[string]any) *Backend {
	t.Helper()
	info, err := json.Marshal(map[string]any{"Runtimes": runtimes, "DefaultRuntime": "runc"})
	if err != nil {
		t.Fatal(err)
	}
	return infoEngine(t, dockerVersion, string(info))
}

func TestSetRuntime(t *testing.T) {
	t.Parallel()
	good := map[string]any{"path": "/usr/bin/runsc", "runtimeArgs": []string{"--network=none", "--oci-seccomp"}}
	tests := []struct {
		name     string
		runtimes map[string]any
		ask      string
		want     error  // nil: accepted
		wantIn   string // in the refusal
		gvisor   bool
	}{
		{"runsc registered as hooks need it", map[string]any{"runc": map[string]any{"path": "runc"}, "runsc": good}, "runsc", nil, "", true},
		{"runsc not registered", map[string]any{"runc": map[string]any{"path": "runc"}}, "runsc", backend.ErrRuntime, `"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--network=none", "--oci-seccomp"]}}`, false},
		{"runsc without --oci-seccomp", map[string]any{"runsc": map[string]any{"path": "/usr/bin/runsc", "runtimeArgs": []string{"--network=none"}}}, "runsc", backend.ErrRuntime, "without --oci-seccomp", false},
		{"runsc under another name, without --network=none", map[string]any{"gvisor": map[string]any{"path": "/usr/bin/runsc"}}, "gvisor", backend.ErrRuntime, "without --network=none", false},
		{"another runtime", map[string]any{"crun": map[string]any{"path": "/usr/bin/crun"}}, "crun", nil, "", false},
		{"a path is not a Docker runtime name", map[string]any{}, "/usr/bin/runsc", backend.ErrRuntime, "not a runtime name", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := fakeEngine(t, tc.runtimes)
			err := b.SetRuntime(context.Background(), tc.ask)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tc.wantIn) {
					t.Errorf("refusal %q does not say %q", err, tc.wantIn)
				}
				if b.Runtime() != "" {
					t.Errorf("runtime %q kept after a refusal", b.Runtime())
				}
				return
			}
			if b.Runtime() != tc.ask || b.gvisor != tc.gvisor {
				t.Errorf("runtime %q gvisor %v, want %q %v", b.Runtime(), b.gvisor, tc.ask, tc.gvisor)
			}
		})
	}
}

// Under gVisor the host's pids limit counts gVisor's own tasks: it is
// scaled from the hook's, and the container asks for the runtime.
func TestConfigRuntime(t *testing.T) {
	t.Parallel()
	s, err := sandbox.New("img", []string{"true"}, sandbox.WithLimits(0, 32, 0))
	if err != nil {
		t.Fatal(err)
	}
	known := flavour{known: true, seccompOpt: "seccomp={}"}
	_, hc, _ := (&Backend{flavour: known}).config(context.Background(), s)
	if hc.Runtime != "" || *hc.PidsLimit != 32 {
		t.Errorf("default: runtime %q pids %d, want \"\" 32", hc.Runtime, *hc.PidsLimit)
	}
	_, hc, _ = (&Backend{runtime: "runsc", gvisor: true, flavour: known}).config(context.Background(), s)
	if hc.Runtime != "runsc" || *hc.PidsLimit != backend.RunscHostPids(32) {
		t.Errorf("runsc: runtime %q pids %d, want runsc %d", hc.Runtime, *hc.PidsLimit, backend.RunscHostPids(32))
	}
}
