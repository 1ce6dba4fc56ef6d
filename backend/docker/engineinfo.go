package docker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

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

// NoLimits says why the engine would discard a sandbox's memory or pids
// limit, so that no sandbox is made there (nil: it enforces both).
func (b *Backend) NoLimits(ctx context.Context) error {
	if err := b.learn(ctx); err != nil {
		return err
	}
	b.flavourMu.Lock()
	defer b.flavourMu.Unlock()
	return b.flavour.noLimits
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
		// The file is read back before every sandbox: one removed (a
		// cleaned cache) is written again, and one changed since (by
		// anything but this process) is put back before the engine reads it.
		path := strings.TrimPrefix(f.seccompOpt, "seccomp=")
		if !holdsProfile(path) {
			path, err := writeProfile(filepath.Dir(path))
			if err != nil {
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

// learnBound bounds asking the engine what it is: the other runs wait
// for the answer.
const learnBound = 30 * time.Second

// learn asks the engine what it is, once it answers.
func (b *Backend) learn(ctx context.Context) error {
	f := &b.flavour
	b.flavourMu.Lock()
	defer b.flavourMu.Unlock()
	if f.known {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, learnBound)
	defer cancel()
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
	in := res.Info
	memory, pids := in.MemoryLimit, in.PidsLimit
	rootless := slices.Contains(in.SecurityOptions, "name=rootless")
	switch {
	case rootless && in.CgroupVersion != "2":
		// Rootless Podman on cgroup v1 drops every limit at create
		// ("not supported and ignored"), while its /info says memory.
		memory, pids = false, false
	case rootless && f.podman:
		// Its /info reads the host's controllers, not the user's: what
		// is delegated is in libpod's own.
		if memory, pids, err = b.podmanControllers(ctx); err != nil {
			return b.engineErr("libpod info", err)
		}
	}
	f.noLimits = limitsRefusal(memory, pids, in.CgroupVersion, in.CgroupDriver, b.cli.DaemonHost())
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

// podmanControllers reads the cgroup controllers a rootless Podman's
// containers get (libpod's /info: host.cgroupControllers).
func (b *Backend) podmanControllers(ctx context.Context) (memory, pids bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://podman/v4.0.0/libpod/info", nil)
	if err != nil {
		return false, false, err
	}
	dial := b.cli.Dialer()
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return dial(ctx) }}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return false, false, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, false, fmt.Errorf("libpod info: %s", resp.Status)
	}
	var info struct {
		Host struct {
			CgroupControllers []string `json:"cgroupControllers"`
		} `json:"host"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&info); err != nil {
		return false, false, fmt.Errorf("libpod info: %w", err)
	}
	c := info.Host.CgroupControllers
	return slices.Contains(c, "memory"), slices.Contains(c, "pids"), nil
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
	if holdsProfile(path) {
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

// holdsProfile says whether path is a regular file of this user's holding
// exactly the profile (a link is not followed).
func holdsProfile(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	profile := backend.SeccompProfile()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != int64(len(profile)) || !backend.OwnedByMe(fi) {
		return false
	}
	got, err := io.ReadAll(io.LimitReader(f, int64(len(profile))+1))
	return err == nil && string(got) == profile
}
