package backend

import (
	"bytes"
	"sync"
)

// Capture holds a program's stdout and stderr under one shared byte cap.
// Writes never fail, so a copier keeps draining the stream; bytes past the
// cap are counted and dropped, and OnLimit is called once, at the first
// byte past it.
type Capture struct {
	mu         sync.Mutex
	max        int64
	kept       int64
	out, err   bytes.Buffer
	nOut, nErr int64
	truncated  bool
	onLimit    func()
}

// NewCapture returns a Capture keeping at most max bytes in all; onLimit may
// be nil.
func NewCapture(max int64, onLimit func()) *Capture {
	return &Capture{max: max, onLimit: onLimit}
}

// Stdout and Stderr are the two writers.
func (c *Capture) Stdout() *CaptureWriter { return &CaptureWriter{c: c} }
func (c *Capture) Stderr() *CaptureWriter { return &CaptureWriter{c: c, stderr: true} }

// CaptureWriter is one stream of a Capture.
type CaptureWriter struct {
	c      *Capture
	stderr bool
}

func (w *CaptureWriter) Write(p []byte) (int, error) {
	c := w.c
	c.mu.Lock()
	buf, n := &c.out, &c.nOut
	if w.stderr {
		buf, n = &c.err, &c.nErr
	}
	*n += int64(len(p))
	room := c.max - c.kept
	keep := p
	if int64(len(keep)) > room {
		keep = keep[:max(room, 0)]
	}
	buf.Write(keep)
	c.kept += int64(len(keep))
	fire := len(keep) < len(p) && !c.truncated
	if fire {
		c.truncated = true
	}
	c.mu.Unlock()
	if fire && c.onLimit != nil {
		c.onLimit()
	}
	return len(p), nil
}

// Fill copies what was captured into o.
func (c *Capture) Fill(o *Outcome) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o.Stdout = bytes.Clone(c.out.Bytes())
	o.Stderr = bytes.Clone(c.err.Bytes())
	o.StdoutBytes, o.StderrBytes = c.nOut, c.nErr
	o.Truncated = c.truncated
}
