package backend

import (
	"context"
	"sync"
)

// Cleanups counts cleanups that run in the background, after a run's answer
// was handed back (a create that finished after the caller's deadline, for
// example). Wait lets a backend's Close, and a test, wait for them.
type Cleanups struct {
	mu   sync.Mutex
	n    int
	zero chan struct{} // closed while n == 0
}

// Go runs f in the background, counted.
func (c *Cleanups) Go(f func()) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	go func() {
		defer c.done()
		f()
	}()
}

func (c *Cleanups) done() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n--
	if c.n == 0 && c.zero != nil {
		close(c.zero)
		c.zero = nil
	}
}

// Wait blocks until no cleanup is pending or ctx ends.
func (c *Cleanups) Wait(ctx context.Context) error {
	c.mu.Lock()
	if c.n == 0 {
		c.mu.Unlock()
		return nil
	}
	if c.zero == nil {
		c.zero = make(chan struct{})
	}
	z := c.zero
	c.mu.Unlock()
	select {
	case <-z:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
