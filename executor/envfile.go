package executor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/sandbox"
)

// EnvFileTarget is the hook's env file (Hook.EnvFileOut), where its
// host's variable (Sandbox.EnvFileVar) points.
const EnvFileTarget = "/hookexec/env/env"

// maxEnvFileBytes bounds what a hook may hand its host this way.
const maxEnvFileBytes = 64 << 10

// envWatchInterval is how often a run's env file is measured: past
// maxEnvFileBytes it is emptied, so a hook writing without end fills the
// host's disk with at most what it writes in this long.
const envWatchInterval = 20 * time.Millisecond

// envOut is a run's env file: one file, writable by the hook,
// inside a private directory of the host's, mounted alone (the hook can
// create nothing beside it: the sandbox's root is read-only). After the
// run its lines are read, each checked, and written to the host's file
// re-quoted so that sourcing them runs nothing.
type envOut struct {
	parent, file string
	stop         chan struct{}
	done         chan struct{}
	overflow     atomic.Bool
}

func newEnvOut() (*envOut, error) {
	parent, err := os.MkdirTemp("", envOutPrefix)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(parent, "env")
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = errors.Join(f.Chmod(0o666), f.Close()) // the hook runs as another user; the parent stays 0700
	}
	if err != nil {
		os.RemoveAll(parent)
		return nil, err
	}
	return &envOut{parent: parent, file: file}, nil
}

// watch empties the file whenever it grows past the bound, until
// stopWatching; the run's answer then takes nothing from it.
func (o *envOut) watch() {
	o.stop, o.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(o.done)
		t := time.NewTicker(envWatchInterval)
		defer t.Stop()
		for {
			select {
			case <-o.stop:
				return
			case <-t.C:
			}
			if fi, err := os.Lstat(o.file); err == nil && fi.Size() > maxEnvFileBytes {
				o.overflow.Store(true)
				os.Truncate(o.file, 0)
			}
		}
	}()
}

func (o *envOut) stopWatching() {
	if o.stop != nil {
		close(o.stop)
		<-o.done
		o.stop = nil
	}
}

// remove deletes the directory; the run is over, so nothing of the hook's
// can be in the way (it could create nothing there).
func (o *envOut) remove() error {
	o.stopWatching()
	return os.RemoveAll(o.parent)
}

// envLine is NAME=VALUE, with an optional export and a value unquoted,
// single-quoted or double-quoted without expansions.
var envLine = regexp.MustCompile(`^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=(?:'([^']*)'|"([^"$` + "`" + `\\]*)"|([A-Za-z0-9_./:,+=@%-]*))$`)

// collect appends the hook's accepted lines to dst, as export NAME='VALUE',
// and returns the lines it refused, each saying why.
// Only names in allow are taken: a blocklist of names that make a host run
// something cannot be complete (PIP_INDEX_URL, VISUAL, CC, GOTOOLCHAIN,
// ANTHROPIC_BASE_URL ...), so the operator names what a hook may set.
func (o *envOut) collect(dst string, allow []string, name string) (accepted int, refused []string, err error) {
	o.stopWatching()
	if o.overflow.Load() {
		return 0, []string{fmt.Sprintf("%s grew over %d bytes during the run: nothing taken", name, maxEnvFileBytes)}, nil
	}
	p := o.file
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	if !fi.Mode().IsRegular() {
		return 0, []string{name + " is not a regular file (a link?): nothing taken"}, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !os.SameFile(fi, st) {
		return 0, []string{name + " changed while it was read: nothing taken"}, nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxEnvFileBytes+1))
	if err != nil {
		return 0, nil, err
	}
	if len(b) > maxEnvFileBytes {
		return 0, []string{fmt.Sprintf("%s is over %d bytes: nothing taken", name, maxEnvFileBytes)}, nil
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), maxEnvFileBytes+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		m := envLine.FindStringSubmatch(line)
		if m == nil {
			refused = append(refused, fmt.Sprintf("line %d: not NAME=VALUE without expansions", n))
			continue
		}
		if !slices.Contains(allow, m[1]) {
			refused = append(refused, fmt.Sprintf("line %d: %s is not among the names --env-file-allow gives", n, m[1]))
			continue
		}
		if w, ok := runsPrograms(m[1]); ok {
			refused = append(refused, fmt.Sprintf("line %d: %s decides what the host runs (%s): a hook does not set it", n, m[1], w))
			continue
		}
		if err := sandbox.CheckName(m[1], hook.VarPrefixes()...); err != nil {
			refused = append(refused, fmt.Sprintf("line %d: %v", n, err))
			continue
		}
		value := m[2] + m[3] + m[4]
		fmt.Fprintf(&out, "export %s='%s'\n", m[1], strings.ReplaceAll(value, "'", `'\''`))
		accepted++
	}
	if err := sc.Err(); err != nil {
		return 0, append(refused, name+" could not be read as lines: nothing taken"), nil
	}
	if accepted == 0 {
		return 0, refused, nil
	}
	w, err := os.OpenFile(dst, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, refused, err
	}
	_, err = w.Write(out.Bytes())
	return accepted, refused, errors.Join(err, w.Close())
}

// programWords mark the variables that choose a program, a search path or
// a configuration the host's next commands would run or load: git's ssh
// command, an editor or pager, a PATH, an options variable, HOME's
// dotfiles. A hook handing its host such a value would run code outside
// the sandbox.
var programWords = []string{"PATH", "COMMAND", "EDITOR", "PAGER", "ASKPASS", "BROWSER", "SHELL", "OPTIONS", "OPTS",
	"GIT_", "SSH", "LESS", "HOME", "CONFIG", "EXEC", "PROMPT", "HOOK", "PLUGIN", "PRELOAD", "LIBRARY", "INCLUDE"}

func runsPrograms(name string) (string, bool) {
	up := strings.ToUpper(name)
	for _, w := range programWords {
		if strings.Contains(up, w) {
			return w, true
		}
	}
	return "", false
}
