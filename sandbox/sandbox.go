// Package sandbox describes the container a hook runs in: hardened by
// default, every loosening an option named for what it loosens. It only
// describes; converting to an engine's own configuration (Docker's, the OCI
// runtime-spec, a pod) is each backend's job.
package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// Label keys put on every container and engine object, so that a sweep can
// find what a dead hook-exec left behind.
const (
	LabelManaged    = "io.hookexec.managed" // always "true"
	LabelOwnerHost  = "io.hookexec.owner.host"
	LabelOwnerPID   = "io.hookexec.owner.pid"
	LabelOwnerStart = "io.hookexec.owner.start" // the owner's start time, against pid reuse
	LabelExecution  = "io.hookexec.execution"   // the run's execution id, as in its trace
	LabelPool       = "io.hookexec.pool"        // a sandbox started ahead of its run
)

// Defaults of the hardened sandbox.
const (
	DefaultUser       = "65534:65534"
	DefaultMemory     = 256 << 20
	DefaultPids       = 64
	DefaultNanoCPUs   = 1e9
	DefaultTmpfsBytes = 16 << 20
	DefaultNoFile     = 256
	DefaultFileSize   = 16 << 20 // RLIMIT_FSIZE
)

// ErrInvalid is the class of every refused sandbox description.
var ErrInvalid = errors.New("invalid sandbox")

// Spec is one hardened container description. Build it with [New]; the
// zero value is not hardened.
type Spec struct {
	Image string // required by container backends; the local backend has none
	Argv  []string
	Env   []string // NAME=VALUE, exactly what the container gets beside the image's own
	User  string   // uid:gid
	// WorkingDir is where the launcher starts; the script runs in its own
	// private directory below /tmp.
	WorkingDir string

	Memory     int64 // bytes; swap is held equal to it (no swap)
	Pids       int64
	NanoCPUs   int64
	TmpfsBytes int64 // size of the /tmp tmpfs
	NoFile     uint64
	FileSize   uint64

	ReadOnlyRoot    bool
	NoNetwork       bool
	NoNewPrivileges bool
	DropAllCaps     bool
	TmpNoExec       bool

	Labels map[string]string
	// Channel: the image has sh, so a backend whose engine runs on this
	// machine may hand the program's stdin, output and exit status over
	// FIFOs in a mounted directory the engine does not relay (see
	// backend.Channels).
	Channel bool
	// Resident: the program serves run after run on its stdin and stdout
	// (a reused sandbox's agent). Over a channel it replaces the wrapper
	// and stays the sandbox's init, given the channel's directory as a
	// last argument (its runs' own FIFOs are there); its exit is the
	// engine's to report.
	Resident bool
	// Mounts are the workspace (and a session's mounts), read-only unless
	// loosened with WithWritableMount.
	Mounts []Mount
	// TmpDir is a host directory mounted read-write at /tmp in place of
	// the tmpfs (WithTmpDir): the caller bounds what is written there.
	TmpDir string
}

// Mount is a host directory (or an engine volume) seen in the sandbox.
type Mount struct {
	Source   string // host path, or the volume's name
	Target   string // absolute path in the sandbox
	ReadOnly bool
	Volume   bool // Source names an engine volume, not a host path
}

// Option changes a Spec. Options apply in order; a later one wins.
type Option func(*Spec) error

// New returns the hardened description of a container that runs argv in
// image: non-root 65534:65534, read-only root, /tmp a small nosuid,nodev,
// noexec tmpfs, no network, no capabilities, no-new-privileges, pids, memory
// (swap equal), CPU, open-file and file-size limits, and the managed label.
func New(image string, argv []string, opts ...Option) (*Spec, error) {
	s := &Spec{
		Image:           image,
		Argv:            slices.Clone(argv),
		User:            DefaultUser,
		WorkingDir:      "/",
		Memory:          DefaultMemory,
		Pids:            DefaultPids,
		NanoCPUs:        DefaultNanoCPUs,
		TmpfsBytes:      DefaultTmpfsBytes,
		NoFile:          DefaultNoFile,
		FileSize:        DefaultFileSize,
		ReadOnlyRoot:    true,
		NoNetwork:       true,
		NoNewPrivileges: true,
		DropAllCaps:     true,
		TmpNoExec:       true,
		Labels:          map[string]string{LabelManaged: "true"},
	}
	for _, o := range opts {
		if err := o(s); err != nil {
			return nil, err
		}
	}
	if len(s.Argv) == 0 {
		return nil, fmt.Errorf("%w: no command", ErrInvalid)
	}
	return s, nil
}

