package install

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/launcher"
)

// What a script writes in the project, read from its text the way people
// write it: a log, a counter, an audit trail under the project's
// directory. Each becomes a --writable entry of the installed command
// (a file, or a directory with a trailing slash when the name is built at
// run time), shown in the plan; what is not found here fails at run time
// on the read-only project, and the failure names the approval.

// projMark stands for the project's directory in a resolved path.
const projMark = "\x00"

// Forms that name the project's directory: the hosts' variables, the
// working directory the hosts start a hook in, git's top level.
var (
	rootVars  = map[string]bool{"CLAUDE_PROJECT_DIR": true, "GEMINI_PROJECT_DIR": true, "CURSOR_PROJECT_DIR": true, "GEMINI_CWD": true, "PWD": true}
	rootSubst = regexp.MustCompile(`^\$\(\s*(?:pwd|git\s+rev-parse\s+--show-toplevel)\b`)
	dirSubst  = regexp.MustCompile(`^\$\(\s*dirname\s+"?\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?"?\s*\)$`)
	plainPath = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)

	pyAssign = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[^=\n]*)?=[ \t]*([^\n]+)$`)
	pyWrite  = regexp.MustCompile(`\bopen\(\s*([^,()]+(?:\((?:[^()]|\([^()]*\))*\))?[^,()]*),\s*(?:mode\s*=\s*)?["']([rwxab+t]+)["']|\b([A-Za-z_][A-Za-z0-9_.]*)\.(?:write_text|write_bytes)\(|\bos\.makedirs\(\s*([^,()]+(?:\((?:[^()]|\([^()]*\))*\))?)|\b([A-Za-z_][A-Za-z0-9_]*)\.mkdir\(`)
	pyStr    = regexp.MustCompile(`["']([^"'\n]*)["']`)
	pyIdent  = regexp.MustCompile(`\b[A-Za-z_][A-Za-z0-9_]*\b`)
	pyLookup = regexp.MustCompile(`^os\.(?:getenv|environ\.get)\(\s*["'][A-Za-z_][A-Za-z0-9_]*["']\s*,\s*["'][^"']*["']\s*\)$`)
	pyRoot   = regexp.MustCompile(`os\.environ(?:\.get\(|\[)\s*["'](?:CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR|CURSOR_PROJECT_DIR)["']|os\.getenv\(\s*["'](?:CLAUDE_PROJECT_DIR|GEMINI_PROJECT_DIR|CURSOR_PROJECT_DIR)["']|os\.getcwd\(\)|Path\.cwd\(\)`)
)

// codeExt are the extensions of what a project runs or builds: a hook
// whose script writes one is not given it without the person naming it
// (install --writable); its state and logs are data.
var codeExt = map[string]bool{".sh": true, ".bash": true, ".zsh": true, ".fish": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true,
	".ts": true, ".tsx": true, ".jsx": true, ".rb": true, ".pl": true, ".php": true, ".ps1": true, ".cmd": true, ".bat": true,
	".go": true, ".rs": true, ".java": true, ".kt": true, ".c": true, ".h": true, ".cc": true, ".cpp": true, ".swift": true, ".lua": true}

// maxNesting bounds how deeply a script's brackets nest before install
// reads its syntax: the parser recurses, and a script of a hundred
// thousand "(" would end install with a stack overflow.
const maxNesting = 256

// nesting is the deepest run of open brackets in s, read roughly (quotes
// are not told apart: a bound, not a parse).
func nesting(s string) int {
	depth, most := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '{', '[':
			if depth++; depth > most {
				most = depth
			}
		case ')', '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return most
}

// Writes are the files and directories of the project at dir (relative
// to it; a directory with a trailing slash) a script of lang writes, as
// install finds them: its state files and what it writes there, each one
// a --writable entry may name. For the hosts whose hooks are read at each
// call rather than installed (Arcturn's configurations), which get the
// same writes a script installed for another host would.
func Writes(lang launcher.Lang, script []byte, dir string) []string {
	return slices.DeleteFunc(append(stateFiles(script), projectWrites(lang, script)...), func(w string) bool { return !fitsProject(dir, w) })
}

// projectWrites are the paths of the project (relative to it) a script
// writes: files, and directories (a trailing slash) whose files it names
// at run time. Only paths a --writable entry may name.
func projectWrites(lang launcher.Lang, b []byte) []string {
	var found []string
	switch lang {
	case launcher.Shell:
		found = shellWrites(string(b))
	case launcher.Python:
		found = pythonWrites(string(b))
	}
	var out []string
	for _, w := range found {
		if hook.CheckWritable(w) == nil && !codeExt[path.Ext(w)] && !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	// A file inside a directory already whole adds nothing.
	all := slices.Clone(out)
	return slices.DeleteFunc(out, func(w string) bool {
		return slices.ContainsFunc(all, func(d string) bool { return d != w && strings.HasSuffix(d, "/") && strings.HasPrefix(w, d) })
	})
}

// shellWrites reads the script as bash does and resolves each write's
// target (>, >>, &>, mkdir, touch, tee) through its assignments.
func shellWrites(s string) []string {
	f := bashFile(s)
	if f == nil {
		return nil
	}
	vars := map[string]string{}
	var out []string
	moved := false // after a cd, a relative path is no longer the project's
	add := func(w *syntax.Word, dir bool) {
		r, literal := shellPath(w, vars)
		switch {
		case strings.HasPrefix(r, projMark):
			r = strings.TrimPrefix(r, projMark)
		case !moved && literal && plainPath.MatchString(r) && strings.ContainsAny(r, "./") && !strings.HasPrefix(r, "/") && !strings.HasPrefix(r, "-"):
			r = "/" + r // relative: the hook starts in the project
		default:
			return
		}
		if w := writeOf(r, dir); w != "" {
			out = append(out, w)
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil && n.Value != nil && !n.Append && n.Array == nil && n.Index == nil {
				if r, _ := shellPath(n.Value, vars); strings.HasPrefix(r, projMark) {
					vars[n.Name.Value] = r
				} else {
					delete(vars, n.Name.Value)
				}
			}
		case *syntax.Redirect:
			switch n.Op {
			case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
				if n.Word != nil {
					add(n.Word, false)
				}
			}
		case *syntax.CallExpr:
			if len(n.Args) > 0 && (n.Args[0].Lit() == "cd" || n.Args[0].Lit() == "pushd") {
				moved = true
			}
			if len(n.Args) < 2 {
				return true
			}
			switch n.Args[0].Lit() {
			case "mkdir", "touch", "tee":
				for _, a := range n.Args[1:] {
					// mkdir -p "$(dirname "$LOG")" makes the way to a file
					// written below: the file alone is the hook's.
					if !strings.HasPrefix(a.Lit(), "-") && !madeWay(a) {
						add(a, n.Args[0].Lit() == "mkdir")
					}
				}
			}
		}
		return true
	})
	return out
}

// bashFile is s read as bash does; nil when it does not parse, or nests
// too deeply to be read (maxNesting).
func bashFile(s string) *syntax.File {
	if nesting(s) > maxNesting {
		return nil
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	if err != nil {
		return nil
	}
	return f
}

// madeWay reports a word that is the directory of another path:
// $(dirname ...).
func madeWay(w *syntax.Word) bool {
	if len(w.Parts) == 1 {
		if q, ok := w.Parts[0].(*syntax.DblQuoted); ok && len(q.Parts) == 1 {
			w = &syntax.Word{Parts: q.Parts}
		}
	}
	if len(w.Parts) != 1 {
		return false
	}
	c, ok := w.Parts[0].(*syntax.CmdSubst)
	return ok && len(c.Stmts) == 1 && func() bool {
		ce, ok := c.Stmts[0].Cmd.(*syntax.CallExpr)
		return ok && len(ce.Args) > 0 && ce.Args[0].Lit() == "dirname"
	}()
}

// shellPath is a word's value with the project's directory as the mark,
// the script's variables holding a path of it replaced, and any other
// expansion as "$"; literal reports a word of text alone.
func shellPath(w *syntax.Word, vars map[string]string) (_ string, literal bool) {
	return resolveWord(w, nil, func(p *syntax.ParamExp, start bool) string {
		name := ""
		if p.Param != nil {
			name = p.Param.Value
		}
		switch v, ok := vars[name]; {
		case !plainParam(p):
			return "$"
		case rootVars[name] && start:
			return projMark
		case ok && start:
			return v
		}
		return "$"
	}, func(text string, start bool) string {
		if m := dirSubst.FindStringSubmatch(text); m != nil && start && strings.HasPrefix(vars[m[1]], projMark) {
			return path.Dir(vars[m[1]])
		}
		if rootSubst.MatchString(text) && start {
			return projMark
		}
		return "$"
	})
}

// resolveWord is a word's value as a reading resolves it: its text as written
// (through lit, when given), each parameter expansion as param says and
// each command substitution (printed) as subst says, start telling one at
// the word's start from one after text; literal reports a word of text
// alone. Anything else is "$".
func resolveWord(w *syntax.Word, lit func(s string, start bool) string, param func(p *syntax.ParamExp, start bool) string, subst func(text string, start bool) string) (_ string, literal bool) {
	var b strings.Builder
	literal = true
	var part func(p syntax.WordPart)
	part = func(p syntax.WordPart) {
		switch p := p.(type) {
		case *syntax.Lit:
			if lit != nil {
				b.WriteString(lit(p.Value, b.Len() == 0))
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				part(q)
			}
		case *syntax.ParamExp:
			literal = false
			b.WriteString(param(p, b.Len() == 0))
		case *syntax.CmdSubst:
			literal = false
			var src strings.Builder
			syntax.NewPrinter().Print(&src, p)
			b.WriteString(subst(src.String(), b.Len() == 0))
		default:
			literal = false
			b.WriteString("$")
		}
	}
	for _, p := range w.Parts {
		part(p)
	}
	return b.String(), literal
}

// plainParam reports an expansion that is its variable's value:
// ${X:-default} is X; any other operation (${X:+alt}, ${X%/*}, ${X/a/b},
// ${#X}) makes it something else.
func plainParam(p *syntax.ParamExp) bool {
	return !p.Excl && !p.Length && !p.Width && p.Index == nil && p.Slice == nil && p.Repl == nil && p.Names == 0 &&
		(p.Exp == nil || p.Exp.Op == syntax.DefaultUnsetOrNull || p.Exp.Op == syntax.DefaultUnset)
}

// writeOf is the --writable entry of a resolved path below the project
// ("/rules/audit.log"): the file when its name is fixed, the directory of
// its fixed part (a trailing slash) when a variable names the rest; "" for
// a path that is not one the project holds.
func writeOf(p string, dir bool) string {
	if strings.Contains(p, projMark) || slices.Contains(strings.Split(p, "/"), "..") {
		return "" // a way out of the project, or back into it, is not followed
	}
	p = strings.TrimPrefix(path.Clean("/"+p), "/")
	if i := strings.IndexAny(p, "$`*?[{"); i >= 0 {
		fixed := p[:i]
		j := strings.LastIndexByte(fixed, '/')
		if j <= 0 {
			return ""
		}
		return fixed[:j] + "/"
	}
	if p == "" || p == "." {
		return ""
	}
	if dir {
		return p + "/"
	}
	return p
}

// pythonWrites resolves each open(..., "w"/"a"), write_text, makedirs and
// mkdir through the script's assignments.
func pythonWrites(s string) []string {
	vars := map[string]string{}
	for _, m := range pyAssign.FindAllStringSubmatch(s, -1) {
		if r := resolvePython(m[2], vars); r != "" {
			vars[m[1]] = r
		}
	}
	var out []string
	for _, m := range pyWrite.FindAllStringSubmatch(s, -1) {
		expr, dir := "", false
		switch {
		case m[1] != "":
			if !strings.ContainsAny(m[2], "wxa+") {
				continue
			}
			expr = m[1]
		case m[3] != "":
			expr = m[3]
		case m[4] != "":
			expr, dir = m[4], true
		default:
			expr, dir = m[5], true
		}
		if dir && (strings.Contains(expr, "dirname(") || strings.HasSuffix(expr, ".parent")) {
			continue // the way to a file written below: the file alone is the hook's
		}
		r := resolvePython(strings.TrimSpace(expr), vars)
		if r == "" {
			continue
		}
		if w := writeOf(strings.TrimPrefix(r, projMark), dir); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// resolvePython is the project path an expression names: a relative
// string literal (the hook starts in the project) or the default of an
// environment lookup; the project's directory (its variables, the working
// directory) or a variable holding a path of it, joined (os.path.join, /)
// with literals; "" for anything else.
func resolvePython(e string, vars map[string]string) string {
	e = strings.TrimSpace(e)
	if r, ok := vars[e]; ok {
		return r
	}
	base := ""
	rest := e
	if loc := pyRoot.FindStringIndex(e); loc != nil {
		base, rest = projMark, e[loc[1]:]
		// A lookup's own default (os.environ.get("CLAUDE_PROJECT_DIR",
		// ".")) is the root too; os.environ["X"] and os.getcwd() end there.
		if m := e[loc[0]:loc[1]]; strings.HasSuffix(m, ".get(") || strings.HasPrefix(m, "os.getenv(") {
			if _, after, ok := strings.Cut(rest, ")"); ok {
				rest = after
			}
		}
	} else {
		for _, id := range pyIdent.FindAllString(e, -1) {
			if r, ok := vars[id]; ok && strings.HasPrefix(r, projMark) {
				base, rest = r, e[strings.Index(e, id)+len(id):]
				break
			}
		}
	}
	var parts []string
	for _, l := range pyStr.FindAllStringSubmatch(rest, -1) {
		parts = append(parts, l[1])
	}
	if base != "" {
		for _, p := range parts {
			if p == "" || strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.ContainsAny(p, " %\\") {
				return ""
			}
		}
		return strings.Join(append([]string{base}, parts...), "/")
	}
	// No project directory: a lone literal, or a lookup's default, is
	// relative to where the hook starts.
	if len(parts) == 0 || !(len(parts) == 1 || pyLookup.MatchString(e)) {
		return ""
	}
	last := parts[len(parts)-1]
	if last == "" || strings.HasPrefix(last, "/") || strings.HasPrefix(last, "~") || strings.ContainsAny(last, " %\\{") || !strings.ContainsAny(last, "./") {
		return ""
	}
	return projMark + "/" + last
}

// fitsProject reports whether w can be a --writable entry of the project
// at dir as it is now: what exists of its way is directories (no link),
// and what exists of it is a directory for a directory's entry, a regular
// file for a file's. A run would refuse any other, at every call.
func fitsProject(dir, w string) bool {
	if dir == "" {
		return true
	}
	whole := strings.HasSuffix(w, "/")
	parts := strings.Split(strings.TrimSuffix(w, "/"), "/")
	for i := range parts {
		fi, err := os.Lstat(filepath.Join(dir, filepath.Join(parts[:i+1]...)))
		if err != nil {
			return true // made at the run
		}
		last := i == len(parts)-1
		switch {
		case !last || whole:
			if !fi.IsDir() {
				return false
			}
		case !fi.Mode().IsRegular():
			return false
		}
	}
	return true
}

// granted adds the paths the person named at install (Options.Writable)
// to what a hook was found to write.
func granted(o Options, found []string) []string {
	for _, w := range o.Writable {
		if !slices.Contains(found, w) {
			found = append(found, w)
		}
	}
	return found
}
