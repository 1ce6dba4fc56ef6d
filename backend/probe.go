//go:build unix

package backend

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hookexec/hook-exec/sandbox"
)

// Bounds of the probe. Its sandbox's create and start may take seconds on
// a slow engine; once started, its FIFOs meet ours within milliseconds
// where they are this machine's: one that has not answered in
// probeAnswer is on FIFOs that never meet (a VM's file sharing).
const (
	probeBound  = 20 * time.Second
	probeAnswer = 5 * time.Second
)

// probeScript echoes the one line it is given: over the channel, the
// probe's answer.
const probeScript = `IFS= read -r hookexec_probe && printf '%s\n' "$hookexec_probe"`

// Stream verdicts, as the probe's cache holds them.
const (
	verdictChannel = "channel"
	verdictAttach  = "attach"
)

// decided reports whether the engine's verdict is known, probing when it
// is not: the sandbox at hand takes the channel only once it is (and the
// engine sees it, !Unseen). The first sandbox of an engine whose verdict
// no process has kept takes the attach, which always works, while a probe
// sandbox (spec's image, over a channel) must echo a line written to its
// in FIFO, in the background: bounded on its own, so that it never costs
// a hook its timeout. An engine that does not find the channel's
// directory (in a VM, or with a /tmp of its own), or finds it but whose
// FIFOs are not this machine's (a VM's file sharing: the bind succeeds,
// the opens never meet), gets the attach; the verdict is kept for every
// later process of this engine, runtime and boot. A probe failing
// otherwise (no sh in the image) decides nothing: the process keeps the
// attach, and the next one probes again.
func (c *Channels) decided(spec *sandbox.Spec, prepare Prepare) bool {
	if c.engine == "" || c.unseen.Load() {
		return true // a test's channels, or found unseen: nothing to probe
	}
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	if c.probed {
		return true
	}
	if c.probing != nil {
		return false
	}
	file := verdictFile(c.key())
	if b, err := readVerdict(file); err == nil {
		switch b {
		case verdictAttach:
			c.unseen.Store(true)
			c.probed = true
			return true
		case verdictChannel:
			c.probed = true
			return true
		}
	}
	done := make(chan struct{})
	c.probing = done
	ps := *spec // the caller's may change after this
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(context.Background(), probeBound)
		defer cancel()
		verdict := c.runProbe(ctx, &ps, prepare)
		if verdict == "" {
			return
		}
		if verdict == verdictAttach {
			c.unseen.Store(true)
		}
		writeVerdict(file, verdict)
		c.probeMu.Lock()
		c.probed = true
		c.probeMu.Unlock()
	}()
	return false
}

// WaitProbe waits (bounded by ctx) for a probe running in the background,
// whose sandbox is then being removed like any other: a backend waits
// for it before its cleanups, and before closing its client.
func (c *Channels) WaitProbe(ctx context.Context) error {
	if c == nil {
		return nil
	}
	c.probeMu.Lock()
	done := c.probing
	c.probeMu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("channel probe: %w", ctx.Err())
	}
}

// SetRuntime names the OCI runtime the channels' sandboxes run under: a
// verdict is the engine's under one runtime (a VM runtime's FIFOs are not
// this machine's). Set before the first sandbox.
func (c *Channels) SetRuntime(name string) {
	if c == nil {
		return
	}
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	if c.runtime != name {
		c.runtime, c.probed = name, false
		if c.probing != nil {
			select {
			case <-c.probing: // over: the new runtime is probed afresh
				c.probing = nil
			default: // still running: WaitProbe must still see it
			}
		}
		c.unseen.Store(false)
	}
}

// key names the engine and runtime for the verdict.
func (c *Channels) key() string { return c.engine + " runtime " + c.runtime }

// runProbe runs the probe's sandbox and says what it found ("" for
// nothing).
func (c *Channels) runProbe(ctx context.Context, spec *sandbox.Spec, prepare Prepare) string {
	ps := *spec
	ps.Argv = []string{"sh", "-c", probeScript, "hook-exec-probe"}
	// Not the run's: a check for what the run left must not find it.
	ps.Labels = maps.Clone(spec.Labels)
	if _, ok := ps.Labels[sandbox.LabelExecution]; ok {
		ps.Labels[sandbox.LabelExecution] = "channel-probe"
	}
	ps.Mounts, ps.TmpDir, ps.Resident, ps.WorkingDir = nil, "", false, "/"
	ch, err := c.make(false)
	if err != nil {
		return ""
	}
	w, err := prepare(ctx, ctx, channelSpec(&ps, ch))
	if err != nil {
		ch.remove()
		if c.notSeen(ch, err) {
			return verdictAttach
		}
		return ""
	}
	w.s = newChanneled(w.s, ch)
	var nonce [8]byte
	rand.Read(nonce[:])
	line := "hook-exec-probe-" + hex.EncodeToString(nonce[:]) + "\n"
	rctx, rcancel := context.WithTimeout(ctx, probeAnswer)
	defer rcancel()
	out, err := w.Run(rctx, []byte(line), 4096)
	switch {
	case err != nil:
		return ""
	case out.TimedOut && ctx.Err() == nil && rctx.Err() != nil:
		// The sandbox started, and its FIFOs never met ours.
		return verdictAttach
	case !out.TimedOut && out.ExitCode == 0 && string(out.Stdout) == line:
		return verdictChannel
	}
	return ""
}

// verdictFile is where the verdict for engine is kept: the user's cache,
// one file per engine, this machine's boot and its temporary directory
// (where the channels are made: by its device and inode too, as a client
// with a private /tmp has another).
func verdictFile(engine string) string {
	boot, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	var tmp syscall.Stat_t
	syscall.Stat(os.TempDir(), &tmp)
	h := sha256.New()
	fmt.Fprintf(h, "engine %q\nboot %q\ntmp %q %d %d\nuid %d\n", engine, strings.TrimSpace(string(boot)), os.TempDir(), tmp.Dev, tmp.Ino, os.Geteuid())
	return filepath.Join(CacheDir(), "stream-"+hex.EncodeToString(h.Sum(nil)[:12]))
}

// remember keeps verdict for this engine, as a probe would (a channel
// refused after a verdict that it was seen).
func (c *Channels) remember(verdict string) {
	if c.engine != "" {
		writeVerdict(verdictFile(c.key()), verdict)
	}
}

// readVerdict reads a kept verdict, from a directory of this user's alone.
func readVerdict(file string) (string, error) {
	fi, err := os.Lstat(filepath.Dir(file))
	if err != nil {
		return "", err
	}
	if !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 || !OwnedByMe(fi) {
		return "", fmt.Errorf("%s is not this user's alone", filepath.Dir(file))
	}
	b, err := os.ReadFile(file)
	return strings.TrimSpace(string(b)), err
}

// writeVerdict keeps verdict for later processes; a cache that cannot be
// written only means probing again.
func writeVerdict(file, verdict string) {
	dir := filepath.Dir(file)
	if err := PrivateDir(dir); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".stream-*")
	if err != nil {
		return
	}
	_, err = tmp.WriteString(verdict + "\n")
	if err = errors.Join(err, tmp.Close()); err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}
