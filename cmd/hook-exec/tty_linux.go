package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// clientSupported: the server's user can be checked here (SO_PEERCRED).
const clientSupported = true

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
