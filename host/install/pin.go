package install

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/internal/shellsyntax"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/scriptpin"
)

// pin finds what hk's command runs and its digest.
func (h *Target) pin(o Options, f *File, hk *Hook) error {
	if strings.TrimSpace(hk.Command) == "" {
		return errCommand("its command is empty")
	}
	vars := map[string]string{"HOME": o.Home}
	for _, v := range h.ProjectVars {
		if o.Settings == Project {
			vars[v] = o.ProjectDir
		} else if strings.Contains(hk.Command, v) {
			return errCommand("it names $%s, a different directory in each project: install it in the project (hook-exec install %s, without --user)", v, h.Name)
		}
	}
	for _, c := range h.ProjectCommands {
		if !strings.Contains(hk.Command, "$("+c+")") {
			continue
		}
		if o.Settings != Project {
			return errCommand("it runs $(%s), a different directory in each project: install it in the project (hook-exec install %s, without --user)", c, h.Name)
		}
		switch top := projectOf(o.ProjectDir, c); top {
		case o.ProjectDir:
		case "":
			return errCommand("it runs $(%s), which fails in %s (not a repository?), so it names no script: not the project", c, o.ProjectDir)
		default:
			return errCommand("it runs $(%s), which is %s here, not the project %s: install from the directory it names", c, top, o.ProjectDir)
		}
		vars["$("+c+")"] = o.ProjectDir
	}
	if f.Plugin != nil {
		// Claude puts the plugin's directory in place of the variable; the
		// hook runs the approved copy's.
		vars["CLAUDE_PLUGIN_ROOT"] = f.Plugin.Copy
	}
	c := parseCall(hk.Command, vars, o.Home)
	if c == nil {
		// The line is the hook: a bash script of its own, as the host's
		// shell would run it (and the image with the programs such lines
		// call: jq, grep, sed).
		hk.Inline = true
		hk.Body = []byte("#!/bin/bash\n" + hk.Command + "\n")
		hk.Transcript = readsTranscript(hk.Body)
		hk.Writable = granted(o, slices.DeleteFunc(append(stateFiles(hk.Body), projectWrites(launcher.Shell, hk.Body)...),
			func(w string) bool { return !fitsProject(o.ProjectDir, w) }))
		hk.Formats = h.formats(hk.Event, hk.Body)
		hk.PluginData = f.Plugin != nil && bytes.Contains(hk.Body, []byte(pluginDataVar))
		hk.TmpData = keepsTmp(launcher.Shell, hk.Body)
		sum := sha256.Sum256(hk.Body)
		hk.SHA256 = hex.EncodeToString(sum[:])
		hk.Script = filepath.Join(recordDir(o.StateDir, h, f.Path), "inline-"+hk.SHA256[:16]+".sh")
		if committed(o, f) {
			// Beside the file, committed with it: a teammate's clone runs it.
			hk.Script = filepath.Join(sideDir(f.Path), "inline-"+hk.SHA256[:16]+".sh")
		}
		return nil
	}
	path := c.Path
	if !filepath.IsAbs(path) {
		switch {
		case o.Settings == Project:
			path = filepath.Join(o.ProjectDir, path)
		case h.UserBase != "":
			path = filepath.Join(o.Home, h.UserBase, path)
		default:
			return errCommand("script %q is relative: the host runs it from each project's directory; give its full path", path)
		}
	}
	read := path
	if f.Plugin != nil {
		read = f.Plugin.readable(path)
	}
	s, err := scriptpin.ReadShebang(filepath.Dir(read), filepath.Base(read))
	if err != nil {
		return errCommand("script %s: %w", path, err)
	}
	if c.Interp != "" && !interpMatches(c.Interp, s) {
		return errCommand("it runs %s under %s, but the script's name and #! line say %s: name it for its language (.py, .js, .sh) or give it a #! line", path, c.Interp, s.Lang)
	}
	if err := h.runnable(s); err != nil {
		return errCommand("script %s: %w", path, err)
	}
	hk.Script, hk.Args, hk.SHA256 = path, c.Args, s.SHA256.String()
	hk.Writable = append(stateFiles(s.Bytes), projectWrites(s.Lang, s.Bytes)...)
	if f.Plugin == nil {
		h.pinRoot(o, f, hk)
	}
	hk.Writable = granted(o, slices.DeleteFunc(hk.Writable, func(w string) bool { return !fitsProject(o.ProjectDir, w) }))
	hk.Transcript = readsTranscript(s.Bytes)
	hk.Formats = h.formats(hk.Event, s.Bytes)
	hk.PluginData = f.Plugin != nil && (bytes.Contains(s.Bytes, []byte(pluginDataVar)) || strings.Contains(hk.Command, pluginDataVar))
	hk.TmpData = hk.TmpData || keepsTmp(s.Lang, s.Bytes)
	return nil
}

