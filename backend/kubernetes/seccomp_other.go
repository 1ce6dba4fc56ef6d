//go:build !linux

package kubernetes

import "errors"

// SeccompProfile is written on a Linux machine like the nodes.
func SeccompProfile() ([]byte, error) {
	return nil, errors.New("the seccomp profile is written on Linux, for nodes like the machine that writes it")
}
