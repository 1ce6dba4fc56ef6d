package local

import "github.com/hookexec/hook-exec/backend"

// The executor finds the optional interfaces at run time (b.(backend.Warmer)
// turns pooling on, b.(backend.Cleaner) the wait for removals,
// backend.RuntimeOf the trace's runtime): say here, at compile time, what
// this backend is, so that a drifting signature fails the build instead of
// switching a feature off. The same list in every backend package.
//
// The local backend runs each program cold, on the host: a Backend only,
// not a Warmer (nothing is started ahead), a Cleaner (nothing is left to
// remove after the answer) or Runtimed (no OCI runtime).
var _ backend.Backend = (*Backend)(nil)
