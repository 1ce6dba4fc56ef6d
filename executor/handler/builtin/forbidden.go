package builtin

import (
	"fmt"
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
// a forbidden file, by its text or by where it leads (hook.PathForms), or
// when where one leads is in doubt.
func forbiddenPath(ev *eventView, o forbiddenOptions) (*hook.Decision, error) {
	fold := runtime.GOOS == "windows" || runtime.GOOS == "darwin"
	if o.Fold != nil {
		fold = *o.Fold
	}
	args, doubt := hook.PathArguments(ev.Data["args"])
	if doubt != nil {
		doubt = fmt.Errorf("cannot tell every path the call names: %w", doubt)
	}
	for _, a := range args {
		forms, err := hook.PathForms(a.Value, ev.Workspace)
		for _, p := range forms {
			if rule := ForbiddenRule(p, fold); rule != "" {
				return deny(fmt.Sprintf("forbidden path: %s (%s) %s", a.Name, a.Value, rule)), nil
			}
		}
		if err != nil && doubt == nil {
			doubt = fmt.Errorf("cannot tell which file %s (%s) reaches: %w", a.Name, a.Value, err)
		}
	}
	if doubt != nil {
		// A guard that cannot tell where a write leads does not let it
		// through: a loop fails the write anyway, no tool writes through
		// another process's /proc entry, and no tool's args nest so deep.
		return deny("forbidden path: " + doubt.Error()), nil
	}
	return allow(), nil
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

func deny(reason string) *hook.Decision {
	return &hook.Decision{SchemaVersion: 1, Action: hook.Deny, Reason: reason}
}
