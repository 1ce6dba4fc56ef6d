//go:build !linux

package containerd

import (
	"errors"

	"github.com/opencontainers/runtime-spec/specs-go"
)

// loadSeccomp needs the engine's own kernel to evaluate the profile's
// conditions, which only a build for Linux, running beside containerd, has.
func loadSeccomp(string, *specs.Spec) (*specs.LinuxSeccomp, error) {
	return nil, errors.New("the containerd backend builds its seccomp filter on containerd's host: run a Linux build of hook-exec there")
}
