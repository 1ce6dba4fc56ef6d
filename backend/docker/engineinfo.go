package docker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
)

// podmanComponent is how Podman's Docker-compatible API names itself in
// the version's components.
const podmanComponent = "Podman Engine"

// flavour is what the engine behind the Docker API is, asked once
// (Backend.flavourMu guards it).
type flavour struct {
	known  bool
	podman bool
	// noLimits says why the engine would discard a sandbox's memory or
	// pids limit (nil: it enforces both): rootless Docker on cgroup v1,
	// or on v2 without the controllers delegated.
	noLimits error
	// seccompOpt is the SecurityOpt that gives the engine hook-exec's
	// seccomp profile: the profile itself for Docker, a file's path for
	// Podman, whose compat API opens the value as a path.
	seccompOpt string
}

// IsPodman says whether the engine is Podman (its Docker-compatible API,
// `podman system service`).
func (b *Backend) IsPodman(ctx context.Context) (bool, error) {
	if err := b.learn(ctx); err != nil {
		return false, err
	}
	b.flavourMu.Lock()
	defer b.flavourMu.Unlock()
	return b.flavour.podman, nil
}

// seccompOpt is the SecurityOpt naming hook-exec's seccomp profile in the
// form the engine takes; an error for an engine that cannot hold a
// sandbox to its limits.
func (b *Backend) seccompOpt(ctx context.Context) (string, error) {
	if err := b.learn(ctx); err != nil {
		return "", err
	}
	f := &b.flavour
	b.flavourMu.Lock()
	defer b.flavourMu.Unlock()
	if f.noLimits != nil {
		return "", f.noLimits
	}
	if f.podman {
		// A cleaned cache must not fail every later run: the file is
		// written again when it is gone.
		path := strings.TrimPrefix(f.seccompOpt, "seccomp=")
		if _, err := os.Stat(path); err != nil {
			if path, err = writeProfile(filepath.Dir(path)); err != nil {
				return "", fmt.Errorf("%w: Podman takes a seccomp profile only as a file: %w", backend.ErrEngine, err)
			}
			f.seccompOpt = "seccomp=" + path
		}
	}
	return f.seccompOpt, nil
}

// podman says whether the engine, already asked, is Podman.
func (b *Backend) podman() bool {
	b.flavourMu.Lock()
	defer b.flavourMu.Unlock()
	return b.flavour.podman
}

// learn asks the engine what it is, once it answers.
func (b *Backend) learn(ctx context.Context) error {
	f := &b.flavour
	b.flavourMu.Lock()
	defer b.flavourMu.Unlock()
	if f.known {
		return nil
	}
	v, err := b.cli.ServerVersion(ctx, client.ServerVersionOptions{})
	if err != nil {
		return b.engineErr("version", err)
	}
	for _, c := range v.Components {
		if c.Name == podmanComponent {
			f.podman = true
		}
	}
	res, err := b.cli.Info(ctx, client.InfoOptions{})
	if err != nil {
		return b.engineErr("info", err)
	}
	f.noLimits = limitsRefusal(res.Info.MemoryLimit, res.Info.PidsLimit, res.Info.CgroupVersion, res.Info.CgroupDriver, b.cli.DaemonHost())
	f.seccompOpt = "seccomp=" + backend.SeccompProfile()
	if f.podman {
		path, err := writeProfile(backend.CacheDir())
		if err != nil {
			return fmt.Errorf("%w: Podman takes a seccomp profile only as a file: %w", backend.ErrEngine, err)
		}
		f.seccompOpt = "seccomp=" + path
	}
	f.known = true
	return nil
}

// limitsRefusal is the error for an engine that would discard a
// sandbox's memory or pids limit, as rootless Docker does on cgroup v1
// ("Limitation discarded", a warning at create): a memory bomb would run
// unbounded until its timeout. nil when it enforces both.
func limitsRefusal(memory, pids bool, cgroupVersion, driver, host string) error {
	var missing []string
	if !memory {
		missing = append(missing, "memory")
	}
	if !pids {
		missing = append(missing, "pids")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %w: the engine at %s cannot enforce a sandbox's %s limit (cgroup v%s, driver %q): "+
		"a rootless engine needs cgroup v2 with the memory and pids controllers delegated to its user "+
		"(systemd's Delegate=; boot with systemd.unified_cgroup_hierarchy=1 where cgroup v1 is mounted)",
		backend.ErrEngine, backend.ErrNoLimits, host, strings.Join(missing, " and "), cgroupVersion, driver)
}

// writeProfile writes the seccomp profile to dir/seccomp-DIGEST.json, or
// checks the one there. dir is this user's alone (backend.PrivateDir), so
// that no one can swap a weaker profile in between the write and the
// engine's read.
func writeProfile(dir string) (string, error) {
	if err := backend.PrivateDir(dir); err != nil {
		return "", err
	}
	profile := backend.SeccompProfile()
	sum := sha256.Sum256([]byte(profile))
	path := filepath.Join(dir, "seccomp-"+hex.EncodeToString(sum[:8])+".json")
	if got, err := os.ReadFile(path); err == nil && string(got) == profile {
		return path, nil
	}
	tmp, err := os.CreateTemp(dir, ".seccomp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(profile); err != nil {
		tmp.Close()
		return "", err
	}
	// The engine reads it: rootful Podman as root, rootless as this user.
	if err := errors.Join(tmp.Chmod(0o644), tmp.Close()); err != nil {
		return "", err
	}
	return path, os.Rename(tmp.Name(), path)
}

// notPodmanPath says whether a create's error is Podman not finding the
// profile file: the engine does not see this machine's files there.
func notPodmanPath(err error) bool {
	return err != nil && strings.Contains(err.Error(), "opening seccomp profile failed")
}
