package hook

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// refusedNames are files a hook must never write back, wherever they are:
// the hosts' own hook and tool configuration, the environment Gemini CLI
// loads, and what tools run on their own (a shell's, direnv's, npm's,
// git's). A hook that rewrote one would run code outside any sandbox.
// Compared case-folded: on macOS and Windows, Settings.json is
// settings.json.
var refusedNames = map[string]bool{
	"settings.json": true, "settings.local.json": true, "hooks.json": true, ".mcp.json": true, "mcp.json": true,
	".env": true, ".envrc": true, ".claude.json": true, ".npmrc": true, ".yarnrc": true, ".yarnrc.yml": true,
	"package.json": true, ".pnpmfile.cjs": true, "makefile": true, ".gitattributes": true, ".gitmodules": true,
	".gitconfig": true, ".bashrc": true, ".profile": true, ".zshrc": true,
}

// neverDirs are directories no writable path may be in, at any depth:
// git's, and those whose files tools and editors run (git hooks managers,
// CI, editors' tasks, dev containers).
var neverDirs = map[string]bool{".git": true, ".husky": true, ".githooks": true, ".github": true, ".vscode": true, ".idea": true, ".devcontainer": true}

// hostDirs are the agent hosts' own directories: a hook's state may be in
// one at the project's top (.claude/hook-state/), never one of them whole,
// never in the subdirectories whose files the host runs or reads as
// hooks (hooks, skills, agents, commands, extensions ...), and never
// one nested deeper (a nested .claude/skills is found too).
var hostDirs = map[string]bool{".claude": true, ".cursor": true, ".gemini": true}

// hostCode are the subdirectories of a host's directory that hold what
// the host runs: hooks, and the skills, agents and extensions whose
// front matter or manifests carry hooks of their own.
var hostCode = map[string]bool{"hooks": true, "skills": true, "agents": true, "commands": true, "extensions": true, "plugins": true, "rules": true, "output-styles": true, "workflows": true, "policies": true}

// plainName is a name a Writable path is made of.
var plainName = regexp.MustCompile(`^[A-Za-z0-9._-]*[A-Za-z0-9_-]$`)

// RefusedName reports whether a file or directory of that name never goes
// back from a hook's writable copy: not a plain name, a host's
// configuration, git's, a directory whose files tools run.
func RefusedName(name string) bool {
	n := strings.ToLower(name)
	return !plainName.MatchString(name) || refusedNames[n] || neverDirs[n] || hostDirs[n] || strings.HasPrefix(n, ".env")
}

// CheckWritable applies the rules of a Writable entry, by its name alone:
// a clean path inside the workspace of plain names (a file system that
// folds case, normalises Unicode or has short names cannot make another
// name of a refused one), none of git's nor of a directory tools run
// files from, no host's configuration, nothing a host runs (its hooks,
// skills, agents, extensions); a host's directory only at the workspace's
// top, and a directory (a trailing slash) never a host's whole.
func CheckWritable(rel string) error {
	rel = strings.TrimSuffix(rel, "/")
	if rel == "" || !filepath.IsLocal(rel) || filepath.Clean(rel) != rel {
		return errors.New("not a clean path inside the workspace")
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for i, p := range parts {
		if !plainName.MatchString(p) {
			return fmt.Errorf("%q is not a plain name (letters, digits, '.', '_', '-'; not ending in '.')", p)
		}
		n := strings.ToLower(p)
		switch {
		case neverDirs[n]:
			return fmt.Errorf("%s stays read-only: git's files, or files tools run", p)
		case hostDirs[n] && i > 0:
			return fmt.Errorf("%s: a host's directory below the workspace's top stays read-only", p)
		case refusedNames[n], strings.HasPrefix(n, ".env"):
			return errors.New("a host's hook or tool configuration, or a file tools run, stays read-only")
		}
	}
	if hostDirs[strings.ToLower(parts[0])] {
		switch {
		case len(parts) == 1:
			return errors.New("a host's own directory stays read-only: name the file or directory the hook keeps its state in")
		case hostCode[strings.ToLower(parts[1])]:
			return fmt.Errorf("%s/%s stays read-only: the host runs what is there", parts[0], parts[1])
		}
	}
	return nil
}

// TmpDataTree is what h's kept /tmp belongs to: its plugin's root; a
// project's hook, the project (ws); else its script's pinned tree, or its
// script's directory; a command's, its ID. The hooks of one plugin or
// project share it, as they share /tmp on the host (a PreToolUse hook
// notes what a PostToolUse one reads, a UserPromptSubmit one resets a
// counter), and a hook of another never sees it.
func (h *Hook) TmpDataTree(ws string) string {
	switch {
	case h.PluginRoot != "":
		return filepath.Clean(h.PluginRoot)
	case h.Scope == ScopeProject && ws != "":
		return ws
	case h.ScriptRoot != "":
		return filepath.Clean(h.ScriptRoot)
	case h.Script != "":
		return filepath.Dir(filepath.Join(h.PluginDir, h.Script))
	}
	return "id:" + h.ID
}

// TmpDataDir is where the /tmp of the hooks of tree (see
// Hook.TmpDataTree: a plugin's root, a project, a script's tree) is kept
// in stateDir: what `install` shows in its plan. asRoot: the runs of root's
// that stay root's (a plugin's data directory is root's) keep one of
// their own, so that no file one of them leaves is out of reach of the
// others, which run as uid 65534.
func TmpDataDir(stateDir, tree string, asRoot bool) string {
	if asRoot {
		tree += "\x00root"
	}
	sum := sha256.Sum256([]byte(tree))
	return filepath.Join(filepath.Clean(stateDir), "tmp", hex.EncodeToString(sum[:12]))
}
