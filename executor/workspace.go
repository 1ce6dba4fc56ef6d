package executor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/sandbox"
)

// ErrWorkspace is the class of refused workspaces and mounts.
var ErrWorkspace = errors.New("workspace refused")

// mountOptions resolves the hook's workspace and mounts into sandbox
// options, refusing before any container exists: a path that is not an
// absolute directory, a path reached through a link, a workspace outside
// the allowed roots, a root-owned read-write workspace not loosened. ws is
// the workspace mounted (at its own path), "" for none.
func mountOptions(h *hook.Hook, env *hook.Envelope) (opts []sandbox.Option, ws string, _ error) {
	add := func(m sandbox.Mount) {
		if h.WorkspaceRW {
			opts = append(opts, sandbox.WithWritableMount(m))
		} else {
			opts = append(opts, sandbox.WithMount(m))
		}
	}
	asRoot := false // the run is as root: the sweep after it covers host directories only
	dir, roots := h.Workspace, h.AllowRoots
	if dir != "" {
		roots = append([]string{dir}, roots...)
	} else if len(roots) > 0 {
		dir = env.Workspace
	}
	if dir != "" {
		clean, err := checkDir(dir)
		if err != nil {
			return nil, "", err
		}
		if !insideAny(clean, roots) {
			return nil, "", fmt.Errorf("%w: %q is outside the allowed roots %q: add it with --allow-root", ErrWorkspace, dir, roots)
		}
		if h.WorkspaceRW {
			st, err := ownerOf(clean)
			if err != nil {
				return nil, "", fmt.Errorf("%w: %q: %w", ErrWorkspace, dir, err)
			}
			if st.Uid == 0 && !h.AllowRootOwned {
				return nil, "", fmt.Errorf("%w: %q is owned by root: a read-write workspace runs the hook as its owner; loosen that explicitly to allow root's", ErrWorkspace, dir)
			}
			if st.Uid == 0 {
				// As its owner, as for any other: uid 65534 could write nothing there.
				opts = append(opts, sandbox.WithRootOwner())
				asRoot = true
			} else {
				opts = append(opts, sandbox.WithUser(st.Uid, st.Gid))
			}
		}
		add(sandbox.Mount{Source: clean, Target: clean})
		ws = clean
		if h.WorkspaceRW {
			// Its .git stays read-only: the hooks and config there are what
			// the owner's own git runs on the host, outside any sandbox.
			if fi, err := os.Lstat(filepath.Join(clean, ".git")); err == nil && fi.IsDir() {
				opts = append(opts, sandbox.WithMount(sandbox.Mount{Source: filepath.Join(clean, ".git"), Target: filepath.Join(clean, ".git")}))
			}
		}
	}
	for _, m := range h.Mounts {
		if !m.Volume {
			clean, err := checkDir(m.Source)
			if err != nil {
				return nil, "", err
			}
			m.Source = clean
		}
		// An engine's volume is no host directory the sweep after a run as
		// root could walk: such a run gets it read-only.
		if m.ReadOnly || (m.Volume && asRoot) {
			opts = append(opts, sandbox.WithMount(sandbox.Mount{Source: m.Source, Target: m.Target, Volume: m.Volume}))
		} else {
			add(sandbox.Mount{Source: m.Source, Target: m.Target, Volume: m.Volume})
		}
	}
	return opts, ws, nil
}

// workingDir is where a hook starts, by its host's contract
// (Sandbox.EventCwd): the event's cwd, which must be the mounted workspace
// or inside it, or its private directory (""). ws is the mounted workspace.
// An event that names no cwd starts in the workspace where the host runs
// its hooks there (Sandbox.WorkspaceCwd), and so does every event of a
// host that runs them there whatever the event's cwd (Copilot).
func workingDir(h *hook.Hook, env *hook.Envelope, ws string) string {
	sb := h.Dialect.Host().Sandbox()
	if sb.WorkspaceCwd && ws != "" && (env.Workspace == "" || !sb.EventCwd) {
		return ws
	}
	if !sb.EventCwd || ws == "" || !filepath.IsAbs(env.Workspace) {
		return ""
	}
	if cwd := filepath.Clean(env.Workspace); insideAny(cwd, []string{ws}) {
		return cwd
	}
	return ""
}

// checkDir returns the cleaned absolute path of a directory that no link
// leads to.
func checkDir(dir string) (string, error) {
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%w: %q is not an absolute path", ErrWorkspace, dir)
	}
	clean := filepath.Clean(dir)
	fi, err := os.Lstat(clean)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrWorkspace, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return "", fmt.Errorf("%w: %q is a link: name the directory itself", ErrWorkspace, dir)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: %q is not a directory", ErrWorkspace, dir)
	}
	if real, err := filepath.EvalSymlinks(clean); err != nil || real != clean {
		return "", fmt.Errorf("%w: %q is reached through a link (it is %q): name the directory itself", ErrWorkspace, dir, real)
	}
	return clean, nil
}

func insideAny(dir string, roots []string) bool {
	for _, r := range roots {
		r = filepath.Clean(r)
		if dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) || r == "/" {
			return true
		}
	}
	return false
}

// maxHazardScan bounds the entries a hazard scan looks at, except after a
// run as root (see hazards).
const maxHazardScan = 20000

// hazardPath is an entry's path from the workspace as a trace shows it: a
// path that is long on purpose (deeper than PATH_MAX) keeps its end.
func hazardPath(rel string) string {
	if len(rel) > 300 {
		return "..." + rel[len(rel)-300:]
	}
	return rel
}