// Bounds of a script's tree install pins whole: a hook's kit, not a
// project.
const (
	maxRootFiles = 256
	maxRootBytes = 8 << 20
)

// pinRoot pins the directory hk's script reads its neighbours from: the
// hooks directory beside the host's file (.claude/hooks) when the script
// is in it, else the script's own directory; never the project or the
// home directory itself, nor a tree past the bounds (said in a note).
func (h *Target) pinRoot(o Options, f *File, hk *Hook) {
	root := filepath.Dir(hk.Script)
	if kit := filepath.Join(filepath.Dir(f.Path), "hooks"); strings.HasPrefix(hk.Script, kit+string(filepath.Separator)) {
		root = kit
	}
	if root == filepath.Clean(o.ProjectDir) || root == filepath.Clean(o.Home) || root == filepath.Dir(root) {
		return
	}
	// The host's hooks files beside the script (Copilot keeps scripts in
	// .github/hooks with them), which install rewrites, and its records
	// beside them are no part of the tree; any other file there is (a
	// blocklist.json the script reads).
	var others []string
	for _, p := range h.files(o) {
		if filepath.Dir(p) == root && h.holdsHooks(p) {
			others = append(others, filepath.Base(p))
		}
	}
	if side := sideDir(f.Path); filepath.Dir(side) == root {
		others = append(others, filepath.Base(side))
	}
	if h.hookFiles() && root == filepath.Dir(f.Path) {
		others = h.hookFileOthers(root)
	}
	files, bytes := 0, int64(0)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root && (scriptpin.Written(d.Name(), d.IsDir()) || filepath.Dir(p) == root && slices.Contains(others, d.Name())) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if files++; files > maxRootFiles {
			return errRootTooLarge
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode().IsRegular() {
			if bytes += info.Size(); bytes > maxRootBytes {
				return errRootTooLarge
			}
		}
		// The sandbox's user (not the owner) reads the tree where it is:
		// a private file there would fail the hook that runs beside it,
		// which its private copy of the script alone does not.
		if need := fs.FileMode(0o004); info.Mode().IsRegular() && info.Mode().Perm()&need == 0 || d.IsDir() && info.Mode().Perm()&0o005 != 0o005 {
			return fmt.Errorf("%s is not readable by others, as the sandbox's user reads it", p)
		}
		return nil
	})
	var d scriptpin.Digest
	if err == nil {
		d, err = scriptpin.ScriptTreeDigest(root, others...)
	}
	if err != nil {
		hk.Note = strings.TrimPrefix(hk.Note+"; ", "; ") + fmt.Sprintf("its directory %s is not pinned whole (%v): the script runs without the files beside it", root, err)
		return
	}
	hk.Root, hk.RootSHA256, hk.RootOthers = root, d.String(), others
	// What the files it sources or imports write is its writing too (a
	// kit's lib/log.sh): those of the tree its script names (lib/log.sh,
	// "import hook_utils"), not its sibling hooks', which would cost each
	// hook its pooled sandbox for what another writes.
	script, _ := os.ReadFile(hk.Script)
	if hk.Inline {
		script = hk.Body // a hook file's, not written yet
	}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == hk.Script {
			return nil
		}
		lang := map[string]launcher.Lang{".sh": launcher.Shell, ".bash": launcher.Shell, ".py": launcher.Python, ".js": launcher.Node, ".mjs": launcher.Node, ".cjs": launcher.Node}[filepath.Ext(p)]
		stem := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		if len(stem) < 3 || !strings.Contains(string(script), stem) {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && lang != "" {
			hk.TmpData = hk.TmpData || keepsTmp(lang, b)
			for _, w := range projectWrites(lang, b) {
				if !slices.Contains(hk.Writable, w) {
					hk.Writable = append(hk.Writable, w)
				}
			}
		}
		return nil
	})
}

var errRootTooLarge = fmt.Errorf("more than %d files or %d bytes", maxRootFiles, maxRootBytes)

