package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Removal names the kind of a PATH entry removed because it names the
// handler's working directory. Warnings name the kind, never the entry.
type Removal string

const (
	EmptyEntry    Removal = "an empty entry"
	DotEntry      Removal = "a dot entry"
	RelativeEntry Removal = "a relative entry resolving to it"
	FullPath      Removal = "its full path"
	ProfileEntry  Removal = "a ~ entry resolving to it"
)

// SanitizePATH removes from a POSIX PATH every entry that names workdir:
// an empty entry (a leading, trailing or doubled ':'), ".", a relative
// entry that resolves to it (such as "bin/.."), or its full path (also
// through a symlink). Other relative entries, such as node_modules/.bin,
// are kept and still resolve against workdir.
func SanitizePATH(path, workdir string) (string, []Removal) {
	var kept []string
	var removed []Removal
	for _, e := range strings.Split(path, ":") {
		if r := posixRemoval(e, workdir); r != "" {
			removed = append(removed, r)
			continue
		}
		kept = append(kept, e)
	}
	return strings.Join(kept, ":"), removed
}

func posixRemoval(e, workdir string) Removal {
	switch {
	case e == "":
		return EmptyEntry
	case e == ".":
		return DotEntry
	}
	abs, kind := e, FullPath
	if !filepath.IsAbs(e) {
		abs, kind = filepath.Join(workdir, e), RelativeEntry
	}
	if filepath.Clean(abs) == filepath.Clean(workdir) {
		return kind
	}
	// The same directory under another name (a symlink).
	a, errA := os.Stat(abs)
	w, errW := os.Stat(workdir)
	if errA == nil && errW == nil && os.SameFile(a, w) {
		return kind
	}
	return ""
}

// SanitizeWindowsPATH is [SanitizePATH] for a Windows PATH (';'
// separated), reading each entry the way cmd.exe, Node, PowerShell and the
// system's program search do: double quotes anywhere are dropped
// (C:\"project"), a whole entry in single quotes counts ('.'), leading
// spaces are ignored, "~" is the profile folder, names compare without
// case, and a path starting with \ is on workdir's drive. An entry of only
// spaces names nothing and is kept.
func SanitizeWindowsPATH(path, workdir, profile string) (string, []Removal) {
	var kept []string
	var removed []Removal
	for _, e := range strings.Split(path, ";") {
		if r := WindowsRemoval(e, workdir, profile); r != "" {
			removed = append(removed, r)
			continue
		}
		kept = append(kept, e)
	}
	return strings.Join(kept, ";"), removed
}

// WindowsRemoval says whether one Windows PATH entry names workdir, and as
// what; "" means it does not.
func WindowsRemoval(entry, workdir, profile string) Removal {
	if entry == "" {
		return EmptyEntry
	}
	if strings.TrimLeft(entry, " ") == "" {
		return "" // an entry of spaces names nothing
	}
	e := strings.TrimLeft(entry, " ")
	e = strings.ReplaceAll(e, `"`, "")
	if len(e) >= 2 && e[0] == '\'' && e[len(e)-1] == '\'' {
		e = e[1 : len(e)-1]
	}
	e = strings.ReplaceAll(e, "/", `\`)
	kind := FullPath
	switch {
	case e == "":
		return EmptyEntry
	case e == "." || e == `.\`:
		return DotEntry
	case e == "~" || strings.HasPrefix(e, `~\`):
		if profile == "" {
			return ""
		}
		e, kind = profile+e[1:], ProfileEntry
	case len(e) >= 2 && e[1] == ':':
		// drive-qualified
	case strings.HasPrefix(e, `\`):
		e = winDrive(workdir) + e
	default:
		e, kind = workdir+`\`+e, RelativeEntry
	}
	if winClean(e) == winClean(workdir) {
		return kind
	}
	return ""
}

func winDrive(p string) string {
	if len(p) >= 2 && p[1] == ':' {
		return p[:2]
	}
	return ""
}

// winClean folds a Windows path for comparison: one separator, no "." or
// "..", no trailing separator, no case.
func winClean(p string) string {
	p = strings.ReplaceAll(p, "/", `\`)
	drive := winDrive(p)
	var parts []string
	for _, c := range strings.Split(p[len(drive):], `\`) {
		switch c {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			parts = append(parts, strings.TrimRight(c, ". ")) // Windows drops trailing dots and spaces
		}
	}
	return strings.ToLower(drive + `\` + strings.Join(parts, `\`))
}

// removalNote is the warning for the removed entries: their kinds, never
// their text.
func removalNote(removed []Removal) string {
	if len(removed) == 0 {
		return ""
	}
	kinds := make([]string, len(removed))
	for i, r := range removed {
		kinds[i] = string(r)
	}
	noun := "entry"
	if len(removed) > 1 {
		noun = "entries"
	}
	return fmt.Sprintf("removed %d PATH %s naming its working directory (%s); programs are looked up elsewhere on PATH.",
		len(removed), noun, strings.Join(kinds, ", "))
}