// WithLimits sets the memory (bytes), pids and CPU (in billionths of a CPU)
// limits. A zero keeps the default; a negative value is refused: there is
// no "unlimited".
func WithLimits(memory, pids, nanoCPUs int64) Option {
	return func(s *Spec) error {
		if memory < 0 || pids < 0 || nanoCPUs < 0 {
			return fmt.Errorf("%w: negative limit", ErrInvalid)
		}
		if memory > 0 {
			if memory < 6<<20 {
				return fmt.Errorf("%w: memory %d bytes is below the engine's 6 MiB minimum", ErrInvalid, memory)
			}
			s.Memory = memory
		}
		if pids > 0 {
			s.Pids = pids
		}
		if nanoCPUs > 0 {
			s.NanoCPUs = nanoCPUs
		}
		return nil
	}
}

// WithEnv sets the container's environment: the result of [Env].
func WithEnv(env []string) Option {
	return func(s *Spec) error {
		s.Env = slices.Clone(env)
		return nil
	}
}

// WithLabels adds labels; the managed label cannot be removed or changed.
func WithLabels(l map[string]string) Option {
	return func(s *Spec) error {
		if v, ok := l[LabelManaged]; ok && v != "true" {
			return fmt.Errorf("%w: label %s is reserved", ErrInvalid, LabelManaged)
		}
		maps.Copy(s.Labels, l)
		return nil
	}
}

// WithMount adds a read-only mount. Target must be absolute; a mount that
// would hide the root, the launcher's /tmp, /proc or /dev is refused (one
// below /tmp is fine: the engine mounts it on the tmpfs).
func WithMount(m Mount) Option {
	return func(s *Spec) error {
		if !strings.HasPrefix(m.Target, "/") || m.Source == "" {
			return fmt.Errorf("%w: mount %q -> %q: want a source and an absolute target", ErrInvalid, m.Source, m.Target)
		}
		if t := path.Clean(m.Target); t == "/" || t == "/tmp" || t == "/proc" || strings.HasPrefix(t, "/proc/") || t == "/dev" || strings.HasPrefix(t, "/dev/") {
			return fmt.Errorf("%w: mount target %q would hide part of the sandbox", ErrInvalid, m.Target)
		}
		m.ReadOnly = true
		s.Mounts = append(s.Mounts, m)
		return nil
	}
}

// Loosenings. Each gives up one default protection; the name says which.

// WithWritableMount adds a read-write mount: the hook can change the host
// files under it (a formatter). Pair it with WithUser for the files' owner.
func WithWritableMount(m Mount) Option {
	return func(s *Spec) error {
		if err := WithMount(m)(s); err != nil {
			return err
		}
		s.Mounts[len(s.Mounts)-1].ReadOnly = false
		return nil
	}
}

// WithTmpDir mounts dir, a host directory, read-write at /tmp in place of
// the sandbox's empty tmpfs: what a hook keeps in /tmp is there at its next
// run, as on the host. The tmpfs's size no longer bounds /tmp (the caller
// does: the executor watches it), and under Docker a bind cannot be
// noexec.
func WithTmpDir(dir string) Option {
	return func(s *Spec) error {
		if !path.IsAbs(dir) || path.Clean(dir) == "/" {
			return fmt.Errorf("%w: /tmp's directory %q is not an absolute directory below /", ErrInvalid, dir)
		}
		s.TmpDir = path.Clean(dir)
		return nil
	}
}

// WithNetwork gives the container the engine's default network: it can
// reach other hosts.
func WithNetwork() Option { return func(s *Spec) error { s.NoNetwork = false; return nil } }

// WithWritableRoot makes the root filesystem writable.
func WithWritableRoot() Option { return func(s *Spec) error { s.ReadOnlyRoot = false; return nil } }

// WithExecTmp lets programs written to /tmp be executed.
func WithExecTmp() Option { return func(s *Spec) error { s.TmpNoExec = false; return nil } }

// WithWorkingDir starts the container's program in dir (absolute): a
// command hook in its event's cwd. A script's launcher finds its own.
func WithWorkingDir(dir string) Option {
	return func(s *Spec) error {
		if !path.IsAbs(dir) {
			return fmt.Errorf("%w: working directory %q is not absolute", ErrInvalid, dir)
		}
		s.WorkingDir = path.Clean(dir)
		return nil
	}
}

// WithRootOwner runs as uid 0 (gid 0), still without any capability and
// with no-new-privileges: the owner of root-owned files, so it can write a
// root-owned read-write workspace (which must be loosened explicitly too),
// and no more: without CAP_DAC_OVERRIDE, files of other owners keep their
// modes.
func WithRootOwner() Option { return func(s *Spec) error { s.User = RootUser; return nil } }

// RootUser is Spec.User of a sandbox WithRootOwner made.
const RootUser = "0:0"

// WithUser runs as uid:gid instead of 65534:65534. Root (uid 0) is refused
// here: there is no reason for a hook to run as root.
func WithUser(uid, gid uint32) Option {
	return func(s *Spec) error {
		if uid == 0 || gid == 0 {
			return fmt.Errorf("%w: a hook never runs as root", ErrInvalid)
		}
		s.User = fmt.Sprintf("%d:%d", uid, gid)
		return nil
	}
}
