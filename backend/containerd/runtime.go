package containerd

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/containerd/containerd/api/types/runc/options"

	"github.com/hookexec/hook-exec/backend"
)

// Runtimes containerd is asked for.
const (
	runcShim  = "io.containerd.runc.v2"
	runscShim = "io.containerd.runsc.v1"
)

// RunscWrapper is the runc-compatible program `hook-exec runtime setup
// runsc` installs: runsc with backend.RunscArgs, which containerd's runc
// shim has no way to pass (it takes a binary, not arguments).
const RunscWrapper = "runsc-hookexec"

// runtime is how containerd is told to run a sandbox.
type runtime struct {
	name   string           // as asked for; "" is runc
	typ    string           // the shim
	opts   *options.Options // the runc shim's options; nil for its defaults
	gvisor bool             // pids count gVisor's own tasks
}

// resolveRuntime turns a runtime's name into a shim and its options:
//   - "" or runc: containerd's runc shim as it is;
//   - io.containerd.*: that shim, configured by its own files;
//   - runsc: the RunscWrapper under the runc shim, else gVisor's own shim
//     (containerd-shim-runsc-v1) when installed;
//   - any other name or an absolute path: that runc-compatible binary
//     (crun, a wrapper) under the runc shim.
//
// lookPath finds programs on the machine containerd runs on (the same one,
// for the unix sockets this backend dials), in root's directories only. A
// runsc named by its path would run without backend.RunscArgs, and is
// refused: the wrapper carries them.
func resolveRuntime(name string, lookPath func(string) (string, error)) (runtime, error) {
	switch {
	case name == "" || name == "runc":
		return runtime{name: name, typ: runcShim}, nil
	case !backend.ValidRuntimeName(name):
		return runtime{}, fmt.Errorf("%w: %q is neither a runtime's name nor an absolute path", backend.ErrRuntime, name)
	case strings.HasPrefix(name, "io.containerd."):
		return runtime{name: name, typ: name}, nil
	case name == backend.Runsc:
		if bin, err := lookPath(RunscWrapper); err == nil {
			return runtime{name: name, typ: runcShim, opts: &options.Options{BinaryName: bin}, gvisor: true}, nil
		}
		if _, err := lookPath("containerd-shim-runsc-v1"); err == nil {
			return runtime{name: name, typ: runscShim, gvisor: true}, nil
		}
		return runtime{}, fmt.Errorf("%w: runsc on containerd needs %s (runsc %s, for containerd's runc shim) or gVisor's containerd-shim-runsc-v1 on PATH: "+
			"`hook-exec runtime setup runsc`, as root, installs the first", backend.ErrRuntime, RunscWrapper, strings.Join(backend.RunscArgs, " "))
	default:
		bin, err := lookPath(name)
		if err != nil {
			return runtime{}, fmt.Errorf("%w: runtime %q: %w", backend.ErrRuntime, name, err)
		}
		if filepath.Base(bin) == backend.Crun {
			if err := backend.CrunUnsupported(); err != nil {
				return runtime{}, err
			}
		}
		if backend.IsRunsc(bin) {
			return runtime{}, fmt.Errorf("%w: %s would run without %s (no network, the seccomp profile enforced): use --runtime runsc, which runs it through %s",
				backend.ErrRuntime, name, strings.Join(backend.RunscArgs, " "), RunscWrapper)
		}
		return runtime{name: name, typ: runcShim, opts: &options.Options{BinaryName: bin}}, nil
	}
}

// shimOptions are opts as client.WithRuntime takes them: a nil interface,
// not a nil pointer, for the shim's defaults.
func (r runtime) shimOptions() any {
	if r.opts == nil {
		return nil
	}
	return r.opts
}

// SetRuntime makes every later sandbox of b run under the runtime name
// (see resolveRuntime); call it before the first run.
func (b *Backend) SetRuntime(name string) error {
	rt, err := resolveRuntime(name, systemLookPath)
	if err != nil {
		return err
	}
	b.runtime = rt
	b.chans.SetRuntime(name)
	return nil
}

// Runtime is the runtime's name as SetRuntime was given it; "" is runc.
func (b *Backend) Runtime() string { return b.runtime.name }
