package install

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hookexec/hook-exec/internal/engineenv"
)

// imageFor is the image f's hooks run in: Image, else the project's own
// for the project's own files; "" for the reference images.
func imageFor(o Options, f *File) string {
	if o.Image == "" && o.Settings == Project && f.Plugin == nil {
		return o.ProjectImage
	}
	return o.Image
}

// minTimeout is the shortest host timeout install takes without a word:
// below it, a sandbox's start (a fraction of a second on a fast engine,
// more on a slow one) leaves the hook little or nothing of it.
const minTimeout = time.Second

// unitName names a host's timeout unit.
func unitName(u time.Duration) string {
	if u == time.Millisecond {
		return "milliseconds"
	}
	return "seconds"
}

// margin is how much sooner than the host hook-exec ends a run: the host
// reads a hook it had to kill as a non-blocking error (an allow), so the
// failure policy's answer must reach it first.
const margin = 2 * time.Second

// command is the hook-exec line that replaces hk's.
func (h *Target) command(o Options, f *File, hk *Hook) string {
	scope, id := "project", h.hookID(f.Path, hk)
	if o.Settings == User {
		scope = "owner"
	}
	if f.Plugin != nil {
		scope, id = "plugin", h.Name+":"+f.Plugin.Key+":"+hk.Event+":"+hookIndex(hk.Pointer)
	}
	timeout := hk.Timeout - margin
	if hk.Timeout < 2*margin {
		timeout = hk.Timeout / 2
	}
	words := []string{"run", engineenv.Flag}
	words = append(words, o.RunFlags...)
	words = append(words, "--dialect", string(h.Dialect), "--scope", scope,
		"--hook-id", id)
	if h.NamesPoint {
		words = append(words, "--point", hk.Event)
	}
	words = append(words,
		"--script", scriptMark, "--sha256", hk.SHA256, "--timeout", timeout.String(),
		"--approve-with", "hook-exec install "+h.Name+scopeFlag(o))
	if f.Plugin != nil {
		words = append(words, "--plugin-root", f.Plugin.Copy, "--plugin-root-sha256", f.Plugin.TreeSHA256)
	}
	if h.MaxOutputBytes > 0 {
		words = append(words, "--max-output-bytes", strconv.FormatInt(h.MaxOutputBytes, 10))
	}
	if hk.Root != "" {
		words = append(words, "--script-root", rootMark, "--script-root-sha256", hk.RootSHA256)
		for _, n := range hk.RootOthers {
			words = append(words, "--script-root-other", n)
		}
	}
	if image := imageFor(o, f); image != "" {
		words = append(words, "--image", image)
	}
	if hk.Transcript {
		words = append(words, "--transcript")
	}
	for _, w := range hk.Writable {
		words = append(words, "--writable", w)
	}
	if hk.Formats {
		words = append(words, "--writable-edited-file")
	}
	if hk.TmpData {
		words = append(words, "--tmp-data")
	}
	for _, e := range hk.Env {
		words = append(words, "--env", e)
	}
	for _, a := range hk.Args {
		words = append(words, "--arg", a)
	}
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch w {
		case scriptMark:
			b.WriteString(h.pathWord(o, f, hk.Script))
			continue
		case rootMark:
			b.WriteString(h.pathWord(o, f, hk.Root))
			continue
		}
		b.WriteString(quote(w))
	}
	if hk.PluginData {
		// The directory Claude gives the plugin's hooks, as it gives it.
		b.WriteString(` --plugin-data "$` + pluginDataVar + `"`)
	}
	// The project the host names, mounted read-only: hooks read it.
	b.WriteString(" --workspace " + h.Workspace)
	return h.shell(guarded(frontWord(o, f), b.String(), h.missingFront(o, hk), h.blocksByStatus(hk.Event)))
}

// scriptMark and rootMark stand for the script's and its tree's words
// while the command is built.
const (
	scriptMark = "\x00script"
	rootMark   = "\x00root"
)

// committed reports whether what install writes into f is committed with
// the project (a team shares the file): a project's own settings, not a
// plugin's hooks file, which is the user's. Its commands name no path of
// this machine, its inline scripts live beside it, and so does what
// uninstall needs (sideFile).
func committed(o Options, f *File) bool { return o.Settings == Project && f.Plugin == nil }

// pathWord is path as an installed command names it: in a committed file,
// through the host's project variable when the path is in the project
// (each clone's own), else as it is.
func (h *Target) pathWord(o Options, f *File, path string) string {
	if h.hookFiles() {
		// The wrapper's own directory, wherever its host runs it from
		// (Cline's CLI: where it was started).
		if rel, err := filepath.Rel(filepath.Dir(f.Path), path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return `"$(dirname "$0")"` + quote("/"+filepath.ToSlash(rel))
		}
	}
	if committed(o, f) {
		if rel, err := filepath.Rel(o.ProjectDir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return h.Workspace + quote("/"+filepath.ToSlash(rel))
		}
	}
	return quote(path)
}

// frontWord is how an installed command finds hook-exec: the user's own
// file names this machine's front by its absolute path; a committed file
// the hook-exec of whoever runs it, on the host's PATH or else where
// `go install` puts it, never a path of the installing machine.
func frontWord(o Options, f *File) string {
	if committed(o, f) {
		return `$(command -v hook-exec || echo "$HOME/go/bin/hook-exec")`
	}
	return quote(o.Front)
}

func scopeFlag(o Options) string {
	if o.Settings == User {
		return " --user"
	}
	return ""
}

// hookID is the id of hk, of the file at path, in traces and the server's
// slots: HOST:EVENT:INDEX, the file's name before the event where the
// host reads several (Copilot's .github/hooks/*.json).
func (h *Target) hookID(path string, hk *Hook) string {
	if h.hookFiles() {
		return h.Name + ":" + filepath.Base(path) + ":" + hk.Event
	}
	id := hk.Event + ":" + hookIndex(hk.Pointer)
	if slices.ContainsFunc(append(slices.Clone(h.ProjectFiles), h.UserFiles...), func(r string) bool { return strings.Contains(r, "*") }) {
		id = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)) + ":" + id
	}
	return h.Name + ":" + id
}

// hookIndex is the part of a command's pointer after /hooks/EVENT/, its
// command's member (command, Copilot's bash) left out.
func hookIndex(ptr string) string {
	parts := strings.Split(ptr[:max(strings.LastIndexByte(ptr, '/'), 0)], "/")
	var idx []string
	for _, p := range parts[3:] {
		if p != "hooks" {
			idx = append(idx, p)
		}
	}
	return strings.Join(idx, ".")
}

func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
