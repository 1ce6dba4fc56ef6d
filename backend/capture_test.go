package backend

import (
	"sync/atomic"
	"testing"
)

func TestCaptureSharedCap(t *testing.T) {
	t.Parallel()
	var fired atomic.Int32
	c := NewCapture(10, func() { fired.Add(1) })
	out, errw := c.Stdout(), c.Stderr()
	for _, w := range []struct {
		w *CaptureWriter
		s string
	}{{out, "hello"}, {errw, "wor"}, {out, "ld!!"}, {errw, "more"}} {
		if n, err := w.w.Write([]byte(w.s)); n != len(w.s) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	var o Outcome
	c.Fill(&o)
	if string(o.Stdout) != "hellold" || string(o.Stderr) != "wor" || !o.Truncated {
		t.Fatalf("captured %q / %q truncated=%v", o.Stdout, o.Stderr, o.Truncated)
	}
	if o.StdoutBytes != 9 || o.StderrBytes != 7 || fired.Load() != 1 {
		t.Fatalf("counts %d/%d, onLimit fired %d times", o.StdoutBytes, o.StderrBytes, fired.Load())
	}
}

func TestCaptureExactCap(t *testing.T) {
	t.Parallel()
	c := NewCapture(4, nil)
	c.Stdout().Write([]byte("abcd"))
	var o Outcome
	c.Fill(&o)
	if o.Truncated || string(o.Stdout) != "abcd" {
		t.Fatalf("exactly the cap was truncated: %+v", o)
	}
}

func TestSignalName(t *testing.T) {
	t.Parallel()
	if SignalName(137) != "SIGKILL" || SignalName(143) != "SIGTERM" || SignalName(2) != "" || SignalName(0) != "" {
		t.Fatal("SignalName")
	}
}
