//go:build !linux

package backend

import _ "embed"

// seccompProfileJSON is SeccompProfile as computed on Linux, where
// moby/profiles/seccomp builds Docker's default profile; a Linux test keeps
// the file equal to it. A client on macOS or Windows sends it to its (Linux)
// engine unchanged.
//
//go:embed seccomp_profile.json
var seccompProfileJSON string

// SeccompProfile returns the seccomp profile every container backend
// applies, in Docker's JSON form (see the Linux build for how it is made).
func SeccompProfile() string { return seccompProfileJSON }
