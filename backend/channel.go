//go:build unix

package backend

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hookexec/hook-exec/sandbox"
)

// ChannelTarget is where a sandbox's channel directory is mounted.
const ChannelTarget = "/.hookexec"

// channelWrap runs a streamed program with its stdin, stdout and stderr on
// the channel's FIFOs instead of the engine's attach streams, and reports
// its exit status on the status FIFO after a per-run token. The engine
// relays nothing, and the answer does not wait for the engine to notice
// the exit. The wrapper exits with the program's status too: the engine's
// report of the exit may come first, and must say the same.
//
// A hook runs as the wrapper's uid, so the wrapper keeps its status only
// where the hook cannot reach it (issue 44: a hook read the token from
// /proc/1/mem and wrote its own "TOKEN 0"):
//   - the host makes the status FIFO unopenable (mode 0) once the wrapper
//     holds it, before it writes the token that lets the program start:
//     nothing else can write there, by its path or through /proc/1/fd;
//   - the wrapper reports only when it is not dumpable: run by
//     channelBoot under the images' exec-only sh (launcher.AgentShell),
//     the kernel closes its /proc/PID/mem, environ and fd to its uid; it
//     checks that from another process, as a hook would try. A .sh
//     launcher (sh -c SRC NAME ARG...) then runs in a subshell of it, not
//     dumpable either, so that the hook cannot rewrite the launcher's
//     memory on the way to its status (its remaining script text, its
//     status variable);
//   - a dumpable wrapper (an image without that sh, a root sandbox)
//     closes the status FIFO and becomes the program, whose exit the
//     engine reports, as without a channel: no process the hook can read
//     holds the token.
var channelWrap = wrapFor(ChannelTarget)

// channelBoot starts channelWrap (its first argument) under the images'
// exec-only sh where the image has one, else in the image's sh.
var channelBoot = bootFor(agentShell)

// agentShell is launcher.AgentShell (backend does not import launcher).
const agentShell = "/usr/lib/hook-exec/sh"

// bootFor is channelBoot with the exec-only sh at shell.
func bootFor(shell string) string {
	return `[ -x ` + shell + ` ] && exec ` + shell + ` -c "$1" "$0" "$@"
eval "$1"
`
}

// wrapFor is channelWrap for a channel mounted at dir.
func wrapFor(dir string) string {
	return `shift
hookexec_own=
[ -e /proc/$$/environ ] && ! (: </proc/$$/environ) 2>/dev/null && hookexec_own=1
exec <` + dir + `/in >` + dir + `/out 2>` + dir + `/err 3>` + dir + `/status || exit 125
IFS= read -r hookexec_token || exit 125
if [ -z "$hookexec_own" ] || [ "$#" -lt 4 ] || [ "$1" != sh ] || [ "$2" != -c ]; then
	unset hookexec_token
	exec "$@" 3>&-
fi
(
	unset hookexec_token hookexec_own
	exec 3>&-
	hookexec_src=$3
	shift 4
	eval "unset hookexec_src
$hookexec_src"
)
hookexec_status=$?
echo "$hookexec_token $hookexec_status" >&3
exit "$hookexec_status"
`
}

// residentWrap puts a resident program (an agent) on the channel's FIFOs
// and then becomes it, told the channel's directory as its last argument:
// it stays the sandbox's init, as it would be without a channel, and its
// exit is the engine's to report. Its answers carry a nonce of their own,
// so it needs no token. Each of its runs has FIFOs of its own in the
// directory: rin, rout and rerr.
var residentWrap = `exec <` + ChannelTarget + `/in >` + ChannelTarget + `/out 2>` + ChannelTarget + `/err || exit 125
exec "$@" ` + ChannelTarget + `
`

