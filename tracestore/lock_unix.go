//go:build unix

package tracestore

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f, held until f is closed.
func lockFile(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
}
