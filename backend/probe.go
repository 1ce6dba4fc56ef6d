//go:build unix

package backend

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/hookexec/hook-exec/sandbox"
)

// Bounds of the probe. Its sandbox's create and start may take seconds on
// a slow engine; once started, its FIFOs meet ours within milliseconds
// where they are this machine's. probeAnswer stays below the hooks'
// timeouts, so that a shared directory whose FIFOs never meet (a VM's
// file sharing) is found within the first hook's run, not at its cost.
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

// probe establishes, once per engine and boot of this machine, whether
// the engine's sandboxes can use this machine's FIFOs: a sandbox of spec's
// image, over a channel, must echo a line written to its in FIFO. An
// engine that does not find the channel's directory (in a VM, or with a
// /tmp of its own), or that finds it but whose FIFOs are not this
// machine's (a VM's file sharing: the bind succeeds, the opens never
// meet), gets the attach: from then on, and for every later process, by
// the cached verdict. A probe cut short by ctx, or failing for another
// reason (no such image), decides nothing: the run goes on as without it.
func (c *Channels) probe(ctx context.Context, spec *sandbox.Spec, prepare Prepare) {
	if c.engine == "" {
		return // a test's channels
	}
	c.probeMu.Lock()
	defer c.probeMu.Unlock()
	if c.probed {
		return
	}
	file := verdictFile(c.engine)
	if b, err := os.ReadFile(file); err == nil {
		switch strings.TrimSpace(string(b)) {
		case verdictAttach:
			c.unseen.Store(true)
			c.probed = true
			return
		case verdictChannel:
			c.probed = true
			return
		}
	}
	verdict := c.runProbe(ctx, spec, prepare)
	if verdict == "" {
		return
	}
	c.probed = true
	if verdict == verdictAttach {
		c.unseen.Store(true)
	}
	writeVerdict(file, verdict)
}

// runProbe runs the probe's sandbox and says what it found ("" for
// nothing).
func (c *Channels) runProbe(ctx context.Context, spec *sandbox.Spec, prepare Prepare) string {
	pctx, cancel := context.WithTimeout(ctx, probeBound)
	defer cancel()
	ps := *spec
	ps.Argv = []string{"sh", "-c", probeScript, "hook-exec-probe"}
	ps.Mounts, ps.TmpDir, ps.Resident, ps.WorkingDir = nil, "", false, "/"
	ch, err := c.make(false)
	if err != nil {
		return ""
	}
	w, err := prepare(pctx, pctx, channelSpec(&ps, ch))
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
	rctx, rcancel := context.WithTimeout(pctx, probeAnswer)
	defer rcancel()
	out, err := w.Run(rctx, []byte(line), 4096)
	switch {
	case err != nil:
		return ""
	case out.TimedOut && pctx.Err() == nil:
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
		writeVerdict(verdictFile(c.engine), verdict)
	}
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
