// Package engineenv is the environment that decides where and how
// hook-exec runs a hook (the engine and its endpoint, the runtime, the
// state directory, the programs it starts), and the sealed environment an
// installed hook command runs in instead of the one its host hands it.
//
// A host passes a project's settings to its hook commands as environment
// (a host's settings "env", a hook's own "env", a project's
// .env): a project that set DOCKER_HOST=ssh://x and HOOKEXEC_SSH=bash
// would run its own file on the host at every hook call. An installed
// command says --sealed: every such name the host hands it is dropped, and
// the values come from the file the installing user's install wrote in
// their state directory instead. Std only: the front seals itself before
// it looks for the user's server.
package engineenv

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
)

// Flag is the word of an installed command that asks for the sealed
// environment.
const Flag = "--sealed"

// FileName is the file in the state directory that holds the values the
// installing user chose (install writes it from their environment).
const FileName = "engine.json"

// SystemPath is PATH in a sealed environment: the system's programs,
// never a directory a project could have put first.
const SystemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// frontMarker is the variable the front tells the core what became of the
// server it asked with; the front sets it after sealing, so it is kept.
const frontMarker = "HOOKEXEC_FRONT"

// pinnable are the names the pinned file may hold: the user's engine,
// runtime, server and telemetry configuration (OTEL_* too), and HOME when
// the installing user's is not the password database's (a test's home).
var pinnable = []string{
	"HOME",
	"HOOKEXEC_BACKEND", "HOOKEXEC_RUNTIME", "HOOKEXEC_CONTAINERD_ADDRESS", "HOOKEXEC_CONTAINERD_SNAPSHOTTER",
	"HOOKEXEC_SSH", "HOOKEXEC_REAPER", "HOOKEXEC_SERVER", "HOOKEXEC_SERVER_IDLE",
	"DOCKER_HOST", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH", "DOCKER_API_VERSION", "DOCKER_CONTEXT", "DOCKER_CONFIG",
	"KUBECONFIG",
}

// Pinnable reports whether the pinned file may hold name.
func Pinnable(name string) bool {
	return slices.Contains(pinnable, name) || strings.HasPrefix(name, "OTEL_")
}

// steeringPrefixes and steeringNames are what no environment handed to a
// hook may set: hook-exec's and its engines' configuration, what ssh
// reads, what the dynamic loader and the shells run before any program,
// and every PATH-like list.
var (
	steeringPrefixes = []string{"HOOKEXEC_", "DOCKER_", "CONTAINERD_", "SSH_", "OTEL_", "LD_", "DYLD_", "XDG_"}
	steeringNames    = []string{"KUBECONFIG", "HOME", "TMPDIR", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "GODEBUG", "GOTRACEBACK", "GOMAXPROCS"}
)

// Steers reports whether a variable named name changes where or how
// hook-exec runs a hook, or what runs before it: a hook's own "env" that
// names one is refused at install.
func Steers(name string) bool {
	for _, p := range steeringPrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return slices.Contains(steeringNames, name) || strings.HasSuffix(name, "PATH")
}

