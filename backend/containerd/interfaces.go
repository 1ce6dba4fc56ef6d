package containerd

import "github.com/hookexec/hook-exec/backend"

// The executor finds the optional interfaces at run time (b.(backend.Warmer)
// turns pooling on, b.(backend.Cleaner) the wait for removals,
// backend.RuntimeOf the trace's runtime): say here, at compile time, what
// this backend is, so that a drifting signature fails the build instead of
// switching a feature off. The same list in every backend package.
var (
	_ backend.Backend  = (*Backend)(nil)
	_ backend.Warmer   = (*Backend)(nil)
	_ backend.Cleaner  = (*Backend)(nil)
	_ backend.Runtimed = (*Backend)(nil)
	_ backend.Started  = (*startedTask)(nil)
)
