package kubernetes

import "github.com/hookexec/hook-exec/backend"

// The executor finds these at run time: say here, at compile time, that
// this backend is each, so that a drifting signature fails the build
// instead of switching pooling (or its limits) off.
var (
	_ backend.Backend       = (*Backend)(nil)
	_ backend.Warmer        = (*Backend)(nil)
	_ backend.Cleaner       = (*Backend)(nil)
	_ backend.NotReusable   = (*Backend)(nil)
	_ backend.WarmLifetimer = (*Backend)(nil)
)
