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
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 {
			return true
		}
		args := call.Args
		for len(args) > 0 {
			p := args[0].Lit()
			switch {
			case p == "" || funcs[p] || builtins[p]:
			case p == "command" || p == "exec" || p == "nohup" || p == "time" || p == "xargs" || p == "env":
				// The program is the next literal word that is not an option.
				args = args[1:]
				for len(args) > 0 && (strings.HasPrefix(args[0].Lit(), "-") || strings.Contains(args[0].Lit(), "=")) {
					args = args[1:]
				}
				if p != "command" && p != "exec" && !slices.Contains(progs, p) {
					progs = append(progs, p)
				}
				continue
			default:
				if !slices.Contains(progs, p) {
					progs = append(progs, p)
				}
			}
			break
		}
		return true
	})
	slices.Sort(progs)
	return progs
}

// Needs lists the programs a script cannot run without: Programs, less
// the ones the script looks for itself first (command -v, which, type,
// hash: it has a way on without them) and paths (/tmp/tool, ./build.sh:
// files a script may make or find where it runs, not the image's). A launcher checks them in the
// sandbox before the script starts, so that a guard whose jq is missing
// fails as a missing program instead of swallowing the failure inside
// $(...) and allowing everything. A script that sources another file may
// call functions that file defines: nothing is listed for it (ok false).
// Needs also checks the syntax, as Check does.
func Needs(script []byte, shell string) (needs []string, ok bool, err error) {
	f, err := Parse(script, shell)
	if err != nil {
		return nil, false, err
	}
	probed := map[string]bool{}
	sources := false
	syntax.Walk(f, func(n syntax.Node) bool {
		call, isCall := n.(*syntax.CallExpr)
		if !isCall || len(call.Args) == 0 {
			return true
		}
		words := make([]string, len(call.Args))
		for i, a := range call.Args {
			words[i] = a.Lit()
		}
		switch words[0] {
		case ".", "source":
			sources = true
		case "command":
			if len(words) > 1 && (words[1] == "-v" || words[1] == "-V") {
				for _, w := range words[2:] {
					probed[w] = true
				}
			}
		case "which", "type", "hash":
			for _, w := range words[1:] {
				probed[w] = true
			}
		}
		return true
	})
	if sources {
		return nil, false, nil
	}
	for _, p := range programs(f) {
		if probed[p] || strings.Contains(p, "/") || !plainName(p) {
			continue
		}
		needs = append(needs, p)
	}
	return needs, true, nil
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
