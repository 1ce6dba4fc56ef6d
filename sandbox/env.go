package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/internal/secretname"
)

// ErrEnv is the class of refused environment variables.
var ErrEnv = errors.New("environment variable refused")

// loaderNames change which code a program loads: declaring them would let a
// hook run code nobody reviewed.
var loaderPrefixes = []string{"LD_", "PYTHON", "DYLD_"}
var loaderNames = []string{"BASH_ENV", "ENV", "PERL5LIB", "PERL5OPT", "RUBYOPT", "NODE_OPTIONS", "GCONV_PATH", "IFS", "PS4", "SHELLOPTS", "BASHOPTS"}

// Reserved holds the names the sandbox sets itself.
var Reserved = map[string]string{
	"PYTHONIOENCODING": "utf-8",
	"PYTHONUTF8":       "1",
}

// OwnPrefix marks hook-exec's own variables (HOOKEXEC_CWD for the
// launcher): a hook cannot declare them. The hosts' event variables have
// prefixes of their own, which the caller gives (hook.VarPrefixes).
const OwnPrefix = "HOOKEXEC_"

// eventName reports a name with OwnPrefix or one of prefixes.
func eventName(name string, prefixes []string) bool {
	up := strings.ToUpper(name)
	if strings.HasPrefix(up, OwnPrefix) {
		return true
	}
	for _, p := range prefixes {
		if strings.HasPrefix(up, p) {
			return true
		}
	}
	return false
}

// CheckName refuses a declared variable name that is malformed,
// secret-like, changes what code loads, or is reserved: hook-exec's own, or
// one with a prefix of eventPrefixes (the hosts' event variables).
func CheckName(name string, eventPrefixes ...string) error {
	if !validName(name) {
		return fmt.Errorf("%w: %q is not a valid name (letters, digits and _, not starting with a digit)", ErrEnv, name)
	}
	up := strings.ToUpper(name)
	if w, secret := secretname.Match(name); secret {
		return fmt.Errorf("%w: %q looks like a secret (contains %s): hooks get no secrets, pass a non-secret setting instead", ErrEnv, name, w)
	}
	for _, p := range loaderPrefixes {
		if strings.HasPrefix(up, p) {
			return fmt.Errorf("%w: %q changes which code a program loads: pass settings as arguments instead", ErrEnv, name)
		}
	}
	if slices.Contains(loaderNames, up) {
		return fmt.Errorf("%w: %q changes which code a program loads: pass settings as arguments instead", ErrEnv, name)
	}
	if eventName(up, eventPrefixes) {
		return fmt.Errorf("%w: %q is reserved for the event variables hook-exec sets", ErrEnv, name)
	}
	if strings.HasPrefix(up, gitConfigPrefix) {
		return fmt.Errorf("%w: %q is reserved: hook-exec gives git its configuration for the mounted workspace (safe.directory)", ErrEnv, name)
	}
	return nil
}

// gitConfigPrefix starts the names through which git's configuration is
// given in the environment (GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n,
// GIT_CONFIG_VALUE_n, GIT_CONFIG_PARAMETERS, GIT_CONFIG_GLOBAL, ...): the
// sandbox's own (see [GitSafeDirectory]), never a hook's.
const gitConfigPrefix = "GIT_CONFIG"

// GitSafeDirectory returns env (an [Env] result) with git's configuration
// for a workspace mounted at dir: safe.directory=dir, given as git's
// environment configuration (GIT_CONFIG_COUNT=1, GIT_CONFIG_KEY_0,
// GIT_CONFIG_VALUE_0), which git reads at the command line's scope, where
// safe.directory counts. The sandbox's uid is not the workspace owner's,
// and without it git refuses the repository ("detected dubious ownership")
// and a hook's git branch, rev-parse, status, log and diff print nothing.
// Only that path: git compares the repository's top with it, so a
// repository whose top is below dir (a nested one, a submodule) is still
// refused, and one whose git directory lies outside the mounts (a linked
// worktree's) is not found at all. No file is written: the user's git
// configuration is never read or changed, and git reads the project's own
// .git/config as it does for the user, inside the sandbox. The mount is
// read-only unless loosened (its .git always is), so git can read there and
// no more. The result is sorted, as Env's.
func GitSafeDirectory(env []string, dir string) ([]string, error) {
	if !path.IsAbs(dir) || path.Clean(dir) != dir || strings.IndexByte(dir, 0) >= 0 {
		return nil, fmt.Errorf("%w: git safe.directory %q is not a clean absolute path", ErrEnv, dir)
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(strings.ToUpper(kv), gitConfigPrefix)
	})
	out = append(out, "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=safe.directory", "GIT_CONFIG_VALUE_0="+dir)
	slices.Sort(out)
	return out, nil
}

func validName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Env builds a container environment: the declared values (each name
// checked with [CheckName]), the event variables (names must start with
// [OwnPrefix] or one of eventPrefixes, the hosts'), and [Reserved]. Nothing
// comes from the host. The result is sorted.
func Env(declared, event map[string]string, eventPrefixes []string) ([]string, error) {
	all := maps.Clone(Reserved)
	for k, v := range declared {
		if err := CheckName(k, eventPrefixes...); err != nil {
			return nil, err
		}
		if strings.IndexByte(v, 0) >= 0 {
			return nil, fmt.Errorf("%w: %q has a NUL byte in its value", ErrEnv, k)
		}
		all[k] = v
	}
	for k, v := range event {
		if !eventName(k, eventPrefixes) || !validName(k) || strings.IndexByte(v, 0) >= 0 {
			return nil, fmt.Errorf("%w: event variable %q", ErrEnv, k)
		}
		all[k] = v
	}
	out := make([]string, 0, len(all))
	for _, k := range slices.Sorted(maps.Keys(all)) {
		out = append(out, k+"="+all[k])
	}
	return out, nil
}
