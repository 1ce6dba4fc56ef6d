package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/containerd"
	"github.com/hookexec/hook-exec/backend/docker"
)

// RuntimeSetup says where `hook-exec runtime setup` writes.
type RuntimeSetup struct {
	// Path is the runtime's program ("": found on PATH).
	Path string
	// WrapperDir gets containerd.RunscWrapper ("": /usr/local/sbin).
	WrapperDir string
	// DaemonConfig is the Docker engine's daemon.json ("": docker.DaemonConfig);
	// "-" leaves Docker alone.
	DaemonConfig string
	// PIDFile names the dockerd to reload ("": /var/run/docker.pid).
	PIDFile string
	// Log gets one line per thing done or found done.
	Log func(format string, args ...any)
}

// reloadTimeout bounds the wait for a reloaded dockerd to list a runtime.
const reloadTimeout = 30 * time.Second

// SetupRunsc makes runsc usable by both engines, changing only what is not
// so yet: containerd's wrapper (runsc with backend.RunscArgs, for its runc
// shim) and Docker's daemon.json runtime "runsc" with those arguments;
// a changed daemon.json is reloaded (SIGHUP: running containers stay) and
// waited for.
func SetupRunsc(ctx context.Context, o RuntimeSetup) error {
	runsc, err := o.program(backend.Runsc, "gVisor's runsc is not installed (Debian: apt-get install runsc)")
	if err != nil {
		return err
	}
	if o.WrapperDir == "" {
		o.WrapperDir = "/usr/local/sbin"
	}
	wrapper := filepath.Join(o.WrapperDir, containerd.RunscWrapper)
	script := fmt.Sprintf("#!/bin/sh\n# Written by `hook-exec runtime setup runsc`: gVisor for containerd's runc\n# shim, which passes no arguments (see hook-exec's backend.RunscArgs).\nexec %s %s \"$@\"\n",
		shellQuote(runsc), strings.Join(backend.RunscArgs, " "))
	changed, err := writeIfChanged(wrapper, []byte(script), 0o755)
	if err != nil {
		return err
	}
	o.Log("containerd: %s %s", wrapper, doneWord(changed))
	return o.dockerRuntime(ctx, backend.Runsc, runsc, backend.RunscArgs)
}

// SetupCrun makes crun usable by both engines: containerd runs it by its
// name under the runc shim, as it finds it on PATH (nothing to write);
// Docker gets the daemon.json runtime "crun", reloaded as for runsc.
func SetupCrun(ctx context.Context, o RuntimeSetup) error {
	crun, err := o.program(backend.Crun, "crun is not installed (Debian: apt-get install crun)")
	if err != nil {
		return err
	}
	if err := backend.CrunUnsupported(); err != nil {
		return err
	}
	o.Log("containerd: %s runs under the runc shim by name (--runtime crun): nothing to write", crun)
	return o.dockerRuntime(ctx, backend.Crun, crun, nil)
}

// program is the runtime's program: o.Path, else name found on PATH.
func (o *RuntimeSetup) program(name, missing string) (string, error) {
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	if o.Path == "" {
		p, err := exec.LookPath(name)
		if err != nil {
			return "", fmt.Errorf("%w: %s: %w", backend.ErrRuntime, missing, err)
		}
		o.Path = p
	}
	return filepath.Abs(o.Path)
}

