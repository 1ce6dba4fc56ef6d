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
// the allowed roots, a root-owned read-write workspace not loosened.
func mountOptions(h *hook.Hook, env *hook.Envelope) ([]sandbox.Option, error) {
	var opts []sandbox.Option
	add := func(m sandbox.Mount) {
		if h.WorkspaceRW {
			opts = append(opts, sandbox.WithWritableMount(m))
		} else {
			opts = append(opts, sandbox.WithMount(m))
		}
	}
	dir, roots := h.Workspace, h.AllowRoots
	if dir != "" {
		roots = append([]string{dir}, roots...)
	} else if len(roots) > 0 {
		dir = env.Workspace
	}
	if dir != "" {
		clean, err := checkDir(dir)
		if err != nil {
			return nil, err
		}
		if !insideAny(clean, roots) {
			return nil, fmt.Errorf("%w: %q is outside the allowed roots %q: add it with --allow-root", ErrWorkspace, dir, roots)
		}
		if h.WorkspaceRW {
			st, err := ownerOf(clean)
			if err != nil {
				return nil, fmt.Errorf("%w: %q: %w", ErrWorkspace, dir, err)
			}
			if st.Uid == 0 && !h.AllowRootOwned {
				return nil, fmt.Errorf("%w: %q is owned by root: a read-write workspace runs the hook as its owner; loosen that explicitly to allow root's", ErrWorkspace, dir)
			}
			if st.Uid != 0 {
				opts = append(opts, sandbox.WithUser(st.Uid, st.Gid))
			}
		}
		add(sandbox.Mount{Source: clean, Target: clean})
	}
	for _, m := range h.Mounts {
		if !m.Volume {
			clean, err := checkDir(m.Source)
			if err != nil {
				return nil, err
			}
			m.Source = clean
		}
		add(sandbox.Mount{Source: m.Source, Target: m.Target, Volume: m.Volume})
	}
	return opts, nil
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
