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
	if string(o.Stdout) != "hellold" {
		t.Errorf("stdout = %q, want %q", o.Stdout, "hellold")
	}
	if string(o.Stderr) != "wor" {
		t.Errorf("stderr = %q, want %q", o.Stderr, "wor")
	}
	if !o.Truncated {
		t.Error("truncated = false, want true")
	}
	if o.StdoutBytes != 9 {
		t.Errorf("stdout bytes = %d, want 9", o.StdoutBytes)
	}
	if o.StderrBytes != 7 {
		t.Errorf("stderr bytes = %d, want 7", o.StderrBytes)
	}
	if n := fired.Load(); n != 1 {
		t.Errorf("onLimit fired %d times, want 1", n)
	}
}

func TestCaptureExactCap(t *testing.T) {
	t.Parallel()
	c := NewCapture(4, nil)
	c.Stdout().Write([]byte("abcd"))
	var o Outcome
	c.Fill(&o)
	if o.Truncated {
		t.Error("exactly the cap: truncated = true, want false")
	}
	if string(o.Stdout) != "abcd" {
		t.Errorf("exactly the cap: stdout = %q, want %q", o.Stdout, "abcd")
	}
}

func TestSignalName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		code int
		want string
	}{{137, "SIGKILL"}, {143, "SIGTERM"}, {2, ""}, {0, ""}} {
		if got := SignalName(tc.code); got != tc.want {
			t.Errorf("SignalName(%d) = %q, want %q", tc.code, got, tc.want)
		}
	}
}
