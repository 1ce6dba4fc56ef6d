// Package shellsyntax reads a shell hook with a real parser (mvdan.cc/sh)
// before it runs: syntax the shell that will run it does not have (bash's
// [[ ]] under sh) is refused naming the line, never left to a busybox
// syntax error (exit 2, which a host reads as a deny) or to busybox's
// half-support of bashisms; and the programs it calls are listed, for
// `hook-exec image check --script`.
package shellsyntax

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ErrSyntax is the class of scripts their shell cannot run.
var ErrSyntax = errors.New("shell syntax")

// variant is the parser's language for a shell's name: bash's own, or
// POSIX sh for sh, dash and ash (busybox's sh).
func variant(shell string) (syntax.LangVariant, error) {
	switch shell {
	case "bash":
		return syntax.LangBash, nil
	case "sh", "dash", "ash", "":
		return syntax.LangPOSIX, nil
	}
	return 0, fmt.Errorf("%w: no parser for shell %q", ErrSyntax, shell)
}

// Parse parses script as shell will read it.
func Parse(script []byte, shell string) (*syntax.File, error) {
	v, err := variant(shell)
	if err != nil {
		return nil, err
	}
	f, err := syntax.NewParser(syntax.Variant(v)).Parse(bytes.NewReader(script), "")
	if err != nil {
		var pe syntax.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%w: %s cannot run this script: line %d: %s", ErrSyntax, name(shell), pe.Pos.Line(), pe.Text)
		}
		var le syntax.LangError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%w: %s cannot run this script: line %d: %s is a %s feature; start the script with #!/bin/bash (and run it where bash is: hook-bash)",
				ErrSyntax, name(shell), le.Pos.Line(), le.Feature, le.Langs[0])
		}
		return nil, fmt.Errorf("%w: %v", ErrSyntax, err)
	}
	if v == syntax.LangPOSIX {
		// [[ parses as a command named "[[" in POSIX sh; busybox runs it
		// as its own test, without bash's pattern matching, so a guard
		// written for bash would silently pass what it means to stop.
		var bad syntax.Pos
		syntax.Walk(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == "[[" && !bad.IsValid() {
				bad = c.Pos()
			}
			return !bad.IsValid()
		})
		if bad.IsValid() {
			return nil, fmt.Errorf("%w: %s cannot run this script: line %d: [[ is a bash feature; start the script with #!/bin/bash (and run it where bash is: hook-bash)",
				ErrSyntax, name(shell), bad.Line())
		}
	}
	return f, nil
}

func name(shell string) string {
	if shell == "" {
		return "sh"
	}
	return shell
}

// Check reports whether shell can parse script.
func Check(script []byte, shell string) error {
	_, err := Parse(script, shell)
	return err
}

// Programs lists the programs script calls by a literal name that is not
// one of its own functions nor a shell builtin: what an image must provide
// for it (jq, git, node). Names built at run time are not seen.
func Programs(script []byte, shell string) ([]string, error) {
	f, err := Parse(script, shell)
	if err != nil {
		return nil, err
	}
	return programs(f), nil
}

func programs(f *syntax.File) []string {
	funcs := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok {
			funcs[fd.Name.Value] = true
		}
		return true
	})
	var progs []string
	add := func(p string) {
		if p != "" && !slices.Contains(progs, p) {
			progs = append(progs, p)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		words := make([]string, len(call.Args))
		for i, a := range call.Args {
			words[i] = literal(a)
		}
		// command (and exec) skip the shell's functions: the next word is
		// a program even where a function has its name (jq() { command jq
		// "$@"; }).
		viaCommand := false
		for len(words) > 0 {
			p := words[0]
			if p == "" || builtins[p] || (funcs[p] && !viaCommand) {
				break
			}
			w, isWrapper := wrappers[p]
			if !isWrapper {
				add(p)
				break
			}
			if p != "command" && p != "exec" {
				add(p) // a wrapper is a program too
			}
			if (p == "sh" || p == "bash" || p == "dash" || p == "ash") && len(words) > 2 && words[1] == "-c" {
				// sh -c 'SCRIPT': the programs SCRIPT calls.
				if inner, err := Parse([]byte(words[2]), p); err == nil {
					for _, q := range programs(inner) {
						add(q)
					}
				}
				break
			}
			if p == "sh" || p == "bash" || p == "dash" || p == "ash" {
				break // sh FILE: a file, not a program
			}
			viaCommand = p == "command" || p == "exec"
			if p == "command" && len(words) > 1 && (words[1] == "-v" || words[1] == "-V") {
				break // a look-up (Needs reads it), not a call
			}
			words = w.rest(words[1:])
		}
		return true
	})
	slices.Sort(progs)
	return progs
}

