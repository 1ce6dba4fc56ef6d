//go:build unix

package local

import "syscall"

// ownGroup starts the program in a process group of its own.
func ownGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

// killProcessGroup kills every process of the group pgid leads.
func killProcessGroup(pgid int) { syscall.Kill(-pgid, syscall.SIGKILL) }
