//go:build !unix

package admission

// slotLock is a no-op where file locks are not implemented: the bound then
// holds within one process only.
type slotLock struct{}

func tryLock(string) (*slotLock, error) { return &slotLock{}, nil }

func (s *slotLock) unlock() {}
