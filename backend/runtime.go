package backend

import (
	"errors"
	"path/filepath"
	"regexp"
)

// ErrRuntime: the engine has no OCI runtime of the name asked for, or has
// one that cannot hold a hook sandbox as configured. Nothing was started.
var ErrRuntime = errors.New("OCI runtime not available")

// Runtimed is a backend whose sandboxes run under a chosen OCI runtime.
type Runtimed interface {
	// Runtime is the runtime's name as asked for; "" is the engine's default.
	Runtime() string
}

// RuntimeOf is b's runtime, "" when b runs the engine's default.
func RuntimeOf(b Backend) string {
	if r, ok := b.(Runtimed); ok {
		return r.Runtime()
	}
	return ""
}

// Runsc is gVisor's runtime. A hook sandbox has no network, and under runsc
// that is RunscNoNetwork: gVisor's network stack is not even set up (on
// kernels from 6.x the 2022 runsc Debian ships cannot tell a new network
// namespace from the host's, and refuses to start without it).
const (
	Runsc          = "runsc"
	RunscNoNetwork = "--network=none"
)

// IsRunsc reports whether the runtime binary at path is gVisor's.
func IsRunsc(path string) bool { return filepath.Base(path) == Runsc }

// runtimeName is what an engine accepts as a runtime's name (Docker's
// daemon.json keys, containerd's runtime types) or a binary's path.
var runtimeName = regexp.MustCompile(`^(/[A-Za-z0-9._/-]+|[A-Za-z0-9][A-Za-z0-9._-]*)$`)

// ValidRuntimeName reports whether name can name a runtime or its binary.
func ValidRuntimeName(name string) bool { return len(name) <= 256 && runtimeName.MatchString(name) }