// Channels makes the channel directories of one backend's sandboxes: a
// private directory of this process's (0700), each sandbox's directory
// in it holding four FIFOs, bind-mounted read-only at ChannelTarget. Only
// an engine on this machine sees them: a remote engine's backend has none.
type Channels struct {
	mu     sync.Mutex
	parent string
	closed bool
	// unseen: the engine could not find a channel's directory (it runs
	// in a VM, or in a mount namespace with a /tmp of its own), or its
	// FIFOs are not this machine's: every sandbox goes through the
	// engine's attach from then on.
	unseen atomic.Bool
	// engine names the engine for the probe's kept verdict ("": no
	// probe, a test's channels), runtime the OCI runtime its sandboxes
	// run under; probed: this value has its verdict; probing: closed
	// when the probe running in the background ends.
	engine  string
	probeMu sync.Mutex
	runtime string
	probed  bool
	probing chan struct{}
}

// Unseen reports whether the engine has been found not to see this
// machine's channel directories.
func (c *Channels) Unseen() bool { return c != nil && c.unseen.Load() }

// Skip has every later sandbox go through the engine's attach, as for an
// engine found not to see the channels: what `doctor` and the benchmarks
// measure beside the channel.
func (c *Channels) Skip() {
	if c != nil {
		c.unseen.Store(true)
	}
}

// notSeen reports whether err, the engine's refusal of a sandbox over ch,
// names ch's directory: the engine does not see it, nor any later one.
func (c *Channels) notSeen(ch *channel, err error) bool {
	if !strings.Contains(err.Error(), ch.dir) {
		return false
	}
	c.unseen.Store(true)
	return true
}

// NewChannels returns the channels of a backend whose engine, named by
// engine (its address), may run on this machine: whether it does is
// probed before the first channel is used. nil (none) where FIFOs are
// not shared with the engine's sandboxes (a Mac's or Windows' engine runs
// in a VM).
func NewChannels(engine string) *Channels {
	if goruntime.GOOS != "linux" {
		return nil
	}
	return &Channels{engine: engine}
}

// Close removes the directory of every channel (their sandboxes are gone).
func (c *Channels) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.parent == "" {
		return nil
	}
	return os.RemoveAll(c.parent)
}

// channelsPrefix begins the name of a process's channels directory in the
// temporary directory: PREFIX-PID-START-RANDOM.
const channelsPrefix = "hook-exec-channels-"

// SweepChannels removes the channels directories of this host's hook-exec
// processes that are gone; it returns how many.
func SweepChannels() int {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), channelsPrefix+"*"))
	host, _ := os.Hostname()
	n := 0
	for _, d := range dirs {
		f := strings.SplitN(strings.TrimPrefix(filepath.Base(d), channelsPrefix), "-", 3)
		if len(f) != 3 {
			continue
		}
		owner := map[string]string{sandbox.LabelManaged: "true", sandbox.LabelOwnerHost: host, sandbox.LabelOwnerPID: f[0], sandbox.LabelOwnerStart: f[1]}
		if OwnerGone(owner) && os.RemoveAll(d) == nil {
			n++
		}
	}
	return n
}

// channel is one sandbox's FIFOs: in (read by the sandbox), out, err and
// status (written by it).
type channel struct {
	dir, token string
	resident   bool
}

func (ch *channel) remove() { os.RemoveAll(ch.dir) }

func (c *Channels) make(resident bool) (*channel, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errors.New("channels closed")
	}
	if c.parent == "" {
		// Named for this process, so that a sweep removes it once the
		// process is gone without closing it (killed, or leaving its
		// removals to its reaper).
		o := OwnerLabels()
		p, err := os.MkdirTemp("", channelsPrefix+o[sandbox.LabelOwnerPID]+"-"+o[sandbox.LabelOwnerStart]+"-")
		if err != nil {
			return nil, err
		}
		c.parent = p
	}
	dir, err := os.MkdirTemp(c.parent, "c-")
	if err != nil {
		return nil, err
	}
	// Whoever the sandbox runs as reads in (and rin) and writes the others;
	// nobody else on the host reaches them through the private parent.
	fifos := map[string]uint32{"in": 0o644, "out": 0o622, "err": 0o622, "status": 0o622}
	if resident {
		fifos["rin"], fifos["rout"], fifos["rerr"] = 0o644, 0o622, 0o622
	}
	for name, mode := range fifos {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, mode); err == nil {
			err = os.Chmod(p, os.FileMode(mode)) // past the umask
		}
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("channel: %w", err)
		}
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	var b [16]byte
	rand.Read(b[:])
	return &channel{dir: dir, token: hex.EncodeToString(b[:]), resident: resident}, nil
}