// dockerRuntime sets daemon.json's runtime name to path with args and
// reloads the engine when that changed it.
func (o RuntimeSetup) dockerRuntime(ctx context.Context, name, path string, args []string) error {
	if o.DaemonConfig == "-" {
		return nil
	}
	if o.DaemonConfig == "" {
		o.DaemonConfig = docker.DaemonConfig
	}
	old, err := os.ReadFile(o.DaemonConfig)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	cfg, changed, err := withRuntime(old, name, path, args)
	if err != nil {
		return fmt.Errorf("%s: %w", o.DaemonConfig, err)
	}
	if !changed {
		o.Log("docker: runtime %q in %s already set", name, o.DaemonConfig)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(o.DaemonConfig), 0o755); err != nil {
		return err
	}
	// A daemon.json that is a link is written where it leads, with the
	// mode it has: the link and its permissions stay the operator's.
	target, mode := o.DaemonConfig, os.FileMode(0o644)
	if real, err := filepath.EvalSymlinks(o.DaemonConfig); err == nil {
		target = real
	}
	if fi, err := os.Stat(target); err == nil {
		mode = fi.Mode().Perm()
	}
	if _, err := writeIfChanged(target, cfg, mode); err != nil {
		return err
	}
	o.Log("docker: runtime %q written to %s", name, o.DaemonConfig)
	return reloadDocker(ctx, o, name, args)
}

// withRuntime is the daemon.json data with runtimes[name] set to path and
// args (none: no "runtimeArgs"); every other setting is kept. changed is
// false when it was so already.
func withRuntime(data []byte, name, path string, args []string) (_ []byte, changed bool, _ error) {
	cfg := map[string]any{}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &cfg); err != nil {
			return nil, false, err
		}
	}
	rts, _ := cfg["runtimes"].(map[string]any)
	if rts == nil {
		if _, ok := cfg["runtimes"]; ok {
			return nil, false, errors.New(`"runtimes" is not an object`)
		}
		rts = map[string]any{}
	}
	want := map[string]any{"path": path}
	if len(args) > 0 {
		list := []any{}
		for _, a := range args {
			list = append(list, a)
		}
		want["runtimeArgs"] = list
	}
	if reflect.DeepEqual(rts[name], want) {
		return data, false, nil
	}
	rts[name] = want
	cfg["runtimes"] = rts
	out, err := json.MarshalIndent(cfg, "", "  ")
	return append(out, '\n'), true, err
}

// reloadDocker sends the engine SIGHUP and waits until it lists runtime
// name with args.
func reloadDocker(ctx context.Context, o RuntimeSetup, name string, args []string) error {
	if o.PIDFile == "" {
		o.PIDFile = "/var/run/docker.pid"
	}
	b, err := os.ReadFile(o.PIDFile)
	if err != nil {
		o.Log("docker: no running engine found (%v): it reads the runtime when it starts", err)
		return nil
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 1 {
		return fmt.Errorf("%s: not a pid: %q", o.PIDFile, b)
	}
	// A stale pid file can name another program by now: signal dockerd only.
	if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); err != nil || strings.TrimSpace(string(comm)) != "dockerd" {
		o.Log("docker: pid %d of %s is not dockerd (%q): restart the engine to have it read the runtime", pid, o.PIDFile, strings.TrimSpace(string(comm)))
		return nil
	}
	proc, err := os.FindProcess(pid)
	if err == nil {
		err = proc.Signal(syscall.SIGHUP)
	}
	if err != nil {
		return fmt.Errorf("reload dockerd (pid %d): %w", pid, err)
	}
	d, err := docker.New()
	if err != nil {
		return err
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(ctx, reloadTimeout)
	defer cancel()
	for {
		res, err := d.Client().Info(ctx, client.InfoOptions{})
		if err == nil {
			if rt, ok := res.Info.Runtimes[name]; ok && slices.Equal(rt.Args, args) {
				o.Log("docker: engine (pid %d) reloaded; it lists runtime %q", pid, name)
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: dockerd (pid %d) did not list runtime %q within %s of its reload: see its log",
				backend.ErrRuntime, pid, name, reloadTimeout)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// writeIfChanged atomically replaces path with data unless it holds it.
func writeIfChanged(path string, data []byte, mode os.FileMode) (bool, error) {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return false, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err := errors.Join(err, f.Sync(), f.Close()); err != nil {
		return false, err
	}
	return true, os.Rename(f.Name(), path)
}

// shellQuote quotes s for sh as one word.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func doneWord(changed bool) string {
	if changed {
		return "written"
	}
	return "already in place"
}
