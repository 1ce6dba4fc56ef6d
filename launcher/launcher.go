// Package launcher holds the fixed programs that start a hook script inside
// a sandbox, the argv that runs them, and what each language needs from an
// image.
//
// The script never appears on a command line: argv is fixed and carries only
// the script's length N. stdin carries exactly N script bytes, then the
// event, then EOF. The launcher reads exactly N bytes (never one byte of the
// event), writes them into a new private directory (0700), runs the script
// there with the event still on stdin, removes the directory and exits with
// the script's status.
package launcher

import (
	_ "embed"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

//go:embed launch.sh
var launchSh string

//go:embed launch.py
var launchPy string

// Lang is a script language: "sh" or "py".
type Lang string

const (
	Shell  Lang = "sh"
	Python Lang = "py"
)

// Exit codes the launchers use for their own failures, each with a
// "hook-launcher:" line on stderr. A script cannot end with one of them:
// its own status in 121-124 is reported as ExitScriptReserved, so that a
// hook cannot make its failure look like the launcher's or the image's.
const (
	ExitScriptReserved = 120
	ExitUsage          = 121
	ExitMissingProgram = 122
	ExitShortScript    = 123
	ExitNoPrivateDir   = 124
)

// StderrPrefix starts every line a launcher writes about its own failure.
const StderrPrefix = "hook-launcher: "

var (
	// ErrMissingProgram: the image lacks a program the launcher needs.
	ErrMissingProgram = errors.New("image is missing a program the launcher needs")
	// ErrLauncher: the launcher failed before or around the script.
	ErrLauncher = errors.New("launcher failed")
	// ErrLang: not a language with a launcher.
	ErrLang = errors.New("no launcher for this language: use .sh or .py")
)

// MissingProgramError names the program an image must provide.
type MissingProgramError struct{ Program string }

func (e *MissingProgramError) Error() string {
	return fmt.Sprintf("image is missing %q, which the launcher needs: the image must provide it", e.Program)
}

func (e *MissingProgramError) Unwrap() error { return ErrMissingProgram }

// Required lists the programs an image must provide for a language, the
// interpreter first.
func Required(lang Lang) []string {
	switch lang {
	case Shell:
		return []string{"sh", "mktemp", "dd", "wc", "rm"}
	case Python:
		return []string{"python"}
	}
	return nil
}

// Argv returns the fixed command line that launches a script of n bytes.
func Argv(lang Lang, n int) ([]string, error) {
	if n < 0 {
		return nil, fmt.Errorf("script length %d: %w", n, ErrLauncher)
	}
	switch lang {
	case Shell:
		return []string{"sh", "-c", launchSh, "hook-launcher", strconv.Itoa(n)}, nil
	case Python:
		return []string{"python", "-I", "-S", "-c", launchPy, strconv.Itoa(n)}, nil
	}
	return nil, fmt.Errorf("%q: %w", lang, ErrLang)
}

// Failure interprets a finished launch: when the exit code is one of the
// launcher's own and stderr carries its line, it returns the error
// (a *MissingProgramError for a missing program); otherwise nil, and the
// status is the script's own.
func Failure(exitCode int, stderr []byte) error {
	if exitCode < ExitUsage || exitCode > ExitNoPrivateDir {
		return nil
	}
	var msg string
	for _, line := range strings.Split(string(stderr), "\n") {
		if rest, ok := strings.CutPrefix(line, StderrPrefix); ok {
			msg = rest // the launcher's line is the last thing it writes
		}
	}
	if msg == "" {
		return nil
	}
	if exitCode == ExitMissingProgram {
		if p, ok := strings.CutPrefix(msg, "missing program: "); ok {
			p, _, _ = strings.Cut(p, " ")
			return &MissingProgramError{Program: p}
		}
	}
	return fmt.Errorf("%w (exit %d): %s", ErrLauncher, exitCode, msg)
}

// StartFailure maps an engine's or the OS's failure to start the launcher's
// interpreter (the argv[0] of [Argv]) to a *MissingProgramError. Engines
// report it only as text (runc: `exec: "python": executable file not found
// in $PATH`), so matching the text is the one way to tell.
func StartFailure(lang Lang, err error) error {
	if argv0 := Required(lang)[0]; NotFound(err, argv0) {
		return fmt.Errorf("%w: %w", &MissingProgramError{Program: argv0}, err)
	}
	return nil
}

// NotFound reports whether a start failure says program does not exist
// (the runtime's "executable file not found", or no such file).
func NotFound(err error, program string) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return (strings.Contains(msg, "executable file not found") || strings.Contains(msg, "no such file or directory")) &&
		(strings.Contains(msg, `"`+program+`"`) || strings.Contains(msg, ": "+program+":"))
}
