//go:build !linux

package main

import "os"

// clientSupported: the server's user cannot be checked here, so no call
// is handed to one.
const clientSupported = false

func isTerminal(*os.File) bool { return false }
