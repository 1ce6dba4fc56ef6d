package kubernetes

import (
	"encoding/json"
	"fmt"

	"github.com/moby/profiles/seccomp"
	"github.com/opencontainers/runtime-spec/specs-go"

	"github.com/hookexec/hook-exec/backend"
)

// SeccompProfile is the profile the other backends apply, in the OCI form
// a kubelet reads as a Localhost profile (its root's seccomp directory):
// evaluated for a process without capabilities on this machine's kernel
// and architecture, so it is written on (or for) nodes like this one.
func SeccompProfile() ([]byte, error) {
	rs := &specs.Spec{Process: &specs.Process{Capabilities: &specs.LinuxCapabilities{}}}
	p, err := seccomp.LoadProfile(backend.SeccompProfile(), rs)
	if err != nil {
		return nil, fmt.Errorf("seccomp profile: %w", err)
	}
	return json.MarshalIndent(p, "", "  ")
}