// literal is a word's value when no expansion makes it ("" otherwise):
// jq, 'jq . | grep x', "jq".
func literal(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return ""
				}
				b.WriteString(lit.Value)
			}
		default:
			return ""
		}
	}
	return b.String()
}

// wrapper is a program that runs another: its options that take a value,
// and how many operands come before the program it runs.
type wrapper struct {
	valued   string // letters of the short options that take a value
	operands int    // words before the program (timeout's DURATION, chroot's NEWROOT)
}

// wrappers are the commands whose argument is the program that really
// runs, and the shells (for sh -c). busybox runs its applet.
var wrappers = map[string]wrapper{
	"command": {}, "exec": {}, "nohup": {}, "time": {}, "env": {valued: "uSC"},
	"xargs": {valued: "naLPsdEIl"}, "timeout": {valued: "sk", operands: 1}, "nice": {valued: "n"},
	"ionice": {valued: "cnp"}, "stdbuf": {valued: "ioe"}, "setsid": {}, "chroot": {operands: 1},
	"flock": {valued: "wEc", operands: 1}, "busybox": {}, "sudo": {valued: "ugCDhprTU"}, "doas": {valued: "uC"},
	"sh": {}, "bash": {}, "dash": {}, "ash": {},
}

// rest is what follows a wrapper's options and operands: the program it
// runs and its arguments. Options are words that start with -, a value
// after one of valued's letters when the word ends there; NAME=VALUE
// words (env's) are skipped too.
func (w wrapper) rest(words []string) []string {
	for len(words) > 0 {
		a := words[0]
		if a == "--" {
			words = words[1:]
			break
		}
		if strings.Contains(a, "=") && !strings.HasPrefix(a, "-") {
			words = words[1:] // env NAME=VALUE
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		words = words[1:]
		if !strings.HasPrefix(a, "--") && strings.ContainsRune(w.valued, rune(a[len(a)-1])) && len(words) > 0 {
			words = words[1:] // -n 10
		}
	}
	if len(words) < w.operands {
		return nil
	}
	return words[w.operands:]
}

// Needs lists the programs a script cannot run without: Programs, less
// the ones the script looks for itself first (command -v, which, type,
// hash: it has a way on without them) and paths (/tmp/tool, ./build.sh:
// files a script may make or find where it runs, not the image's). A look
// whose failure ends the script (command -v jq || exit 1; if ! which jq;
// then ... exit ...; fi) is no way on: that program is needed. A launcher
// checks them in the sandbox before the script starts, so that a guard
// whose jq is missing fails as a missing program instead of swallowing the
// failure inside $(...), or exiting 1 (which most hosts read as "go on"),
// and allowing everything. A script that sources another file may
// call functions that file defines: nothing is listed for it (ok false).
// Needs also checks the syntax, as Check does.
func Needs(script []byte, shell string) (needs []string, ok bool, err error) {
	f, err := Parse(script, shell)
	if err != nil {
		return nil, false, err
	}
	needs, ok = NeedsOf(f)
	return needs, ok, nil
}

// NeedsOf is [Needs] of a parsed script.
func NeedsOf(f *syntax.File) (needs []string, ok bool) {
	funcs := map[string]*syntax.FuncDecl{}
	sources := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.FuncDecl:
			funcs[n.Name.Value] = n
		case *syntax.CallExpr:
			if len(n.Args) > 0 && (n.Args[0].Lit() == "." || n.Args[0].Lit() == "source") {
				sources = true
			}
		}
		return true
	})
	if sources {
		return nil, false
	}
	// ends reports whether running node can end the script: an exit, or a
	// call of a function of the script that has one.
	ends := func(node syntax.Node) bool {
		found := false
		syntax.Walk(node, func(n syntax.Node) bool {
			if c, isCall := n.(*syntax.CallExpr); isCall && len(c.Args) > 0 {
				name := c.Args[0].Lit()
				if name == "exit" {
					found = true
				} else if fd := funcs[name]; fd != nil {
					syntax.Walk(fd.Body, func(m syntax.Node) bool {
						if c, isCall := m.(*syntax.CallExpr); isCall && len(c.Args) > 0 && c.Args[0].Lit() == "exit" {
							found = true
						}
						return !found
					})
				}
			}
			return !found
		})
		return found
	}
	probed, required := map[string]bool{}, map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CallExpr:
			for _, p := range lookedUp(n) {
				probed[p] = true
			}
		case *syntax.BinaryCmd: // look || exit
			if call, isCall := n.X.Cmd.(*syntax.CallExpr); isCall && n.Op == syntax.OrStmt && !n.X.Negated && ends(n.Y) {
				for _, p := range lookedUp(call) {
					required[p] = true
				}
			}
		case *syntax.IfClause: // if ! look; then ... exit ...; fi
			if len(n.Cond) > 0 && n.Cond[len(n.Cond)-1].Negated && ends(&syntax.Block{Stmts: n.Then}) {
				if call, isCall := n.Cond[len(n.Cond)-1].Cmd.(*syntax.CallExpr); isCall {
					for _, p := range lookedUp(call) {
						required[p] = true
					}
				}
			}
		}
		return true
	})
	for _, p := range programs(f) {
		if (probed[p] && !required[p]) || strings.Contains(p, "/") || !plainName(p) {
			continue
		}
		needs = append(needs, p)
	}
	for p := range required {
		if !slices.Contains(needs, p) && !strings.Contains(p, "/") && plainName(p) {
			needs = append(needs, p)
		}
	}
	slices.Sort(needs)
	return needs, true
}

