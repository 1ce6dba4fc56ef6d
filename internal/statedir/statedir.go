// Package statedir says where hook-exec keeps its state when nothing names
// the directory: one answer for the front, the trace store and the engine
// factory. Std only: the front reads it before anything else.
package statedir

import (
	"errors"
	"path/filepath"
)

// Default is $HOOKEXEC_STATE_DIR, else $XDG_STATE_HOME/hook-exec, else
// ~/.local/state/hook-exec, with getenv the environment it is read from and
// home the user's home directory.
func Default(getenv func(string) string, home func() (string, error)) (string, error) {
	if d := getenv("HOOKEXEC_STATE_DIR"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "hook-exec"), nil
	}
	h, err := home()
	if err == nil && h == "" {
		err = errors.New("no home directory")
	}
	if err != nil {
		return "", errors.Join(errors.New("find a state directory"), err)
	}
	return filepath.Join(h, ".local", "state", "hook-exec"), nil
}
