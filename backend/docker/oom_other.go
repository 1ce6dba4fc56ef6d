//go:build !linux

package docker

type oomWatch struct{}

func watchOOM(string) *oomWatch { return nil }
func (w *oomWatch) stop() bool  { return false }
