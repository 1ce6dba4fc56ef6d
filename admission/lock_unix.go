//go:build unix

package admission

import (
	"os"
	"syscall"
)

// slotLock is a held slot file; the kernel drops the lock when the
// process dies, so a crashed process never keeps a slot.
type slotLock struct{ f *os.File }

// tryLock takes path's exclusive lock without waiting. Each call opens its
// own file description, so two slots of one process never share a lock.
func tryLock(path string) (*slotLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	return &slotLock{f}, nil
}

// unlock releases the slot by closing its description.
func (s *slotLock) unlock() { s.f.Close() }