// Chooses reports whether a variable named name chooses the program a
// shell's command line runs, or runs code before it: what a project's own
// environment (a host's settings "env", a project's .env) may not set
// where a committed hook command finds hook-exec by the host's PATH.
func Chooses(name string) bool {
	for _, p := range []string{"LD_", "DYLD_", "BASH_FUNC_"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return slices.Contains([]string{"PATH", "HOME", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "IFS", "CDPATH"}, name)
}

// engineFlags are the flags a sealed command line may not carry: what they
// set is the user's pinned choice. Installed commands never write them.
var engineFlags = []string{"server", "no-server", "backend", "runtime", "containerd-address", "kubeconfig", "kube-context", "k8s-namespace", "state-dir"}

// valueFlags are the flags of an installed command whose values come from
// a hook's own words (its arguments, its env): a value there is not a flag.
var valueFlags = []string{"arg", "env"}

// Sealed reports whether a command line asks for the sealed environment,
// and the state directory it names: only right after Flag, as install
// writes it (--state-dir D, "" for the default). A sealed line that sets
// an engine flag, or a state directory anywhere else, is an error: the
// front and the core would read it differently. Words after "--" are not
// looked at.
func Sealed(argv []string) (sealed bool, stateDir string, err error) {
	at := -1
	for i, a := range argv {
		if a == "--" {
			break
		}
		if a == Flag || a == "-"+Flag[2:] {
			at = i
			break
		}
	}
	if at < 0 {
		return false, "", nil
	}
	skip := -1 // the state directory's own words
	if at+1 < len(argv) {
		if v, ok := flagValue(argv[at+1], "state-dir"); ok {
			stateDir, skip = v, at+1
		} else if argv[at+1] == "--state-dir" && at+2 < len(argv) {
			stateDir, skip = argv[at+2], at+2
		}
	}
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			break
		}
		if i <= skip && i > at {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") {
			continue
		}
		if slices.Contains(valueFlags, name) && !strings.Contains(a, "=") {
			i++ // its value
			continue
		}
		if slices.Contains(engineFlags, name) {
			return false, "", fmt.Errorf("a sealed command line takes its engine and state from the user's pinned file, not %s", a)
		}
	}
	return true, stateDir, nil
}

// flagValue is the value of a --name=V or -name=V word.
func flagValue(a, name string) (string, bool) {
	for _, p := range []string{"--" + name + "=", "-" + name + "="} {
		if v, ok := strings.CutPrefix(a, p); ok {
			return v, true
		}
	}
	return "", false
}

// ErrPinned: the pinned file is not one the user alone could have written.
var ErrPinned = errors.New("the pinned engine file is not the user's own")

// Seal is the environment a sealed command runs in: environ without any
// name that Steers (SSH_AUTH_SOCK, the user's agent, and the front's
// marker kept), HOME the user's own from the password database, PATH the
// system's, XDG_RUNTIME_DIR the user's when it is theirs alone,
// HOOKEXEC_STATE_DIR stateDir (when given), then the values of the user's
// pinned file in the state directory.
func Seal(environ []string, stateDir string) ([]string, error) {
	u, err := user.LookupId(fmt.Sprint(os.Getuid()))
	if err != nil {
		return nil, fmt.Errorf("seal the environment: find the user's home: %w", err)
	}
	if !filepath.IsAbs(u.HomeDir) {
		return nil, fmt.Errorf("seal the environment: the user's home %q is not an absolute path", u.HomeDir)
	}
	if stateDir != "" && !filepath.IsAbs(stateDir) {
		return nil, fmt.Errorf("seal the environment: --state-dir %q: want an absolute path", stateDir)
	}
	out := slices.DeleteFunc(slices.Clone(environ), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return name != "SSH_AUTH_SOCK" && name != frontMarker && (Steers(name) || name == "PATH")
	})
	out = append(out, "HOME="+u.HomeDir, "PATH="+SystemPath)
	if d := filepath.Join("/run/user", fmt.Sprint(os.Getuid())); ownDir(d) {
		out = append(out, "XDG_RUNTIME_DIR="+d)
	}
	// The state directory is the command's, else the default of the home
	// the password database gives (a pinned HOME is read from the file
	// found there).
	dir := stateDir
	if dir == "" {
		dir = DefaultStateDir(u.HomeDir)
	} else {
		out = append(out, "HOOKEXEC_STATE_DIR="+stateDir)
	}
	pinned, err := Read(dir)
	if err != nil {
		return nil, err
	}
	out = slices.DeleteFunc(out, func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		_, mine := pinned[name]
		return mine
	})
	for _, k := range slices.Sorted(maps.Keys(pinned)) {
		out = append(out, k+"="+pinned[k])
	}
	return out, nil
}

// DefaultStateDir is the state directory of a user whose home is home and
// whose environment says nothing of it.
func DefaultStateDir(home string) string {
	return filepath.Join(home, ".local", "state", "hook-exec")
}

