//go:build unix

package engine

import "syscall"

// detached puts the reaper in a session of its own: a kill of the owner's
// process group does not reach it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
