//go:build !unix

package engine

import "syscall"

// Detached: no sessions here.
func Detached() *syscall.SysProcAttr { return nil }
