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

	"github.com/hookexec/hook-exec/sandbox"
)

// EnvFileTarget is where a hook finds its CLAUDE_ENV_FILE's directory.
const EnvFileTarget = "/hookexec/env"

// maxEnvFileBytes bounds what a hook may hand its host this way.
const maxEnvFileBytes = 64 << 10

// envOut is a run's CLAUDE_ENV_FILE: a directory of its own, writable by
// the hook, inside a private one of the host's; after the run its lines
// are read (never through a link), each checked, and written to the host's
// file re-quoted so that sourcing them runs nothing.
type envOut struct{ parent, dir string }

func newEnvOut() (*envOut, error) {
	parent, err := os.MkdirTemp("", "hookexec-envout-")
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(parent, "out")
	if err := os.Mkdir(dir, 0o700); err == nil {
		err = os.Chmod(dir, 0o777) // the hook runs as another user; the parent stays 0700
	}
	if err != nil {
		os.RemoveAll(parent)
		return nil, err
	}
	return &envOut{parent: parent, dir: dir}, nil
}

func (o *envOut) remove() { os.RemoveAll(o.parent) }

// envLine is NAME=VALUE, with an optional export and a value unquoted,
// single-quoted or double-quoted without expansions.
var envLine = regexp.MustCompile(`^(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=(?:'([^']*)'|"([^"$` + "`" + `\\]*)"|([A-Za-z0-9_./:,+=@%-]*))$`)

// collect appends the hook's accepted lines to dst, as export NAME='VALUE',
// and returns the lines it refused, each saying why.
// Only names in allow are taken: a blocklist of names that make a host run
// something cannot be complete (PIP_INDEX_URL, VISUAL, CC, GOTOOLCHAIN,
// ANTHROPIC_BASE_URL ...), so the operator names what a hook may set.
func (o *envOut) collect(dst string, allow []string) (accepted int, refused []string, err error) {
	p := filepath.Join(o.dir, "env")
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil, nil
	}
	if err != nil {
		return 0, nil, err
	}
	if !fi.Mode().IsRegular() {
		return 0, []string{"CLAUDE_ENV_FILE is not a regular file (a link?): nothing taken"}, nil
	}
	f, err := os.Open(p)
	if err != nil {
		return 0, nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !os.SameFile(fi, st) {
		return 0, []string{"CLAUDE_ENV_FILE changed while it was read: nothing taken"}, nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxEnvFileBytes+1))
	if err != nil {
		return 0, nil, err
	}
	if len(b) > maxEnvFileBytes {
		return 0, []string{fmt.Sprintf("CLAUDE_ENV_FILE is over %d bytes: nothing taken", maxEnvFileBytes)}, nil
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
		if err := sandbox.CheckName(m[1]); err != nil {
			refused = append(refused, fmt.Sprintf("line %d: %v", n, err))
			continue
		}
		value := m[2] + m[3] + m[4]
		fmt.Fprintf(&out, "export %s='%s'\n", m[1], strings.ReplaceAll(value, "'", `'\''`))
		accepted++
	}
	if err := sc.Err(); err != nil {
		return 0, append(refused, "CLAUDE_ENV_FILE could not be read as lines: nothing taken"), nil
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