// channelSpec is spec with the channel mounted and the program wrapped.
// OverChannel says whether spec is one channelSpec made: its program's
// stdin and output go over the channel, not the engine's attach.
func OverChannel(spec *sandbox.Spec) bool {
	return slices.ContainsFunc(spec.Mounts, func(m sandbox.Mount) bool { return m.Target == ChannelTarget })
}

func channelSpec(spec *sandbox.Spec, ch *channel) *sandbox.Spec {
	s := *spec
	s.Mounts = append(append([]sandbox.Mount(nil), spec.Mounts...), sandbox.Mount{Source: ch.dir, Target: ChannelTarget, ReadOnly: true})
	if spec.Resident {
		// The agent's own shell (the images' fixed one): the image's sh may
		// be missing, and the agent needs its shell anyway.
		s.Argv = append([]string{spec.Argv[0], "-c", residentWrap, "hook-channel"}, spec.Argv...)
	} else {
		s.Argv = append([]string{"sh", "-c", channelBoot, "hook-channel", channelWrap}, spec.Argv...)
	}
	return &s
}

// errChannelClosed: a FIFO's open was given up (the run is over).
var errChannelClosed = errors.New("channel closed")

// channeled is an engine's started sandbox whose program is streamed over
// its channel; the rest (kill, OOM, release, removal) is the engine's.
type channeled struct {
	Started
	ch       *channel
	done     chan struct{} // closed by Release: blocked opens give up
	mu       sync.Mutex
	files    map[*os.File]struct{}
	shut     bool // files are closed: one opened late is closed at once
	cutOnce  sync.Once
	copiers  sync.WaitGroup
	outputs  chan struct{} // closed when out and err have ended
	status   chan Exit
	exitOnce sync.Once
	exitC    chan Exit
	release  sync.Once
	// The FIFOs of a streamed program, opened (and the token written) as
	// its sandbox starts: its wrapper then starts the program, which does
	// what it can before its stdin comes (a pooled launcher makes its
	// directory and probes dd) while the sandbox waits, not while a run
	// does.
	in, out, err, stat *fifo
}

// fifo is one of the channel's FIFOs, being opened.
type fifo struct {
	opened chan struct{}
	f      *os.File
}

// file waits for the open; nil when it was given up.
func (f *fifo) file() *os.File {
	<-f.opened
	return f.f
}

func newChanneled(s Started, ch *channel) *channeled {
	c := &channeled{Started: s, ch: ch, done: make(chan struct{}), files: map[*os.File]struct{}{}, status: make(chan Exit, 1), exitC: make(chan Exit, 1)}
	if !ch.resident {
		// The wrapper holds status once its open here returns: no other
		// process of the sandbox may open it after that, and none runs
		// before the token comes.
		status := filepath.Join(ch.dir, "status")
		c.stat = c.opening("status", os.O_RDONLY, func(*os.File) bool { return os.Chmod(status, 0) == nil })
		c.out = c.opening("out", os.O_RDONLY, nil)
		c.err = c.opening("err", os.O_RDONLY, nil)
		c.in = c.opening("in", os.O_WRONLY, func(f *os.File) bool {
			if c.stat.file() == nil {
				return false
			}
			_, err := f.Write([]byte(ch.token + "\n"))
			return err == nil
		})
	}
	return c
}

