package executor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/internal/shellsyntax"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// probeTimeout bounds one probe container.
const probeTimeout = 20 * time.Second

// ImageReport says which launcher programs an image provides, per language.
type ImageReport struct {
	Image string                       `json:"image"`
	Langs map[launcher.Lang]LangReport `json:"languages"`
	// Script is what a shell script calls, when one was given.
	Script *ScriptReport `json:"script,omitempty"`
}

// ScriptReport lists the programs a shell script calls (read from its
// parsed text: its shell first) and those the image lacks.
type ScriptReport struct {
	File     string   `json:"file"`
	Shell    string   `json:"shell"`
	Programs []string `json:"programs"`
	Missing  []string `json:"missing,omitempty"`
}

// ReadScript reports what a script calls, for CheckImage: its shell (from
// its #! line; sh without one) and every command it names. A JavaScript
// hook (langs holds node) calls node; what it runs is not read here.
func ReadScript(file string, body []byte, langs []launcher.Lang) (*ScriptReport, error) {
	if slices.Contains(langs, launcher.Node) {
		return &ScriptReport{File: file, Shell: "node", Programs: []string{"node"}}, nil
	}
	shell, _, err := launcher.Shebang(body)
	if err != nil {
		return nil, err
	}
	if shell == "" {
		shell = "sh"
	}
	progs, err := shellsyntax.Programs(body, shell)
	if err != nil {
		return nil, err
	}
	progs = slices.DeleteFunc(progs, func(p string) bool { return p == shell })
	return &ScriptReport{File: file, Shell: shell, Programs: append([]string{shell}, progs...)}, nil
}

// LangReport is one language's programs.
type LangReport struct {
	Runnable bool            `json:"runnable"`
	Present  map[string]bool `json:"programs"`
	Missing  []string        `json:"missing,omitempty"`
	// Unchecked programs could not be asked for: the interpreter is missing.
	Unchecked []string `json:"unchecked,omitempty"`
}

// OK reports whether every language checked is runnable and the image
// has every program the script calls.
func (r *ImageReport) OK() bool {
	if r.Script != nil && len(r.Script.Missing) > 0 {
		return false
	}
	for _, l := range r.Langs {
		if !l.Runnable {
			return false
		}
	}
	return true
}

// shProbe prints the name of each of the programs (after sh) the shell
// cannot find.
func shProbe(progs []string) string {
	return `for p in ` + strings.Join(progs, " ") + `; do command -v "$p" >/dev/null 2>&1 || echo "$p"; done`
}

// CheckImage runs a hardened probe container per language and reports
// which of the launcher's programs the image provides; with a script (see
// ReadScript), also which of the programs it calls the image lacks: "jq:
// missing" before a guard silently allows. A backend that isolates
// nothing has no images to check: backend.ErrNotIsolated.
func CheckImage(ctx context.Context, b backend.Backend, image string, langs []launcher.Lang, script *ScriptReport) (*ImageReport, error) {
	if !b.Isolating() {
		return nil, fmt.Errorf("image check needs a container backend, not %s: %w", b.Name(), backend.ErrNotIsolated)
	}
	rep := &ImageReport{Image: image, Langs: map[launcher.Lang]LangReport{}}
	for _, lang := range langs {
		var argv []string
		switch lang {
		case launcher.Shell, launcher.Node:
			argv = []string{"sh", "-c", shProbe(launcher.Required(lang)[1:])}
		case launcher.Python:
			argv = []string{"python", "-I", "-S", "-c", "pass"}
		default:
			return nil, fmt.Errorf("%q: %w", lang, launcher.ErrLang)
		}
		lr := LangReport{Present: map[string]bool{}}
		for _, p := range launcher.Required(lang) {
			lr.Present[p] = true
		}
		spec, err := sandbox.New(image, argv, sandbox.WithEnv(nil))
		if err != nil {
			return nil, err
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		out, err := b.Run(pctx, &backend.Run{Spec: spec, MaxOutput: 4096})
		cancel()
		switch {
		case err != nil && errors.Is(err, backend.ErrStart) && launcher.StartFailure(lang, err) != nil:
			// The interpreter itself is missing: nothing else could be asked.
			for _, p := range launcher.Required(lang)[1:] {
				delete(lr.Present, p)
				lr.Unchecked = append(lr.Unchecked, p)
			}
			lr.Present[launcher.Required(lang)[0]] = false
		case err != nil:
			return nil, fmt.Errorf("probe %s for %s: %w", image, lang, err)
		case out.TimedOut || out.ExitCode != 0:
			return nil, fmt.Errorf("probe %s for %s: exit %d, timed out %v: %s", image, lang, out.ExitCode, out.TimedOut, out.Stderr)
		default:
			for _, p := range strings.Fields(string(out.Stdout)) {
				if _, ok := lr.Present[p]; ok {
					lr.Present[p] = false
				}
			}
		}
		for _, p := range launcher.Required(lang) {
			if present, checked := lr.Present[p]; checked && !present {
				lr.Missing = append(lr.Missing, p)
			}
		}
		lr.Runnable = len(lr.Missing) == 0
		rep.Langs[lang] = lr
	}
	if script != nil {
		missing, err := MissingPrograms(ctx, b, image, script.Programs)
		if err != nil {
			return nil, err
		}
		script.Missing, rep.Script = missing, script
	}
	return rep, nil
}

// programsProbe prints each of its arguments the shell cannot find: the
// names come from a script, as arguments, never as shell text.
const programsProbe = `for p; do command -v "$p" >/dev/null 2>&1 || echo "$p"; done`

// MissingPrograms runs a hardened probe container in image and returns the
// programs it lacks, of progs.
func MissingPrograms(ctx context.Context, b backend.Backend, image string, progs []string) ([]string, error) {
	if len(progs) == 0 {
		return nil, nil
	}
	spec, err := sandbox.New(image, append([]string{"sh", "-c", programsProbe, "probe"}, progs...), sandbox.WithEnv(nil))
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	out, err := b.Run(pctx, &backend.Run{Spec: spec, MaxOutput: 64 << 10})
	switch {
	case err != nil && errors.Is(err, backend.ErrStart) && launcher.NotFound(err, "sh"):
		return nil, fmt.Errorf("probe %s: it has no sh to look programs up with: %w", image, err)
	case err != nil:
		return nil, fmt.Errorf("probe %s: %w", image, err)
	case out.TimedOut || out.ExitCode != 0:
		return nil, fmt.Errorf("probe %s: exit %d, timed out %v: %s", image, out.ExitCode, out.TimedOut, out.Stderr)
	}
	var missing []string
	for _, p := range strings.Fields(string(out.Stdout)) {
		missing = append(missing, p)
	}
	return missing, nil
}
