package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/host/install"
	"github.com/hookexec/hook-exec/internal/engineenv"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/scriptpin"
)

// printPlan shows every hook as the owner approves it: where it is, what
// it runs, the digest of its script, and (dry run) the command written.
func printPlan(io stdio, p *install.Plan, commands bool) {
	for _, f := range p.Files {
		state := ""
		switch {
		case f.Edited:
			state = " (installed before, and edited since: the edits stay; approving again from what it holds without install's commands)"
		case f.Committed:
			state = " (installed where it was committed: approving the pins its record beside it names)"
		case f.Reinstall:
			state = " (installed before: approving again from its original)"
		}
		if pl := f.Plugin; pl != nil {
			fmt.Fprintf(io.out, "plugin %s %s: ", esc(pl.Key), esc(pl.Version))
			state += fmt.Sprintf("\n  its tree, copied to %s, sha256 %s: the hooks run that copy, read-only", esc(pl.Copy), pl.TreeSHA256)
		}
		fmt.Fprintf(io.out, "%s%s\n", esc(f.Path), state)
		if f.Target != "" && f.Target != f.Path {
			fmt.Fprintf(io.out, "  a link: install writes %s\n", esc(f.Target))
		}
		for _, h := range f.Hooks {
			m := ""
			if h.Matcher != "" {
				m = " [" + esc(h.Matcher) + "]"
			}
			fmt.Fprintf(io.out, "  %s%s %s\n    command: %s\n", esc(h.Event), m, esc(h.Pointer), esc(h.Command))
			switch {
			case h.Err != nil:
				fmt.Fprintf(io.out, "    refused: %s\n", esc(h.Err.Error()))
				continue
			case h.Inline:
				fmt.Fprintf(io.out, "    runs as: a bash script of this line, %s, sha256 %s\n", esc(h.Script), h.SHA256)
			default:
				fmt.Fprintf(io.out, "    script:  %s, sha256 %s\n", esc(h.Script), h.SHA256)
			}
			if len(h.Env) > 0 {
				fmt.Fprintf(io.out, "    env:     %s (declared to its sandbox)\n", esc(strings.Join(h.Env, " ")))
			}
			if h.Note != "" {
				fmt.Fprintf(io.out, "    note:    %s\n", esc(h.Note))
			}
			if commands {
				fmt.Fprintf(io.out, "    becomes: %s\n", esc(h.Installed))
			}
		}
		for _, x := range f.Others {
			fmt.Fprintf(io.out, "  %s %s: left as it is: %s\n", esc(x.Event), esc(x.Pointer), esc(x.Why))
		}
	}
	engine := "the defaults (docker, its local socket)"
	if len(p.Opts.Engine) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(p.Opts.Engine)) {
			kv = append(kv, k+"="+p.Opts.Engine[k])
		}
		engine = strings.Join(kv, " ")
	}
	fmt.Fprintf(io.out, "engine: %s, pinned in %s: the installed hooks run there whatever environment %s hands them\n",
		esc(engine), esc(filepath.Join(p.Opts.StateDir, engineenv.FileName)), p.Host.Name)
	if f := checkFile(p); f != nil {
		fmt.Fprintf(io.out, "%s: hook-exec's own %s hook: at the start of each session, it tells you of any hook %s would run outside the sandbox (a plugin installed since, a hook added since, a project's file replaced)\n", esc(f.Path), p.Host.CheckEvent, p.Host.Name)
		if commands {
			fmt.Fprintf(io.out, "    command: %s\n", esc(f.Check))
		}
	}
	if p.NoCheck != "" {
		fmt.Fprintf(io.out, "note: %s: hook-exec install %s --check tells what runs outside the sandbox\n", esc(p.NoCheck), p.Host.Name)
	}
	if len(p.UserPlugins) > 0 {
		fmt.Fprintf(io.out, "note: the plugins installed for you (%s) run their hooks outside the sandbox until: hook-exec install %s --user\n", esc(strings.Join(p.UserPlugins, ", ")), p.Host.Name)
	}
	fmt.Fprintf(io.out, "hooks digest: %s\n", p.Digest)
}

// checkFile is the file the plan adds install's own hook to, nil if none.
func checkFile(p *install.Plan) *install.File {
	if p.UserCheck != nil {
		return p.UserCheck
	}
	for _, f := range p.Files {
		if f.Check != "" {
			return f
		}
	}
	return nil
}

