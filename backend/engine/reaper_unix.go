//go:build unix

package engine

import "syscall"

// Detached puts a helper process (a reaper, a boundary's observers) in a
// session of its own: a kill of the owner's process group does not reach
// it.
func Detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
