package install

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookexec/hook-exec/hook"
)

// ErrCommand: a hook's command cannot be installed as it is written.
var ErrCommand = errors.New("cannot install this hook")

// call is what a hook's command line runs, when it runs one script file:
// an optional interpreter word (python3 ./x.py), the file as written, and
// the arguments after it. nil for any other line (a pipeline, a variable
// assignment, a redirection, a word built at run time): that line is the
// hook, and runs as a pinned shell script of its own.
type call struct {
	Interp string
	Path   string
	Args   []string
}

// interpreters are the programs a hook's command may name before its
// script, each of which hook-exec's launchers run by the script's own
// name and #! line.
var interpreters = map[string]bool{
	"sh": true, "bash": true, "dash": true, "python": true, "python3": true, "node": true,
}

// parseCall reads line as the host's shell would, knowing only the
// variables in vars (the host's project directory) and ~ for home. It
// returns nil when line is anything but one plain call of a file.
func parseCall(line string, vars map[string]string, home string) *call {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	st := f.Stmts[0]
	if st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return nil
	}
	ce, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(ce.Assigns) > 0 || len(ce.Args) == 0 {
		return nil
	}
	words := make([]string, 0, len(ce.Args))
	for _, w := range ce.Args {
		s, ok := wordValue(w, vars, home)
		if !ok {
			return nil
		}
		words = append(words, s)
	}
	c := &call{}
	if base := filepath.Base(words[0]); interpreters[base] && (words[0] == base || filepath.IsAbs(words[0])) {
		if len(words) < 2 || strings.HasPrefix(words[1], "-") {
			return nil // an interpreter's own options (bash -c '...', python3 -m x)
		}
		c.Interp, words = base, words[1:]
	}
	if !strings.ContainsRune(words[0], '/') {
		return nil // a program found on PATH (npx, uvx, a tool's CLI), not a file
	}
	c.Path, c.Args = words[0], words[1:]
	return c
}

// wordValue is a word's value when it is made only of literal text,
// quotes, the variables in vars (and the command substitutions it holds,
// "$(command)"), and a leading ~/.
func wordValue(w *syntax.Word, vars map[string]string, home string) (string, bool) {
	var b strings.Builder
	var part func(p syntax.WordPart, quoted bool) bool
	part = func(p syntax.WordPart, quoted bool) bool {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if !quoted {
				if strings.ContainsAny(v, "*?[") {
					return false // a glob
				}
				v = unescape(v)
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			if p.Dollar {
				return false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return false
			}
			for _, q := range p.Parts {
				if !part(q, true) {
					return false
				}
			}
		case *syntax.ParamExp:
			if p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil ||
				p.Repl != nil || p.Names != 0 || p.Exp != nil {
				return false
			}
			v, ok := vars[p.Param.Value]
			if !ok {
				return false
			}
			b.WriteString(v)
		case *syntax.CmdSubst:
			// A command the host's hooks find the project with
			// (Target.ProjectCommands), by its text.
			var cmd strings.Builder
			for _, st := range p.Stmts {
				if cmd.Len() > 0 {
					return false
				}
				syntax.NewPrinter().Print(&cmd, st)
			}
			v, ok := vars["$("+cmd.String()+")"]
			if !ok {
				return false
			}
			b.WriteString(v)
		default:
			return false
		}
		return true
	}
	for i, p := range w.Parts {
		if i == 0 {
			if l, ok := p.(*syntax.Lit); ok && (l.Value == "~" || strings.HasPrefix(l.Value, "~/")) && home != "" {
				if strings.ContainsAny(l.Value, "*?[") {
					return "", false
				}
				b.WriteString(home + unescape(l.Value[1:]))
				continue
			}
		}
		if !part(p, false) {
			return "", false
		}
	}
	return b.String(), true
}

// unescape drops the backslashes of an unquoted literal (a\ b is "a b").
func unescape(s string) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// quote writes s as one shell word.
func quote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func errCommand(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCommand}, a...)...)
}

