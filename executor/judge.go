package executor

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
)

// stderrExcerptBytes is how much of the end of stderr a trace keeps.
const stderrExcerptBytes = 2048

// secretWindowBytes is how far before the excerpt redaction reads: more
// than the longest secret (an 8192-bit RSA key block is about 6.5 KiB).
const secretWindowBytes = 16 << 10

// judge reads the outcome: a kill, a launcher failure, or the hook's
// answer in its dialect.
func judge(h *hook.Hook, env *hook.Envelope, out *backend.Outcome) (*hook.Decision, *failure) {
	code := out.ExitCode
	switch {
	case out.TimedOut:
		return nil, fail(hook.FailTimeout, fmt.Errorf("hook ran past its %v timeout and was killed", h.Timeout))
	case out.Truncated:
		return nil, fail(hook.FailOutputLimit, fmt.Errorf("hook wrote more than %d bytes of output and was killed", h.MaxOutputBytes))
	case out.OOMKilled:
		return nil, fail(hook.FailOOM, fmt.Errorf("hook ran out of memory (exit %d)", code))
	}
	if err := launcher.Failure(code, out.Stderr); err != nil && len(h.Command) == 0 {
		if errors.Is(err, launcher.ErrMissingProgram) {
			return nil, fail(hook.FailMissingProgram, err)
		}
		return nil, fail(hook.FailLauncherError, err)
	}
	stderr := out.Stderr
	if hint := readOnlyHint(h, code, stderr); hint != "" {
		stderr = append(slices.Clip(stderr), hint...)
	}
	d, err := h.Dialect.Host().Interpret(env, code, out.Stdout, stderr)
	switch {
	case errors.Is(err, hook.ErrMissing):
		return nil, fail(hook.FailMissingProgram, err)
	case errors.Is(err, hook.ErrExit):
		return nil, fail(hook.FailExitNonzero, err)
	case err != nil:
		return nil, fail(hook.FailInvalidDecision, err)
	}
	if h.Mode == hook.Observational && (d.Action != hook.Allow || len(d.Mutations) > 0) {
		return d, fail(hook.FailInvalidDecision, fmt.Errorf("an observational hook answered %s: it may only allow", d.Action))
	}
	return d, nil
}

// excerpt is the end of stderr, redacted before it is cut: a cut inside a
// secret (a key block whose BEGIN line falls before it) would leave a rest
// that no pattern knows. Redaction reads only a window longer than the
// excerpt by more than any secret, so its cost does not grow with the
// output cap.
func excerpt(stderr []byte) string {
	if len(stderr) > stderrExcerptBytes+secretWindowBytes {
		stderr = stderr[len(stderr)-stderrExcerptBytes-secretWindowBytes:]
	}
	s := hook.Redact(strings.ToValidUTF8(string(stderr), "\uFFFD"))
	if len(s) > stderrExcerptBytes {
		s = s[len(s)-stderrExcerptBytes:]
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// readOnly finds a path a write was refused at, as shells, coreutils,
// busybox and Python say it: "/p: Read-only file system", "cannot create
// directory '/p': Read-only file system", "[Errno 30] Read-only file
// system: '/p'".
var readOnly = regexp.MustCompile(`create directory ['\x{2018}]([^'\x{2019}\n]+)['\x{2019}]: Read-only file system|(/[^\s:'"]+): Read-only file system|Read-only file system: '(/[^'\n]+)'`)

// readOnlyHint is the line a failed run's message gains when the hook
// could not write in the project, which is read-only to hooks: what it
// could not write, and the approval that lets it (a directory's, with a
// trailing slash, when it was a directory it made). "" for a run that
// answered (exit 0, or 2, the hosts' block) or wrote nowhere there.
func readOnlyHint(h *hook.Hook, code int, stderr []byte) string {
	if code == 0 || code == 2 || h.Workspace == "" || h.WorkspaceRW {
		return ""
	}
	for _, m := range readOnly.FindAllSubmatchIndex(stderr, 8) {
		var p string
		for g := 1; g <= 3; g++ {
			if m[2*g] >= 0 {
				p = string(stderr[m[2*g]:m[2*g+1]])
			}
		}
		rel, err := filepath.Rel(h.Workspace, filepath.Clean(p))
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		// A directory it made: mkdir said so, or Python's makedirs (the
		// line before names it), or the path is one.
		line := stderr[max(0, m[0]-200):m[1]]
		fi, serr := os.Lstat(filepath.Join(h.Workspace, rel))
		if m[2] >= 0 || bytes.Contains(line, []byte("makedirs")) || bytes.Contains(line, []byte("mkdir")) || (serr == nil && fi.IsDir()) {
			rel += "/"
		}
		if hook.CheckWritable(rel) != nil {
			continue
		}
		return fmt.Sprintf("\nhook-exec: the project is read-only to hooks, and this one could not write %s: `hook-exec install %s --writable %s` lets it (a copy of it, written back)", rel, h.Dialect, rel)
	}
	return ""
}