// runnable says why a sandbox would refuse s at every call, as the
// executor reads it: a shell its launcher does not run (#!/usr/bin/env
// fish), syntax that shell lacks.
func (h *Target) runnable(s *scriptpin.Script) error {
	if s.Lang != launcher.Shell {
		return nil
	}
	shell := "sh"
	if h.Dialect.Host().Sandbox().Shebang {
		name, _, err := launcher.HostShell(s.Path, s.Bytes)
		if err != nil {
			return err
		}
		shell = cmp.Or(name, shell)
	}
	return shellsyntax.Check(s.Bytes, shell)
}

// statePattern finds the files of a project a hook keeps its own state in:
// the hosts' directories' *.local.* files (Claude Code's name for a
// person's own, uncommitted files, such as ralph-wiggum's
// .claude/ralph-loop.local.md), relative or under the project's variable,
// never their settings.
var statePattern = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-]|PROJECT_DIR\}?"?/)(\.(?:claude|codex|cursor|gemini)/[A-Za-z0-9_-][A-Za-z0-9._-]*\.local\.[A-Za-z0-9]+)\b`)

// stateFiles are the state files a script's bytes name, in order.
func stateFiles(b []byte) []string {
	var out []string
	for _, m := range statePattern.FindAllSubmatch(b, -1) {
		rel := string(m[1])
		// Case-folded: on macOS and Windows, Settings.local.json is the settings.
		if !strings.HasPrefix(strings.ToLower(filepath.Base(rel)), "settings.") && !slices.Contains(out, rel) {
			out = append(out, rel)
		}
	}
	return out
}

// formatter finds a command that rewrites the files it is given in
// place: the formatters hooks run after an edit.
var formatter = regexp.MustCompile(`\b(?:gofmt|goimports|gofumpt)\s[^\n|;&]*-w\b|\bgo\s+fmt\b|--write\b|\bsed\s+(?:-[a-zA-Z]*\s+)*-i|\bsed\s+-[a-zA-Z]*i|\bruff\s+(?:format|check\s[^\n|;&]*--fix)|\bblack\b|\bisort\b|\bautopep8\s[^\n|;&]*-i|\brustfmt\b|\bcargo\s+fmt\b|\bclang-format\s[^\n|;&]*-i|\bshfmt\s[^\n|;&]*-w|\bterraform\s+fmt\b|\bdprint\s+fmt\b|--fix\b|\bmix\s+format\b|\bswiftformat\b|\bktlint\s[^\n|;&]*-F`)

// formats reports whether a hook at event runs a formatter on what an
// edit left (the host's edit events: Claude Code's PostToolUse, Cursor's
// afterFileEdit, Gemini CLI's AfterTool).
func (h *Target) formats(event string, b []byte) bool {
	return slices.Contains(h.EditEvents, event) && formatter.Match(b)
}

// readsTranscript reports whether a script names the host's transcript
// (transcript_path, CURSOR_TRANSCRIPT_PATH): a Stop hook that checks what
// was said, such as Claude Code's ralph-wiggum, reads it.
func readsTranscript(b []byte) bool {
	return bytes.Contains(bytes.ToLower(b), []byte("transcript"))
}

// interpMatches reports whether the interpreter a command names is the one
// hook-exec's launcher picks for s.
func interpMatches(interp string, s *scriptpin.Script) bool {
	switch string(s.Lang) {
	case "py":
		return strings.HasPrefix(interp, "python")
	case "js":
		return interp == "node"
	case "sh":
		return interp == "sh" || interp == "bash" || interp == "dash"
	}
	return false
}

// tmpTree is the tree a run keys hk's kept /tmp by (hook.Hook.TmpDataTree,
// for the command install writes): the plugin's approved copy, the
// project, else the script's pinned tree or its directory.
func tmpTree(o Options, f *File, hk *Hook) string {
	switch {
	case f.Plugin != nil:
		return f.Plugin.Copy
	case o.Settings == Project:
		return o.ProjectDir
	case hk.Root != "":
		return hk.Root
	}
	return filepath.Dir(hk.Script)
}

// tmpOwner names who shares a kept /tmp, as tmpTree keys it.
func tmpOwner(o Options, f *File) string {
	switch {
	case f.Plugin != nil:
		return "plugin"
	case o.Settings == Project:
		return "project"
	}
	return "directory"
}

// projectOf is what a project command (Target.ProjectCommands) says in
// dir, its links resolved to dir's own spelling when it names dir; "" when
// it fails (not a repository, no git).
func projectOf(dir, command string) string {
	cmd := exec.Command("sh", "-c", command) // a command of the hosts table's own
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	top := strings.TrimSpace(string(out))
	if SameDir(top, dir) {
		return dir
	}
	return top
}

// SameDir reports whether a and b are one directory, links resolved.
func SameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
