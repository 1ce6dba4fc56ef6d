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
	"path"
	"slices"
	"strconv"
	"strings"
)

//go:embed launch.sh
var launchSh string

//go:embed launch.py
var launchPy string

//go:embed agent.sh
var agentSh string

// StandIn is the stand-in for a program a .sh script calls and its image
// lacks (see [NeedsVar]): an image that has it at [StandInPath] (mode
// 0755) lets such a script run until it calls that program. The
// reference images have it.
//
//go:embed missing.sh
var StandIn string

// StandInPath is where the .sh launcher looks for [StandIn] in an image.
const StandInPath = "/usr/lib/hook-exec/missing"

// StandInVar names another path for [StandIn] (the launcher's tests: a
// host has none at StandInPath). The launcher unsets it before the script
// runs.
const StandInVar = "HOOKEXEC_STAND_IN"

// Lang is a script language: "sh", "py" or "js". A js script runs through
// the sh launcher, under node (ShellVar), from a private copy with its own
// extension (ExtVar).
type Lang string

const (
	Shell  Lang = "sh"
	Python Lang = "py"
	Node   Lang = "js"
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
	ErrLang = errors.New("no launcher for this language: use .sh, .py or (for a host that runs a script by its #! line) .js")
)

// MissingProgramError names the program an image must provide, and (Why)
// who needs it when that is not the launcher: the script, its #! line.
type MissingProgramError struct{ Program, Why string }

func (e *MissingProgramError) Error() string {
	if e.Why != "" {
		return fmt.Sprintf("image is missing %q (%s)", e.Program, e.Why)
	}
	return fmt.Sprintf("image is missing %q, which the launcher needs: the image must provide it", e.Program)
}

func (e *MissingProgramError) Unwrap() error { return ErrMissingProgram }

// CwdVar names where the script starts (an absolute directory of the
// sandbox); unset, it starts in its private directory. The launcher unsets
// it before the script runs.
const CwdVar = "HOOKEXEC_CWD"

// ShellVar and ShellFlagsVar name the shell that runs a .sh script and
// its one option word, from the script's #! line (see [Shebang]); unset,
// sh. The launcher unsets both before the script runs.
const (
	ShellVar      = "HOOKEXEC_SHELL"
	ShellFlagsVar = "HOOKEXEC_SHELL_FLAGS"
)

// HomeDirVar names the directory the host keeps in the user's home
// (hook.Sandbox.HomeDir): the launcher makes it, empty, in the sandbox's home, and
// unsets the variable before the script runs.
const HomeDirVar = "HOOKEXEC_HOME_DIR"

// ScriptPathVar names the path, in the sandbox, of the script's own file
// within its pinned tree (hook.Hook.ScriptRoot): the launcher runs the
// script from there instead of its private copy, so that what the script
// finds beside itself is what its host would give it. The launcher unsets
// it before the script runs.
const ScriptPathVar = "HOOKEXEC_SCRIPT_PATH"

// NeedsVar names the programs a .sh script calls (space-separated; see
// shellsyntax.Needs). Those the image lacks are judged when the script
// calls them: each gets a [StandIn], last on the script's PATH, and a call
// of one fails the run with ExitMissingProgram naming it when the script
// ends, whatever the script's own status; a script that never calls one
// runs and answers. Where there can be no stand-in (the image has none at
// [StandInPath], or NeedsNowVar is 1) the launcher fails with
// ExitMissingProgram, naming the first the image lacks, before the script
// starts. The launcher unsets both before the script runs.
const NeedsVar = "HOOKEXEC_NEEDS"

// NeedsNowVar, set to 1, has the launcher judge NeedsVar's programs before
// the script starts: the script sets a PATH of its own, which would leave
// the stand-ins out.
const NeedsNowVar = "HOOKEXEC_NEEDS_NOW"

// DisposableVar, set to 1 in a sandbox's own environment, tells the .sh
// launcher that the sandbox is removed after its one run, /tmp with it: it
// leaves its private directory to the removal (one rm fewer on the way to
// the answer).
const DisposableVar = "HOOKEXEC_DISPOSABLE"

// PrivateDirVar names the launcher's private directory (an absolute path
// below /tmp that does not exist yet): the launcher makes it, mode 0700,
// instead of a mktemp -d of its own, so that the caller can remove what a
// killed run left of it in a /tmp kept between runs (hook.Hook.TmpData).
// The launcher unsets it before the script runs.
const PrivateDirVar = "HOOKEXEC_PRIVATE_DIR"

// ExtVar names the extension of the script's private copy: .sh (unset),
// .js, .mjs or .cjs (node tells a module from a CommonJS script by it).
// The launcher unsets it before the script runs.
const ExtVar = "HOOKEXEC_EXT"

// ErrShebang: a .sh script's #! line names no shell the launcher runs.
var ErrShebang = errors.New("#! line")

// shells are the shells a .sh script's #! line may name.
var shells = []string{"sh", "bash", "dash", "ash"}

