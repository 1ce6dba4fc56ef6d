//go:build linux

package backend

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/hookexec/hook-exec/sandbox"
)

// probeEngine is a Prepare that counts the probe's sandboxes and the
// others, and plays the probe's sandbox as sandbox does with its channel
// directory; the others are fakes that exit at once.
type probeEngine struct {
	mu      sync.Mutex
	probes  int
	others  []*sandbox.Spec
	sandbox func(t *testing.T, s *sandbox.Spec) (*Prepared, error)
}

func (e *probeEngine) prepare(t *testing.T) Prepare {
	return func(_, _ context.Context, s *sandbox.Spec) (*Prepared, error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		if slices.Contains(s.Argv, probeScript) {
			e.probes++
			return e.sandbox(t, s)
		}
		e.others = append(e.others, s)
		return NewPrepared(newFake(), 0, 0, &Cleanups{}), nil
	}
}

func channelDir(s *sandbox.Spec) string {
	for _, m := range s.Mounts {
		if m.Target == ChannelTarget {
			return m.Source
		}
	}
	return ""
}

// The probe's verdict, per engine and boot, is the path every later
// sandbox of every process takes: the channel where the probe's sandbox
// echoed over its FIFOs; the attach where its FIFOs never met ours (a VM's
// file sharing: the bind succeeds), or where the engine did not find the
// channel's directory. A probe cut short by the caller decides nothing.
func TestProbe(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	spec := &sandbox.Spec{Image: "img", Argv: []string{"sh", "-c", "x"}, Channel: true,
		Mounts: []sandbox.Mount{{Source: t.TempDir(), Target: "/work"}}}
	echo := func(t *testing.T, s *sandbox.Spec) (*Prepared, error) {
		if len(s.Mounts) != 1 {
			t.Errorf("the probe's sandbox mounts %v, want its channel alone", s.Mounts)
		}
		sandboxSide(t, channelDir(s), func(token string, in *bufio.Reader, out, _, status *os.File) {
			line, _ := in.ReadString('\n')
			out.WriteString(line)
			fmt.Fprintf(status, "%s 0\n", token)
		})
		return NewPrepared(newFake(), 0, 0, &Cleanups{}), nil
	}
	neverMeet := func(*testing.T, *sandbox.Spec) (*Prepared, error) {
		f := newFake()
		f.code = -1 // runs until killed
		return NewPrepared(f, 0, 0, &Cleanups{}), nil
	}
	notFound := func(_ *testing.T, s *sandbox.Spec) (*Prepared, error) {
		return nil, fmt.Errorf("%w: invalid mount config for type \"bind\": bind source path does not exist: %s", ErrEngine, channelDir(s))
	}
	for _, tc := range []struct {
		name    string
		sandbox func(*testing.T, *sandbox.Spec) (*Prepared, error)
		attach  bool
	}{
		{"this machine's FIFOs", echo, false},
		{"a VM's file sharing", neverMeet, true},
		{"a directory the engine does not find", notFound, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			engine := "test " + tc.name
			e := &probeEngine{sandbox: tc.sandbox}
			for call := range 2 { // two processes: the second reads the verdict
				chans := NewChannels(engine)
				w, err := prepareChanneled(context.Background(), context.Background(), spec, e.prepare(t), chans)
				if err != nil {
					t.Fatalf("call %d: %v", call, err)
				}
				w.Discard()
				if err := chans.WaitProbe(context.Background()); err != nil {
					t.Fatal(err)
				}
				chans.Close()
				if chans.Unseen() != tc.attach {
					t.Errorf("call %d: attach %v, want %v", call, chans.Unseen(), tc.attach)
				}
			}
			if e.probes != 1 {
				t.Errorf("%d probes, want 1: the verdict is kept", e.probes)
			}
			// The first sandbox went ahead of the verdict, through the
			// attach; the second took the verdict's path.
			if len(e.others) != 2 || channelDir(e.others[0]) != "" || (channelDir(e.others[1]) != "") == tc.attach {
				t.Errorf("%d sandboxes, channels %q, want none, then %v", len(e.others), []string{channelDir(e.others[0]), channelDir(e.others[len(e.others)-1])}, !tc.attach)
			}
		})
	}
	t.Run("another runtime", func(t *testing.T) {
		// A verdict is the engine's under one runtime: a VM runtime's
		// FIFOs are not this machine's.
		e := &probeEngine{sandbox: neverMeet}
		chans := NewChannels("test this machine's FIFOs")
		defer chans.Close()
		chans.SetRuntime("kata")
		w, err := prepareChanneled(context.Background(), context.Background(), spec, e.prepare(t), chans)
		if err != nil {
			t.Fatal(err)
		}
		w.Discard()
		chans.WaitProbe(context.Background())
		if e.probes != 1 || !chans.Unseen() {
			t.Errorf("probes %d, attach %v: want kata probed on its own, and its FIFOs found not to meet", e.probes, chans.Unseen())
		}
	})
	t.Run("a probe that decides nothing", func(t *testing.T) {
		// No sh in the image, say: the process keeps the attach and
		// does not probe again; the next process does.
		e := &probeEngine{sandbox: func(*testing.T, *sandbox.Spec) (*Prepared, error) {
			return nil, fmt.Errorf("%w: exec: \"sh\": executable file not found in $PATH", ErrStart)
		}}
		chans := NewChannels("test no sh")
		defer chans.Close()
		for range 3 {
			w, err := prepareChanneled(context.Background(), context.Background(), spec, e.prepare(t), chans)
			if err != nil {
				t.Fatal(err)
			}
			w.Discard()
			chans.WaitProbe(context.Background())
		}
		if e.probes != 1 || chans.Unseen() {
			t.Errorf("probes %d, unseen %v: want one probe, no verdict", e.probes, chans.Unseen())
		}
		for i, s := range e.others {
			if channelDir(s) != "" {
				t.Errorf("sandbox %d took a channel without a verdict", i)
			}
		}
		if _, err := os.Stat(verdictFile("test no sh runtime ")); !os.IsNotExist(err) {
			t.Errorf("a probe that decided nothing left a verdict: %v", err)
		}
	})
	t.Run("a verdict that no longer holds", func(t *testing.T) {
		// The engine saw the channels when probed, and no longer does
		// (restarted in a VM, or a client with a /tmp of its own): the
		// refusal changes the verdict for the next process.
		writeVerdict(verdictFile("test moved runtime "), verdictChannel)
		e := &probeEngine{sandbox: notFound}
		refuse := func(ctx, life context.Context, s *sandbox.Spec) (*Prepared, error) {
			if dir := channelDir(s); dir != "" {
				return notFound(t, s)
			}
			return e.prepare(t)(ctx, life, s)
		}
		chans := NewChannels("test moved")
		defer chans.Close()
		w, err := prepareChanneled(context.Background(), context.Background(), spec, refuse, chans)
		if err != nil {
			t.Fatal(err)
		}
		w.Discard()
		if b, _ := os.ReadFile(verdictFile("test moved runtime ")); !chans.Unseen() || string(b) != verdictAttach+"\n" {
			t.Errorf("unseen %v, verdict %q: want the attach, kept", chans.Unseen(), b)
		}
	})
}