// SetsPath reports whether a parsed script may run programs on a PATH
// other than the one it was given with more added: it assigns PATH a value
// that does not expand $PATH (PATH=/usr/bin:/bin, export PATH=..., local
// PATH=...), unsets it, or runs a program through env with an emptied
// environment or a PATH of its own (env -i, env PATH=/bin). A directory the
// launcher puts on the PATH it gives (a missing program's stand-in) may
// then not be found: a missing program would only be "not found", 127.
func SetsPath(f *syntax.File) bool {
	found := false
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil && n.Name.Value == "PATH" && !n.Naked && !n.Append && !expandsPath(n.Value) {
				found = true
			}
		case *syntax.CallExpr:
			if len(n.Args) < 2 {
				break
			}
			switch n.Args[0].Lit() {
			case "unset":
				for _, a := range n.Args[1:] {
					if a.Lit() == "PATH" {
						found = true
					}
				}
			case "env":
				found = envSetsPath(n.Args[1:])
			}
		}
		return !found
	})
	return found
}

// envSetsPath reports whether env's options and NAME=VALUE words (up to
// the program it runs) empty the environment or give it a PATH of its own.
func envSetsPath(args []*syntax.Word) bool {
	for i, a := range args {
		w := literalPrefix(a)
		switch {
		case w == "-" || w == "--ignore-environment" || w == "--unset=PATH" || w == "-uPATH":
			return true
		case w == "-u" || w == "--unset":
			if i+1 < len(args) && args[i+1].Lit() == "PATH" {
				return true
			}
		case strings.HasPrefix(w, "--"):
		case strings.HasPrefix(w, "-"):
			if strings.ContainsRune(w, 'i') {
				return true
			}
		case strings.HasPrefix(w, "PATH="):
			if !expandsPath(a) {
				return true
			}
		case strings.Contains(w, "="):
		default:
			if i > 0 && (args[i-1].Lit() == "-u" || args[i-1].Lit() == "--unset") {
				continue // -u's operand
			}
			return false // the program env runs
		}
	}
	return false
}

// expandsPath reports whether a word expands $PATH (nil: an empty value).
func expandsPath(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		if p, ok := n.(*syntax.ParamExp); ok && p.Param != nil && p.Param.Value == "PATH" {
			found = true
		}
		return !found
	})
	return found
}

// literalPrefix is the literal text a word starts with, before its first
// expansion.
func literalPrefix(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		lit, ok := part.(*syntax.Lit)
		if !ok {
			break
		}
		b.WriteString(lit.Value)
	}
	return b.String()
}

// lookedUp are the names a call looks for on the PATH without running
// them: command -v NAME, which NAME, type NAME, hash NAME.
func lookedUp(call *syntax.CallExpr) []string {
	if len(call.Args) == 0 {
		return nil
	}
	var words []string
	for _, a := range call.Args {
		words = append(words, a.Lit())
	}
	switch words[0] {
	case "command":
		if len(words) > 1 && (words[1] == "-v" || words[1] == "-V") {
			return words[2:]
		}
	case "which", "type", "hash":
		var names []string
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") {
				names = append(names, w)
			}
		}
		return names
	}
	return nil
}

// plainName reports whether a program's name can travel to the launcher as
// one word of a space-separated list: no space, quote, glob or other
// character a shell would read.
func plainName(p string) bool {
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._+-@", r)) {
			return false
		}
	}
	return p != ""
}

// builtins are the words a POSIX shell or bash runs itself.
var builtins = map[string]bool{}

func init() {
	for _, b := range []string{
		".", ":", "[", "alias", "bg", "break", "builtin", "case", "cd", "continue", "declare", "echo", "eval", "exit",
		"export", "false", "fg", "getopts", "hash", "jobs", "kill", "let", "local", "mapfile", "printf", "pwd", "read",
		"readarray", "readonly", "return", "set", "shift", "shopt", "source", "test", "times", "trap", "true", "type",
		"typeset", "ulimit", "umask", "unalias", "unset", "wait", "[[", "pushd", "popd", "dirs", "disown", "enable",
		"compgen", "complete", "caller", "help", "history", "logout", "suspend",
	} {
		builtins[b] = true
	}
}
