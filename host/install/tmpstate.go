package install

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookexec/hook-exec/launcher"
)

// What a script keeps in /tmp between its runs, read from its text: a
// counter (/tmp/context-flow-$SESSION_ID.count), a warned-once marker, a
// start time a PostToolUse hook reads back. On the host /tmp outlives a
// run; in a sandbox it is an empty tmpfs, unless the hook gets its kept
// /tmp (--tmp-data), which costs it a pooled sandbox: only a path of /tmp
// the script can find again is counted, not mktemp's, nor one named by the
// run's pid ($$, $RANDOM).

// transient stands for a part of a path that differs at each run; home
// for the home directory, which is /tmp in the reference images (HOME=/tmp):
// what a hook writes there (~/.cache/kit/marker) is kept with /tmp.
const (
	transient = "\x01"
	home      = "\x02"
)

// keepsTmp reports whether a script of lang names a path in /tmp it finds
// again at its next run.
func keepsTmp(lang launcher.Lang, b []byte) bool {
	switch lang {
	case launcher.Shell:
		return shellKeepsTmp(string(b))
	case launcher.Python:
		b = pyComment.ReplaceAll(b, nil)
		return pyTmp.Match(b) || pyHomeWrite.Match(b)
	case launcher.Node:
		b = nodeComment.ReplaceAll(b, nil)
		return nodeTmp.Match(b) || nodeHomeWrite.Match(b)
	}
	return false
}

var (
	// A path of /tmp: a literal (not a pattern: "/tmp/*"), one joined
	// or added to, the temporary directory's lookups; a write after a
	// lookup of the home directory (/tmp in the images).
	pyComment     = regexp.MustCompile(`(?m)^[ \t]*#.*$`)
	pyTmp         = regexp.MustCompile(`["']/tmp/[^"'\s*]+["']|["']/tmp/["']\s*\+|\b(?:Path|PurePath|join)\(\s*["']/tmp/?["']|\bgettempdir\(\)|(?:getenv\(|environ\.get\(|environ\[)\s*["']TMPDIR["']`)
	pyHomeWrite   = regexp.MustCompile(`(?s)(?:expanduser\(\s*["']~|Path\.home\(\)|(?:getenv\(|environ\.get\(|environ\[)\s*["']HOME["']).*?(?:\bopen\([^)]*["'][wa]|\.write_text\(|\.mkdir\(|makedirs\()`)
	nodeComment   = regexp.MustCompile(`(?m)^[ \t]*//.*$`)
	nodeTmp       = regexp.MustCompile("[\"'`]/tmp/[^\"'`\\s*]+[\"'`]|[\"'`]/tmp/[\"'`]\\s*\\+|\\bjoin\\(\\s*[\"'`]/tmp/?[\"'`]|`/tmp/\\$\\{|\\btmpdir\\(\\)|\\benv\\.TMPDIR\\b")
	nodeHomeWrite = regexp.MustCompile(`(?s)(?:homedir\(\)|env\.HOME\b).*?(?:writeFileSync|appendFileSync|mkdirSync|createWriteStream|writeFile|appendFile|mkdir)\(`)
)

// shellKeepsTmp reads the script as bash does: a word that resolves,
// through the script's assignments and ${TMPDIR:-/tmp}, to a path below
// /tmp (or, written, of the home directory), outside mktemp's arguments and
// without a part of the run's own.
func shellKeepsTmp(s string) bool {
	f := bashFile(s)
	if f == nil {
		return false
	}
	vars := map[string]string{}
	found := false
	// A path of /tmp counts wherever it is named (written, read, tested:
	// [ -f "$MARKER" ], removed); one of the home directory only where it
	// is written (a hook reads ~/.config of a home it does not have).
	kept := func(w *syntax.Word, written bool) bool {
		p := tmpPath(w, vars)
		if written {
			p = strings.Replace(p, home, "/tmp", 1)
		}
		// A path has no blank (a message that names one is not one).
		return strings.HasPrefix(p, "/tmp/") && len(p) > len("/tmp/") && !strings.ContainsAny(p, transient+" \t\n")
	}
	var visit func(n syntax.Node) bool
	visit = func(n syntax.Node) bool {
		if found {
			return false
		}
		switch n := n.(type) {
		case *syntax.CaseItem:
			// A pattern (/tmp/*) is not a path: its commands alone.
			for _, st := range n.Stmts {
				syntax.Walk(st, visit)
			}
			return false
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsMatchShort, syntax.TsMatch, syntax.TsNoMatch, syntax.TsReMatch:
				syntax.Walk(n.X, visit) // [[ $f == /tmp/* ]]: the right side is a pattern
				return false
			}
		case *syntax.Assign:
			if n.Name != nil && !n.Append && n.Array == nil && n.Index == nil {
				if p := ""; n.Value != nil {
					if p = tmpPath(n.Value, vars); strings.HasPrefix(p, "/tmp") || strings.HasPrefix(p, home) {
						vars[n.Name.Value] = p
						return true
					}
				}
				delete(vars, n.Name.Value)
			}
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				return true
			}
			switch n.Args[0].Lit() {
			case "mktemp", "tempfile":
				return false // a name of this run's
			case "mkdir", "touch", "tee":
				for _, a := range n.Args[1:] {
					found = found || kept(a, true)
				}
			case "cp", "mv", "ln":
				found = found || kept(n.Args[len(n.Args)-1], true)
			}
		case *syntax.Redirect:
			switch n.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
				found = found || (n.Word != nil && kept(n.Word, true))
			}
		case *syntax.Word:
			if kept(n, false) {
				found = true // written, read, tested ([ -f "$MARKER" ]) or removed
			}
		}
		return true
	}
	syntax.Walk(f, visit)
	return found
}

// tmpPath is a word's value with the script's variables holding a path of
// /tmp replaced, ${TMPDIR:-/tmp} as /tmp, a part the run makes its own
// ($$, $RANDOM, $(mktemp ...)) as transient, and any other expansion as "$".
func tmpPath(w *syntax.Word, vars map[string]string) string {
	v, _ := resolveWord(w, func(s string, start bool) string {
		if rest, ok := strings.CutPrefix(s, "~/"); ok && start {
			return home + "/" + rest
		}
		return s
	}, func(p *syntax.ParamExp, start bool) string {
		name := ""
		if p.Param != nil {
			name = p.Param.Value
		}
		plain := plainParam(p)
		switch v, ok := vars[name]; {
		case name == "$" || name == "!" || name == "RANDOM" || name == "SRANDOM" || name == "BASHPID":
			return transient
		case plain && name == "TMPDIR" && start:
			return "/tmp"
		case plain && name == "HOME" && start:
			return home
		case plain && ok && start:
			return v
		case plain && p.Exp != nil && p.Exp.Word != nil && start:
			// ${XDG_CACHE_HOME:-$HOME/.cache}: unset, as it mostly is
			// for a hook, its default.
			return tmpPath(p.Exp.Word, vars)
		}
		return "$"
	}, func(text string, _ bool) string {
		if strings.Contains(text, "mktemp") {
			return transient
		}
		return "$"
	})
	return v
}