// Shebang reads a .sh script's #! line: the shell it names (/bin/bash,
// /usr/bin/env bash, ... -> "bash") and at most one option word ("-e",
// "-eu"); "" when the script has no #! line. The launcher runs the script
// through that shell, found on the image's PATH.
func Shebang(script []byte) (shell, flags string, err error) {
	line, ok := strings.CutPrefix(string(script), "#!")
	if !ok {
		return "", "", nil
	}
	line, _, _ = strings.Cut(line, "\n")
	f := strings.Fields(line)
	if len(f) > 0 && (f[0] == "/usr/bin/env" || f[0] == "/bin/env") {
		f = f[1:]
	}
	if len(f) == 0 || len(f) > 2 {
		return "", "", fmt.Errorf("%w %q: want a shell and at most one option word", ErrShebang, "#!"+line)
	}
	shell = f[0][strings.LastIndexByte(f[0], '/')+1:]
	if !slices.Contains(shells, shell) || (strings.Contains(f[0], "/") && !slices.Contains([]string{"/bin/", "/usr/bin/", "/usr/local/bin/"}, f[0][:len(f[0])-len(shell)])) {
		return "", "", fmt.Errorf("%w %q: a .sh hook runs under %s", ErrShebang, "#!"+line, strings.Join(shells, ", "))
	}
	if len(f) == 2 {
		flags = f[1]
		if len(flags) < 2 || flags[0] != '-' || strings.Trim(flags[1:], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return "", "", fmt.Errorf("%w %q: the option word must be letters after a -", ErrShebang, "#!"+line)
		}
		// These would change what the script's path means (-c: a command
		// string, -s: read stdin, the event, as the script) or take it as
		// their argument (-o, -O), or make the shell interactive (-i).
		if i := strings.IndexAny(flags[1:], "csioO"); i >= 0 {
			return "", "", fmt.Errorf("%w %q: option -%c is not one a script's #! line can use here", ErrShebang, "#!"+line, flags[1+i])
		}
	}
	return shell, flags, nil
}

// HostShell is the shell a host that runs any file by its #! line runs a
// script without one under, when its name is not a .sh file's: the host's
// command runs under bash, whose exec of such a file fails (ENOEXEC) and
// which then runs the file itself (some hosts' plugins ship extensionless
// polyglot wrappers, run-hook.cmd, written for that). A .sh file without a
// #! line keeps sh.
func HostShell(name string, script []byte) (shell, flags string, err error) {
	shell, flags, err = Shebang(script)
	if err == nil && shell == "" && !strings.HasSuffix(name, ".sh") && !strings.HasPrefix(string(script), "#!") {
		shell = "bash"
	}
	return shell, flags, err
}

// NodeShebang checks a js script's #! line, when it has one: it must name
// node (/usr/bin/env node, /usr/bin/node, ...) and no option, which
// Linux would hand node as one word with the script's path.
func NodeShebang(script []byte) error {
	line, ok := strings.CutPrefix(string(script), "#!")
	if !ok {
		return nil
	}
	line, _, _ = strings.Cut(line, "\n")
	f := strings.Fields(line)
	if len(f) > 0 && (f[0] == "/usr/bin/env" || f[0] == "/bin/env") {
		f = f[1:]
	}
	if len(f) != 1 || !slices.Contains([]string{"node", "/usr/bin/node", "/usr/local/bin/node", "/bin/node"}, f[0]) {
		return fmt.Errorf("%w %q: a .js hook runs under node, with no option", ErrShebang, "#!"+line)
	}
	return nil
}

// NodeExt is the extension a js script's private copy gets: its own
// (.mjs, .cjs or .js), .js for an extensionless file (node runs it as a
// CommonJS script, as it would the file itself).
func NodeExt(name string) string {
	switch e := path.Ext(name); e {
	case ".mjs", ".cjs":
		return e
	}
	return ".js"
}

// Required lists the programs an image must provide for a language, the
// interpreter first.
func Required(lang Lang) []string {
	switch lang {
	case Shell:
		return []string{"sh", "mktemp", "dd", "wc", "rm"}
	case Python:
		return []string{"python"}
	case Node:
		return []string{"sh", "mktemp", "dd", "wc", "rm", "node"} // the sh launcher runs node
	}
	return nil
}

// Argv returns the fixed command line that launches a script of n bytes;
// args, after the length, are the script's own arguments (data: the
// launcher passes them on, never runs them).
func Argv(lang Lang, n int, args ...string) ([]string, error) {
	if n < 0 {
		return nil, fmt.Errorf("script length %d: %w", n, ErrLauncher)
	}
	for _, a := range args {
		if strings.IndexByte(a, 0) >= 0 {
			return nil, fmt.Errorf("a script argument holds a NUL byte: %w", ErrLauncher)
		}
	}
	switch lang {
	case Shell, Node:
		return append([]string{"sh", "-c", launchSh, "hook-launcher", strconv.Itoa(n)}, args...), nil
	case Python:
		return append([]string{"python", "-I", "-S", "-c", launchPy, strconv.Itoa(n)}, args...), nil
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
			p, why, _ := strings.Cut(p, " ")
			return &MissingProgramError{Program: p, Why: strings.TrimSuffix(strings.TrimPrefix(why, "("), ")")}
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