// opening opens a FIFO in the background, then calls then (nil: nothing)
// on it; a false from then closes it.
func (c *channeled) opening(name string, flag int, then func(*os.File) bool) *fifo {
	f := &fifo{opened: make(chan struct{})}
	c.copiers.Add(1)
	go func() {
		defer c.copiers.Done()
		defer close(f.opened)
		file, err := c.open(name, flag)
		if err != nil {
			return
		}
		if then != nil && !then(file) {
			c.close(file)
			return
		}
		f.f = file
	}()
	return f
}

// open opens one of the channel's FIFOs, waiting for the sandbox to open
// its end; Release gives the wait up by opening that end itself.
func (c *channeled) open(name string, flag int) (*os.File, error) {
	path := filepath.Join(c.ch.dir, name)
	type opened struct {
		f   *os.File
		err error
	}
	got := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(path, flag, 0)
		got <- opened{f, err}
	}()
	select {
	case o := <-got:
		if o.err != nil {
			return nil, o.err
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.shut {
			o.f.Close()
			return nil, errChannelClosed
		}
		c.files[o.f] = struct{}{}
		return o.f, nil
	case <-c.done:
		// Open the other end until the waiting open has its partner: it may
		// not have entered the kernel yet, and a partner gone before it did
		// would leave it waiting for ever.
		other := syscall.O_RDONLY | syscall.O_NONBLOCK
		if flag&(os.O_WRONLY|os.O_RDWR) == 0 {
			other = syscall.O_WRONLY | syscall.O_NONBLOCK
		}
		for {
			partner, _ := os.OpenFile(path, other, 0)
			select {
			case o := <-got:
				if partner != nil {
					partner.Close()
				}
				if o.f != nil {
					o.f.Close()
				}
				return nil, errChannelClosed
			case <-time.After(10 * time.Millisecond):
				if partner != nil {
					partner.Close()
				}
			}
		}
	}
}

// Stream implements Started: stdin goes into in (after the token the
// sandbox's start was given), out and err are copied into the writers, and
// the status line ends the run.
func (c *channeled) Stream(stdin []byte, stdout, stderr io.Writer) {
	c.outputs = make(chan struct{})
	c.copiers.Add(4)
	go func() {
		defer c.copiers.Done()
		in := c.in.file()
		if in == nil {
			return
		}
		// A program that exits without reading leaves the write to fail:
		// its exit status tells what happened.
		if _, err := in.Write(stdin); err == nil {
			c.close(in)
		}
	}()
	var outs sync.WaitGroup
	outs.Add(2)
	for from, w := range map[*fifo]io.Writer{c.out: stdout, c.err: stderr} {
		go func() {
			defer c.copiers.Done()
			defer outs.Done()
			if f := from.file(); f != nil {
				io.Copy(w, f)
			}
		}()
	}
	go func() { outs.Wait(); close(c.outputs) }()
	go func() {
		defer c.copiers.Done()
		f := c.stat.file()
		if f == nil {
			return
		}
		// Lines without the token are the hook's, which can open the FIFO
		// by its path: read past (a long one in pieces), never believed.
		r := bufio.NewReaderSize(f, 256)
		whole := true // the line read starts a line
		for {
			line, err := r.ReadSlice('\n')
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				return
			}
			starts := whole
			whole = err == nil
			if !starts || !whole {
				continue
			}
			code, ok := strings.CutPrefix(strings.TrimSuffix(string(line), "\n"), c.ch.token+" ")
			if n, err := strconv.Atoi(code); ok && err == nil && n >= 0 && n <= 255 {
				c.status <- Exit{Code: n}
				return
			}
		}
	}()
}

// Exited implements Started: the status line, or the engine's report of
// the exit (a program killed before it could write one).
func (c *channeled) Exited() <-chan Exit {
	c.exitOnce.Do(func() {
		go func() {
			select {
			case e := <-c.status:
				c.exitC <- e
			case e := <-c.Started.Exited():
				c.exitC <- e
			case <-c.done: // released with neither: a kill whose exit never came
				c.exitC <- Exit{Err: errChannelClosed} // for a resident program's watcher
			}
		}()
	})
	return c.exitC
}

