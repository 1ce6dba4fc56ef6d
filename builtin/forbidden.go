package builtin

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"

	"github.com/hookexec/hook-exec/hook"
)

type forbiddenOptions struct {
	// Fold applies the Windows and macOS readings (other casings, trailing
	// dots and spaces, NTFS stream suffixes, 8.3 short names); default on
	// those systems only.
	Fold *bool `json:"fold,omitzero"`
}

// forbiddenPath denies a call when any argument that names a path reaches
// a forbidden file, by its text or by where it leads.
func forbiddenPath(ev *eventView, o forbiddenOptions) (*hook.Decision, error) {
	fold := runtime.GOOS == "windows" || runtime.GOOS == "darwin"
	if o.Fold != nil {
		fold = *o.Fold
	}
	for _, a := range hook.PathArguments(ev.Data["args"]) {
		for _, p := range []string{lexical(a.Value, ev.Workspace), resolved(a.Value, ev.Workspace)} {
			if rule := ForbiddenRule(p, fold); rule != "" {
				return &hook.Decision{SchemaVersion: 1, Action: hook.DenyAction,
					Reason: fmt.Sprintf("forbidden path: %s (%s) %s", a.Name, a.Value, rule)}, nil
			}
		}
	}
	return allow(), nil
}

// lexical is the path as the file tools take it: from the workspace when
// relative (a leading \ too, on Windows), .. folded, relative to the
// workspace when inside it.
func lexical(p, workspace string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if !path.IsAbs(p) && workspace != "" {
		p = path.Join(workspace, p)
	}
	return relTo(path.Clean(p), workspace)
}

// resolved follows links (dangling ones too, to where they point) from the
// workspace, at most 40 of them, as the kernel walks a path: a .. after a
// link goes up from where the link led, not from the link's own name.
func resolved(p, workspace string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	if !path.IsAbs(p) {
		if workspace == "" {
			return path.Clean(p)
		}
		p = workspace + "/" + p
	}
	ws := workspace
	if r, err := filepath.EvalSymlinks(workspace); err == nil {
		ws = r
	}
	comps := strings.Split(p, "/")
	cur := "/"
	for hops := 0; len(comps) > 0; {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			cur = path.Dir(cur)
			continue
		}
		next := path.Join(cur, c)
		target, err := os.Readlink(next)
		if err != nil || hops >= 40 { // not a link, or not there: taken as written
			cur = next
			continue
		}
		hops++
		if path.IsAbs(target) {
			cur = "/"
		}
		comps = append(strings.Split(target, "/"), comps...)
	}
	if workspace != "" {
		if rel := relTo(cur, ws); rel != cur {
			return rel
		}
	}
	return relTo(cur, workspace)
}

// relTo is p relative to dir when inside it, else p.
func relTo(p, dir string) string {
	if dir == "" {
		return p
	}
	dir = path.Clean(strings.ReplaceAll(dir, `\`, "/"))
	if p == dir {
		return "."
	}
	if rel, ok := strings.CutPrefix(p, strings.TrimSuffix(dir, "/")+"/"); ok {
		return rel
	}
	return p
}

// shortName is an 8.3 short name: up to six characters, ~ and a digit.
var shortName = regexp.MustCompile(`(?i)^([a-z0-9_$%'@{}!#()&^-]{1,6})~[0-9]+(\.[a-z0-9]{0,3})?$`)

// shortStems are the 8.3 stems of the forbidden names (a leading dot dropped).
var shortStems = []string{"env", "git", "ssh", "creden", "privat"}

// ForbiddenRule says which rule a slash-separated, cleaned path breaks
// ("" for none). fold applies the Windows and macOS readings. A path
// inside the workspace is given relative to it, so the workspace's own
// folder names never count.
func ForbiddenRule(p string, fold bool) string {
	comps := strings.Split(p, "/")
	for i, c := range comps {
		n := c
		if fold {
			n = foldName(c)
			if m := shortName.FindStringSubmatch(n); m != nil {
				stem := strings.ToLower(m[1])
				for _, s := range shortStems {
					if strings.HasPrefix(s, stem) || strings.HasPrefix(stem, s) {
						return fmt.Sprintf("may be an 8.3 short name (%s) of a forbidden name", c)
					}
				}
			}
		}
		last := i == len(comps)-1
		switch {
		case n == ".git":
			return "is under .git"
		case n == ".ssh":
			return "is under .ssh"
		case last && (n == ".env" || strings.HasPrefix(n, ".env.")):
			return "is a .env file"
		case strings.Contains(n, "credentials"):
			return "has a name containing credentials"
		case strings.Contains(n, "private-key"):
			return "has a name containing private-key"
		}
	}
	return ""
}

// foldName reads a name as Windows and macOS do: any casing, trailing dots
// and spaces ignored, an NTFS stream suffix (::$DATA, :stream) dropped.
func foldName(n string) string {
	if i := strings.IndexByte(n, ':'); i > 0 && !(i == 1 && len(n) >= 2) {
		n = n[:i]
	}
	n = strings.TrimRight(n, ". ")
	return strings.ToLower(n)
}