// ownDir reports whether dir is a directory of this user's that no one
// else may write.
func ownDir(dir string) bool {
	info, err := os.Lstat(dir)
	return err == nil && info.IsDir() && owner(info) == os.Getuid() && info.Mode().Perm()&0o022 == 0
}

// maxFile bounds the pinned file.
const maxFile = 64 << 10

// pinnedDoc is the pinned file.
type pinnedDoc struct {
	Env map[string]string `json:"env"`
}

// Read is the pinned values in the state directory dir, nil when there is
// no file. A file another user owns, one others may write, or one reached
// through a link is ErrPinned; a name that is not Pinnable an error.
func Read(dir string) (map[string]string, error) {
	path := filepath.Join(dir, FileName)
	f, err := openNoFollow(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrPinned, path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || owner(info) != os.Getuid() || info.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("%w: %s: want a regular file of uid %d that only it may write", ErrPinned, path, os.Getuid())
	}
	b, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxFile {
		return nil, fmt.Errorf("%s: over %d bytes", path, maxFile)
	}
	var doc pinnedDoc
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for k, v := range doc.Env {
		if err := check(k, v); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return doc.Env, nil
}

// check says what is wrong with a pinned value.
func check(k, v string) error {
	switch {
	case !Pinnable(k):
		return fmt.Errorf("$%s: not a name hook-exec pins", k)
	case strings.ContainsAny(k+v, "\x00\n"):
		return fmt.Errorf("$%s: a NUL or a newline", k)
	case k == "HOOKEXEC_SSH" && !filepath.IsAbs(v):
		return fmt.Errorf("$HOOKEXEC_SSH %q: want the absolute path of the ssh program", v)
	case k == "HOME" && !filepath.IsAbs(v):
		return fmt.Errorf("$HOME %q: want an absolute path", v)
	}
	return nil
}

// Of is the pinnable values of environ: what install pins of the
// installing user's environment. An ssh program (HOOKEXEC_SSH, or ssh for
// a DOCKER_HOST=ssh:// engine) is pinned as the absolute path PATH finds
// now, so that no later PATH chooses it.
func Of(environ []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range environ {
		if k, v, _ := strings.Cut(kv, "="); Pinnable(k) {
			m[k] = v // the last of a name, as getenv reads it
		}
	}
	if home, ok := m["HOME"]; ok {
		if u, err := user.LookupId(fmt.Sprint(os.Getuid())); err == nil && filepath.Clean(home) == filepath.Clean(u.HomeDir) {
			delete(m, "HOME")
		}
	}
	ssh, named := m["HOOKEXEC_SSH"]
	if !named && strings.HasPrefix(m["DOCKER_HOST"], "ssh://") {
		ssh = "ssh"
	}
	if ssh != "" && !filepath.IsAbs(ssh) {
		p, err := exec.LookPath(ssh)
		if err == nil && !filepath.IsAbs(p) {
			err = fmt.Errorf("found as %s, not an absolute path", p)
		}
		if err != nil {
			return nil, fmt.Errorf("$HOOKEXEC_SSH %q: %w", ssh, err)
		}
		ssh = p
	}
	if ssh != "" {
		m["HOOKEXEC_SSH"] = ssh
	}
	for k, v := range m {
		if err := check(k, v); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Write replaces the pinned file in dir with m, readable by the user only.
func Write(dir string, m map[string]string) error {
	for k, v := range m {
		if err := check(k, v); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(pinnedDoc{Env: m}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+FileName+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(dir, FileName))
}

// SealProcess seals this process's environment when argv asks for it
// (Sealed): what the rest of the program, and every process it starts,
// reads from then on.
func SealProcess(argv []string) error {
	sealed, dir, err := Sealed(argv)
	if err != nil || !sealed {
		return err
	}
	env, err := Seal(os.Environ(), dir)
	if err != nil {
		return err
	}
	os.Clearenv()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if err := os.Setenv(k, v); err != nil {
			return fmt.Errorf("seal the environment: %w", err)
		}
	}
	return nil
}
