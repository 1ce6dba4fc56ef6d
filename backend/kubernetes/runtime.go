package kubernetes

// Runtime implements backend.Runtimed: the pods' RuntimeClass.
func (b *Backend) Runtime() string { return b.o.RuntimeClass }
