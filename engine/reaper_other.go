//go:build !unix

package engine

import "syscall"

func detached() *syscall.SysProcAttr { return nil }
