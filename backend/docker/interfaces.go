package docker

import "github.com/hookexec/hook-exec/backend"

// The executor pools sandboxes only for a backend.Warmer, found at run
// time: say here, at compile time, that this backend is one, so that a
// drifting signature fails the build instead of switching pooling off.
var (
	_ backend.Backend = (*Backend)(nil)
	_ backend.Warmer  = (*Backend)(nil)
	_ backend.Cleaner = (*Backend)(nil)
)