// shell is an installed command as the host runs it: for a host that runs
// commands with the user's login shell, handed to /bin/sh (LoginShell).
// quote's '\” reads alike in fish, and an installed command holds no
// backslash before a backslash or a quote, the one other place fish's
// quotes differ.
func (h *Target) shell(cmd string) string {
	if !h.LoginShell {
		return cmd
	}
	return loginShellWrap + quote(cmd)
}

// unshell is the command shell wrapped, and whether cmd is one.
func (h *Target) unshell(cmd string) (string, bool) {
	if !h.LoginShell {
		return cmd, true
	}
	rest, ok := strings.CutPrefix(cmd, loginShellWrap)
	if !ok {
		return "", false
	}
	return unquote(rest)
}

const loginShellWrap = "/bin/sh -c "

// guardVar holds the front's path in an installed command's shell.
const guardVar = "hookexec"

// guarded is an installed command: run (the words after hook-exec) by the
// front that front (a shell word) names and, where that cannot start (no
// hook-exec there on this machine, one that is not executable, killed) or
// does not answer as the host's hook-exec run does (0, or 2 where blocks
// says the host's answer uses it: one too old for the command's flags
// says 64, a crash 2), fallback: never the shell's 126 or 127, nor any
// other status, which the hosts read as a non-blocking error, an allow.
func guarded(front, run, fallback string, blocks bool) string {
	ok := `[ "$s" -eq 0 ]`
	if blocks {
		ok += ` || [ "$s" -eq 2 ]`
	}
	return guardVar + "=" + front + `; if [ -x "$` + guardVar + `" ]; then "$` + guardVar + `" ` + run +
		`; s=$?; if ` + ok + `; then exit "$s"; fi; fi; ` + fallback
}

// blocksByStatus reports whether hook-exec's answer to the host at event
// may be exit 2 (a refusal, or a failure's warning): otherwise its exit 2
// is no answer of its (a crash), and the guard's fallback answers.
func (h *Target) blocksByStatus(event string) bool {
	deny := hook.Decision{SchemaVersion: 1, Action: hook.Deny, Reason: "x"}
	for _, f := range []*hook.Failure{nil, {Kind: hook.FailEngineError, Message: "x"}} {
		if a, err := h.Dialect.Host().Answer(event, deny, f); err != nil || a.Exit == hook.ExitBlock {
			return true
		}
	}
	return false
}

// missingFront is the shell that answers hk's event as the host reads a
// hook that could not run when hook-exec cannot start: the failure
// policy's refusal in the host's own words (its answer for a failure, so
// a stop-type event only warns), naming what to install.
func (h *Target) missingFront(o Options, hk *Hook) string {
	where := o.Front
	if o.Settings == Project {
		where = "on PATH or in ~/go/bin"
	}
	msg := fmt.Sprintf("hook-exec (%s) did not run, so this %s hook did not run and its action is refused: install hook-exec (go install github.com/hookexec/hook-exec/cmd/...@latest), build its images (hook-exec images build) and start a Docker Engine, or put the hooks back as they were: hook-exec uninstall %s%s",
		where, hk.Event, h.Name, scopeFlag(o))
	dec := hook.Decision{SchemaVersion: 1, Action: hook.Deny, Reason: msg}
	a, err := h.Dialect.Host().Answer(hk.Event, dec, &hook.Failure{Kind: hook.FailEngineError, Message: msg})
	if err != nil {
		a = hook.Answer{Stderr: msg, Exit: hook.ExitBlock}
	}
	return answerShell(a)
}

// answerShell is the shell that gives answer a: its stdout, its stderr
// line, its exit status.
func answerShell(a hook.Answer) string {
	var b strings.Builder
	if len(a.Stdout) > 0 {
		b.WriteString("printf '%s\\n' " + quote(strings.TrimSuffix(string(a.Stdout), "\n")) + "; ")
	}
	if a.Stderr != "" {
		b.WriteString("printf '%s\\n' " + quote(a.Stderr) + " >&2; ")
	}
	fmt.Fprintf(&b, "exit %d", a.Exit)
	return b.String()
}