// devcontainer is the image of the project's devcontainer.json when the
// engine has it and it runs every language of the project's own hooks
// (said either way); "" keeps the reference images.
func devcontainer(ctx context.Context, io stdio, g *globals, p *install.Plan) string {
	dev, err := install.DevcontainerImage(p.Opts.ProjectDir)
	switch {
	case err != nil:
		fmt.Fprintf(io.out, "the project's devcontainer: %v: its hooks run in the reference images\n", err)
		return ""
	case dev == "":
		return ""
	}
	var langs []launcher.Lang
	for _, f := range p.Files {
		if f.Plugin != nil {
			continue
		}
		for _, h := range f.Hooks {
			if l, ok := hookLang(&h); ok && !slices.Contains(langs, l) {
				langs = append(langs, l)
			}
		}
	}
	if len(langs) == 0 {
		return ""
	}
	o := g.sandboxEngine()
	o.Ping = true
	e, err := engine.Open(ctx, o)
	if err != nil {
		fmt.Fprintf(io.out, "the project's devcontainer image %s: not checked (%v): its hooks run in the reference images\n", esc(dev), err)
		return ""
	}
	defer e.Close()
	rep, err := executor.CheckImage(ctx, e.Backend(), dev, langs, nil)
	if err != nil {
		fmt.Fprintf(io.out, "the project's devcontainer image %s: %v: its hooks run in the reference images (pull or build it, then install again)\n", esc(dev), err)
		return ""
	}
	for _, l := range langs {
		if m := rep.Langs[l].Missing; len(m) > 0 {
			fmt.Fprintf(io.out, "the project's devcontainer image %s cannot run .%s hooks (it lacks %s): its hooks run in the reference images\n", esc(dev), l, strings.Join(m, ", "))
			return ""
		}
	}
	fmt.Fprintf(io.out, "the project's devcontainer image %s runs the project's own hooks (its toolchain; --image IMAGE chooses another)\n", esc(dev))
	return dev
}

// hookLang is the language a hook's script runs in.
func hookLang(h *install.Hook) (launcher.Lang, bool) {
	if h.Err != nil {
		return "", false
	}
	body := h.Body
	if !h.Inline {
		var err error
		if body, err = os.ReadFile(h.Script); err != nil {
			return "", false
		}
	}
	lang, err := scriptpin.CheckShebang(filepath.Base(h.Script), body)
	return lang, err == nil
}

// reportImage tells, for each hook of p, what it calls that the plan's
// image lacks (one probe of the image for all of them): the hook is
// refused when it calls one. An engine that does not answer is said, and
// install goes on.
func reportImage(ctx context.Context, io stdio, g *globals, p *install.Plan) {
	image := cmp.Or(p.Opts.Image, p.Opts.ProjectImage)
	type call struct {
		where string
		rep   *executor.ScriptReport
	}
	var calls []call
	var progs []string
	langs := []launcher.Lang{}
	for _, f := range p.Files {
		if p.Opts.Image == "" && f.Plugin != nil {
			continue // a plugin's hooks run in the reference images
		}
		for _, h := range f.Hooks {
			lang, ok := hookLang(&h)
			if !ok {
				continue
			}
			body := h.Body
			if !h.Inline {
				body, _ = os.ReadFile(h.Script)
			}
			if !slices.Contains(langs, lang) {
				langs = append(langs, lang)
			}
			rep := &executor.ScriptReport{File: h.Script}
			if lang == launcher.Shell || lang == launcher.Node {
				var err error
				if rep, err = executor.ReadScript(h.Script, body, []launcher.Lang{lang}); err != nil {
					continue
				}
			}
			for _, pr := range rep.Programs {
				if !slices.Contains(progs, pr) {
					progs = append(progs, pr)
				}
			}
			calls = append(calls, call{where: f.Path + " " + h.Pointer, rep: rep})
		}
	}
	o := g.sandboxEngine()
	o.Ping = true
	e, err := engine.Open(ctx, o)
	if err != nil {
		fmt.Fprintf(io.out, "image %s: not checked (%v): hook-exec image check %s --script FILE tells what it lacks\n", esc(image), err, esc(image))
		return
	}
	defer e.Close()
	rep, err := executor.CheckImage(ctx, e.Backend(), image, langs, nil)
	if err != nil {
		fmt.Fprintf(io.out, "image %s: not checked: %v\n", esc(image), err)
		return
	}
	for _, l := range langs {
		if m := rep.Langs[l].Missing; len(m) > 0 {
			fmt.Fprintf(io.out, "image %s cannot run .%s hooks: it lacks %s: every such hook is refused\n", esc(image), l, strings.Join(m, ", "))
		}
	}
	missing, err := executor.MissingPrograms(ctx, e.Backend(), image, progs)
	if err != nil {
		fmt.Fprintf(io.out, "image %s: the programs the hooks call not checked: %v\n", esc(image), err)
		return
	}
	for _, c := range calls {
		var lacks []string
		for _, pr := range c.rep.Programs {
			if slices.Contains(missing, pr) {
				lacks = append(lacks, pr)
			}
		}
		if len(lacks) > 0 {
			fmt.Fprintf(io.out, "image %s lacks what %s calls: %s (the hook is refused when it calls one)\n", esc(image), esc(c.where), esc(strings.Join(lacks, ", ")))
		}
	}
}
