package backend

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Cleanups counts cleanups that run in the background, after a run's answer
// was handed back (the removal of an exited sandbox, a create that finished
// after the caller's deadline). Wait lets a backend's Close, and a test,
// wait for them and see what failed: a failed cleanup is a leak, never
// silent.
type Cleanups struct {
	mu     sync.Mutex
	n      int
	zero   chan struct{} // closed while n == 0
	failed []error
}

// Go runs f in the background, counted; its error is kept for Wait.
func (c *Cleanups) Go(f func() error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
	go func() {
		err := f()
		c.done(err)
	}()
}

func (c *Cleanups) done(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.failed = append(c.failed, err)
	}
	c.n--
	if c.n == 0 && c.zero != nil {
		close(c.zero)
		c.zero = nil
	}
}

// Wait blocks until no cleanup is pending or ctx ends. It returns the
// errors of the cleanups that failed since the last Wait, joined, or ctx's
// error.
func (c *Cleanups) Wait(ctx context.Context) error {
	c.mu.Lock()
	if c.n == 0 {
		defer c.mu.Unlock()
		return c.takeFailedLocked()
	}
	if c.zero == nil {
		c.zero = make(chan struct{})
	}
	z := c.zero
	c.mu.Unlock()
	select {
	case <-z:
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.takeFailedLocked()
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (c *Cleanups) takeFailedLocked() error {
	err := errors.Join(c.failed...)
	c.failed = nil
	return err
}

// Retry calls step until it succeeds, fails for good (retryable says
// no), or ctx ends, backing off from 50 ms to 1 s between tries: an engine
// under load answers a removal with a timeout or a conflict that a later
// try gets past; an engine that cannot be reached is left to the sweep of
// a later process. It returns the last error.
func Retry(ctx context.Context, step func(context.Context) error, retryable func(error) bool) error {
	pause := 50 * time.Millisecond
	for {
		err := step(ctx)
		if err == nil || !retryable(err) {
			return err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
		pause = min(2*pause, time.Second)
	}
}
