package scriptpin

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hookexec/hook-exec/launcher"
)

// MaxScriptBytes is the largest script a Holaryn hook may be: exactly 16
// KiB is allowed (its plugin rules).
const MaxScriptBytes = 16 << 10

// MaxHostScriptBytes is the largest script of the hosts that run any file
// by its #! line (Claude Code, Codex, Cursor, Gemini CLI, Arcturn,
// Bernstein): their contracts set no bound, and the guards people write
// for them run to a few thousand lines (a 2,000-line Python guard is 16.4 KiB).
const MaxHostScriptBytes = 1 << 20

// Errors of the script rules. Each says what to use instead; callers test
// them with errors.Is.
var (
	ErrAbsolute   = errors.New("script path is absolute: name it relative to the plugin directory")
	ErrEscape     = errors.New("script path has a \"..\" component: name a file inside the plugin directory without \"..\"")
	ErrLink       = errors.New("script is reached through a link: name the regular file itself, not a symlink or hard link to it")
	ErrNotRegular = errors.New("script is not a regular file: name a .py or .sh file")
	ErrExtension  = errors.New("script is not a .py or .sh file: rename it, or call it from a .sh script")
	ErrTooLarge   = errors.New("script is too large: keep a hook's script small, and what it needs beside it in its tree")
	ErrBOM        = errors.New("script starts with a byte-order mark: save it as UTF-8 without BOM")
	ErrNotUTF8    = errors.New("script is not valid UTF-8: save it as UTF-8 text")
	ErrNUL        = errors.New("script contains a NUL byte: save it as UTF-8 text")
	ErrCRLF       = errors.New("shell script has CRLF line endings: convert it to LF, sh on Linux cannot run it")
	ErrChanged    = errors.New("script changed since it was approved: review and approve the new content")
)

// LangOf returns the language of a script path, or ErrExtension. The
// languages are launcher's: a script is runnable when a launcher exists
// for its language.
func LangOf(name string) (launcher.Lang, error) {
	switch path.Ext(name) {
	case ".sh":
		return launcher.Shell, nil
	case ".py":
		return launcher.Python, nil
	}
	return "", fmt.Errorf("%q: %w", name, ErrExtension)
}

// Check applies the content rules to a script named name (only its extension
// is used) and returns its language.
func Check(name string, b []byte) (launcher.Lang, error) {
	lang, err := LangOf(name)
	if err != nil {
		return "", err
	}
	if err := checkContent(name, lang, b, MaxScriptBytes); err != nil {
		return "", err
	}
	return lang, nil
}

// LangOfShebang is the language of a script by its #! line, for hosts that
// run any file by it (Arcturn, Bernstein, Claude Code): sh, bash, dash or
// ash is sh; python or python3 is py; node is js; no #! line is sh (the
// host's shell runs such a file itself). Anything else is ErrExtension.
func LangOfShebang(name string, b []byte) (launcher.Lang, error) {
	line, ok := bytes.CutPrefix(b, []byte("#!"))
	if ok {
		line, _, _ = bytes.Cut(line, []byte("\n"))
		f := strings.Fields(string(line))
		if len(f) > 1 && (f[0] == "/usr/bin/env" || f[0] == "/bin/env") {
			f = f[1:]
		}
		if len(f) > 0 {
			switch path.Base(f[0]) {
			case "sh", "bash", "dash", "ash":
				return launcher.Shell, nil
			case "python", "python3":
				return launcher.Python, nil
			case "node":
				return launcher.Node, nil
			}
		}
	} else if e := path.Ext(name); len(b) > 0 && e != ".js" && e != ".mjs" && e != ".cjs" {
		// No #! line at all: the host's shell runs it (launcher.HostShell).
		return launcher.Shell, nil
	}
	return "", fmt.Errorf("%q: %w (without .sh, .py or .js, its #! line must name sh, bash, dash, ash, python, python3 or node)", name, ErrExtension)
}

// CheckShebang is [Check] for the hosts that run any file by its #! line:
// a script whose extension is not .sh or .py has its #! line's language,
// and without one, a .js, .mjs or .cjs script is js.
func CheckShebang(name string, b []byte) (launcher.Lang, error) {
	lang, err := LangOf(name)
	if err != nil {
		lang, err = LangOfShebang(name, b)
		if e := path.Ext(name); err != nil && (e == ".js" || e == ".mjs" || e == ".cjs") {
			lang, err = launcher.Node, nil
		}
		if err != nil {
			return "", err
		}
	}
	if err := checkContent(name, lang, b, MaxHostScriptBytes); err != nil {
		return "", err
	}
	return lang, nil
}

func checkContent(name string, lang launcher.Lang, b []byte, limit int) error {
	var err error
	switch {
	case len(b) > limit:
		err = fmt.Errorf("%q is %d bytes, more than %d: %w", name, len(b), limit, ErrTooLarge)
	case bytes.HasPrefix(b, []byte("\xef\xbb\xbf")):
		err = fmt.Errorf("%q: %w", name, ErrBOM)
	case !utf8.Valid(b):
		err = fmt.Errorf("%q: %w", name, ErrNotUTF8)
	case bytes.IndexByte(b, 0) >= 0:
		err = fmt.Errorf("%q: %w", name, ErrNUL)
	case lang == launcher.Shell && bytes.Contains(b, []byte("\r\n")):
		err = fmt.Errorf("%q: %w", name, ErrCRLF)
	}
	return err
}
