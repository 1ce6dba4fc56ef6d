package containerd

import (
	"github.com/moby/profiles/seccomp"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// loadSeccomp turns a profile in Docker's JSON form into the spec's seccomp
// filter, evaluating its kernel and capability conditions on this host.
func loadSeccomp(profile string, rs *specs.Spec) (*specs.LinuxSeccomp, error) {
	return seccomp.LoadProfile(profile, rs)
}