// Drain implements Started: out and err end when the last process holding
// them does, or are cut after grace.
func (c *channeled) Drain(grace time.Duration) bool {
	if c.outputs == nil {
		return true
	}
	select {
	case <-c.outputs:
		return true
	case <-time.After(grace):
		c.cut()
		<-c.outputs
		return false
	}
}

// cut gives up the opens still waiting and closes what is open: every
// copier ends.
func (c *channeled) cut() {
	c.cutOnce.Do(func() {
		close(c.done)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.shut = true
		for f := range c.files {
			f.Close()
		}
	})
}

// Release implements Started.
func (c *channeled) Release() {
	c.release.Do(func() {
		c.cut()
		c.copiers.Wait()
		c.Started.Release()
	})
}

// Remove implements Started: the sandbox, then its channel's directory.
func (c *channeled) Remove(ctx context.Context) error {
	err := c.Started.Remove(ctx)
	return errors.Join(err, os.RemoveAll(c.ch.dir))
}

// Duplex implements Started for a resident program: in stays open for
// what the caller writes, out and err are copied into the writers until
// the program ends.
func (c *channeled) Duplex(stdout, stderr io.Writer) io.WriteCloser {
	c.outputs = make(chan struct{})
	w := &fifoWriter{opened: make(chan struct{})}
	c.copiers.Add(3)
	go func() {
		defer c.copiers.Done()
		w.f, w.err = c.open("in", os.O_WRONLY)
		close(w.opened)
	}()
	var outs sync.WaitGroup
	outs.Add(2)
	for name, dst := range map[string]io.Writer{"out": stdout, "err": stderr} {
		go func() {
			defer c.copiers.Done()
			defer outs.Done()
			if f, err := c.open(name, os.O_RDONLY); err == nil {
				io.Copy(dst, f)
			}
		}()
	}
	go func() { outs.Wait(); close(c.outputs) }()
	return w
}

// close closes a FIFO that open returned, before Release does.
func (c *channeled) close(f *os.File) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.files, f)
	f.Close()
}

// nextRun implements runStreams: the FIFOs of a resident program's next
// run, opened now. The run has ended when its output has and its input is
// closed: a write still open on rin would put the rest of this run's input
// before the next run's, on the same FIFO.
func (c *channeled) nextRun() func(stdin []byte, stdout, stderr io.Writer) <-chan struct{} {
	in, out, err := c.opening("rin", os.O_WRONLY, nil), c.opening("rout", os.O_RDONLY, nil), c.opening("rerr", os.O_RDONLY, nil)
	return func(stdin []byte, stdout, stderr io.Writer) <-chan struct{} {
		ended := make(chan struct{})
		c.copiers.Add(3)
		var outs sync.WaitGroup
		outs.Add(3)
		go func() {
			defer c.copiers.Done()
			defer outs.Done()
			if f := in.file(); f != nil {
				f.Write(stdin) // fails once the run ended without reading it all
				c.close(f)
			}
		}()
		for from, w := range map[*fifo]io.Writer{out: stdout, err: stderr} {
			go func() {
				defer c.copiers.Done()
				defer outs.Done()
				if f := from.file(); f != nil {
					io.Copy(w, f)
					c.close(f)
				}
			}()
		}
		go func() { outs.Wait(); close(ended) }()
		return ended
	}
}

// fifoWriter writes into a FIFO whose open may still be waiting for the
// program's end: a write waits for the open (which Release ends).
type fifoWriter struct {
	opened chan struct{}
	f      *os.File
	err    error
}

func (w *fifoWriter) Write(p []byte) (int, error) {
	<-w.opened
	if w.err != nil {
		return 0, w.err
	}
	return w.f.Write(p)
}

// Close closes the FIFO once open; Release closes it in any case.
func (w *fifoWriter) Close() error {
	go func() {
		<-w.opened
		if w.f != nil {
			w.f.Close()
		}
	}()
	return nil
}
