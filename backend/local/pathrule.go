package local

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	if filepath.Clean(abs) == filepath.Clean(workdir) || sameDir(abs, workdir) {
		return kind
	}
	return ""
}

// sameDir says whether a and b are the same directory under two names (a
// symlink; on Windows also a junction or an 8.3 short name).
func sameDir(a, b string) bool {
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// SanitizeWindowsPATH is [SanitizePATH] for a Windows PATH (';'
// separated), each entry read as [WindowsRemoval] reads it. An entry of
// only spaces names nothing and is kept.
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
// what; "" means it does not. It reads the entry the way cmd.exe, Node,
// PowerShell and the system's program search do (see windowsEntry), names
// compare without case, and the same directory under another name (an 8.3
// short name, a junction, a link) counts too.
func WindowsRemoval(entry, workdir, profile string) Removal {
	dir, kind := windowsEntry(entry, workdir, profile)
	switch {
	case kind == EmptyEntry || kind == DotEntry:
		return kind
	case dir != "" && (winClean(dir) == winClean(workdir) || sameDir(dir, workdir)):
		return kind
	}
	return ""
}

// windowsEntry reads one Windows PATH entry: double quotes anywhere are
// dropped (C:\"project"), a whole entry in single quotes counts ('.'),
// leading spaces are ignored, "~" is the profile folder, a device prefix
// (\\?\, \\.\) is dropped, a path starting with \ is on workdir's drive,
// and a relative entry (also "C:bin" on workdir's drive) is in workdir. It
// returns the directory the entry names and its kind should it name
// workdir; "" for an entry of spaces, or "~" without a profile folder.
func windowsEntry(entry, workdir, profile string) (string, Removal) {
	if entry == "" {
		return "", EmptyEntry
	}
	e := strings.TrimLeft(entry, " ")
	if e == "" {
		return "", "" // an entry of spaces names nothing
	}
	e = strings.ReplaceAll(e, `"`, "")
	if len(e) >= 2 && e[0] == '\'' && e[len(e)-1] == '\'' {
		e = e[1 : len(e)-1]
	}
	for _, dev := range []string{`\\?\`, `\\.\`, `//?/`, `//./`} {
		e = strings.TrimPrefix(e, dev)
	}
	drive := winDrive(e)
	rest := e[len(drive):]
	rooted := strings.HasPrefix(rest, `\`) || strings.HasPrefix(rest, "/")
	switch {
	case e == "":
		return "", EmptyEntry // "" or ''
	case e == "." || e == `.\` || e == "./":
		return workdir, DotEntry
	case e == "~" || strings.HasPrefix(e, `~\`) || strings.HasPrefix(e, "~/"):
		if profile == "" {
			return "", ""
		}
		return profile + e[1:], ProfileEntry
	case drive != "" && rooted:
		return e, FullPath
	case drive != "" && !strings.EqualFold(drive, winDrive(workdir)):
		return e, FullPath // relative to another drive's current directory: not workdir
	case drive != "":
		return workdir + `\` + rest, RelativeEntry // "C:" or "C:bin" on workdir's drive
	case rooted:
		return winDrive(workdir) + e, FullPath
	}
	return workdir + `\` + e, RelativeEntry
}

func winDrive(p string) string {
	if len(p) >= 2 && p[1] == ':' {
		return p[:2]
	}
	return ""
}

// winClean folds a Windows path for comparison: one separator, no "." or
// "..", no trailing separator, no case. Windows drops a name's trailing
// dots and spaces, so "bin. " is bin, and ". " and ".. " read as . and ..:
// where Windows' own reading is unclear, reading more entries as the
// working directory is the safe side.
func winClean(p string) string {
	p = strings.ReplaceAll(p, "/", `\`)
	drive := winDrive(p)
	var parts []string
	for _, c := range strings.Split(p[len(drive):], `\`) {
		c = strings.TrimRight(c, " ")
		switch c {
		case "", ".":
		case "..":
			if len(parts) > 0 {
				parts = parts[:len(parts)-1]
			}
		default:
			if c = strings.TrimRight(c, ". "); c != "" {
				parts = append(parts, c)
			}
		}
	}
	return strings.ToLower(drive + `\` + strings.Join(parts, `\`))
}

// windowsCandidates lists the files a Windows program search tries for a
// program name on path, in order: in each entry, read as windowsEntry
// reads it, the name as given when it ends in one of PATHEXT's extensions,
// then the name with each of them added (.COM, .EXE, .BAT and .CMD when
// PATHEXT is unset).
func windowsCandidates(name, path, workdir, profile, pathext string) []string {
	exts := strings.Split(strings.ToLower(cmp.Or(pathext, ".COM;.EXE;.BAT;.CMD")), ";")
	asGiven := slices.Contains(exts, strings.ToLower(filepath.Ext(name)))
	var out []string
	for _, e := range strings.Split(path, ";") {
		dir, _ := windowsEntry(e, workdir, profile)
		if dir == "" {
			continue
		}
		dir = strings.TrimRight(dir, `\/`) + `\`
		if asGiven {
			out = append(out, dir+name)
		}
		for _, x := range exts {
			if x != "" {
				out = append(out, dir+name+x)
			}
		}
	}
	return out
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
	return fmt.Sprintf("Hook lint: removed %d PATH %s naming its working directory (%s); programs are looked up elsewhere on PATH.",
		len(removed), noun, strings.Join(kinds, ", "))
}

// noCwdSearch, set to 1 in the environment of a handler run on a Windows
// host, turns off the search of the working directory, before PATH, for
// a program started by name (a command run through cmd.exe, an npm shim
// finding node). PATH itself is the PATH rule's business.
const noCwdSearch = "NoDefaultCurrentDirectoryInExePath"

// hostEnv is the environment of a handler the local backend runs on a host
// of goos (runtime.GOOS; getenv reads the host's environment), the PATH
// its program is looked up on, and the PATH entries removed. That PATH is
// the one the handler declares, else the host's, less every entry naming
// workdir, read as goos reads PATH; then come a few host values programs
// need and the declared values. On Windows names compare without case and
// NoDefaultCurrentDirectoryInExePath=1 comes last, whatever the handler
// declares.
func hostEnv(goos string, getenv func(string) string, declared []string, workdir string) ([]string, string, []Removal) {
	windows := goos == "windows"
	named := func(kv, name string) bool {
		k, _, _ := strings.Cut(kv, "=")
		return k == name || windows && strings.EqualFold(k, name)
	}
	path := getenv("PATH")
	var rest []string
	for _, kv := range declared {
		switch {
		case named(kv, "PATH"):
			_, path, _ = strings.Cut(kv, "=")
		case windows && named(kv, noCwdSearch):
			// set below
		default:
			rest = append(rest, kv)
		}
	}
	if !windows {
		path, removed := SanitizePATH(path, workdir)
		env := []string{"PATH=" + path, "HOME=" + getenv("HOME"), "LANG=C.UTF-8", "TMPDIR=" + cmp.Or(getenv("TMPDIR"), "/tmp")}
		return append(env, rest...), path, removed
	}
	path, removed := SanitizeWindowsPATH(path, workdir, getenv("USERPROFILE"))
	env := []string{"PATH=" + path}
	for _, name := range []string{"PATHEXT", "SystemRoot", "USERPROFILE", "TEMP", "TMP"} {
		if v := getenv(name); v != "" {
			env = append(env, name+"="+v)
		}
	}
	return append(append(env, rest...), noCwdSearch+"=1"), path, removed
}
