package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/images"
	"github.com/hookexec/hook-exec/launcher"
)

func cmdImages(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 {
		return usageErr(io.err, "images: want `images build` or `images list`")
	}
	fs := newFlagSet("images "+args[0], io.err)
	backendFlag := fs.String("backend", "", "engine: docker (default; env HOOKEXEC_BACKEND)")
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return flagErr(err)
	}
	if len(pos) > 0 {
		return usageErr(io.err, "images %s: unexpected argument %q", args[0], pos[0])
	}
	eng, err := openEngine(backendName(*backendFlag))
	if err != nil {
		return usageErr(io.err, "images: %v", err)
	}
	defer eng.Close()
	dock, err := eng.needDocker("images")
	if err != nil {
		return usageErr(io.err, "%v", err)
	}
	switch args[0] {
	case "build":
		b := &images.Builder{Docker: dock.Client(), Out: io.out}
		for _, r := range images.Reference {
			if _, err := b.Build(ctx, r); err != nil {
				fmt.Fprintf(io.err, "hook-exec: images build: %s: %v\n", r.Name, err)
				return exitFail
			}
		}
		return exitOK
	case "list":
		list, err := images.List(ctx, dock.Client())
		if err != nil {
			fmt.Fprintf(io.err, "hook-exec: images list: %v\n", err)
			return exitFail
		}
		for _, im := range list {
			fmt.Fprintf(io.out, "%s\t%s\t%.1f MB\n", im.Ref, im.Recipe, float64(im.Size)/1e6)
		}
		return exitOK
	}
	return usageErr(io.err, "images: unknown subcommand %q: want build or list", args[0])
}

func cmdImage(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 || args[0] != "check" {
		return usageErr(io.err, "image: want `image check IMAGE [--lang sh|py] [--json]`")
	}
	fs := newFlagSet("image check", io.err)
	lang := fs.String("lang", "", "check only this language: sh or py (default both)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	backendFlag := fs.String("backend", "", "engine: docker (default; env HOOKEXEC_BACKEND)")
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return flagErr(err)
	}
	if len(pos) != 1 {
		return usageErr(io.err, "image check: want exactly one IMAGE")
	}
	langs := []launcher.Lang{launcher.Shell, launcher.Python}
	switch *lang {
	case "":
	case "sh", "py":
		langs = []launcher.Lang{launcher.Lang(*lang)}
	default:
		return usageErr(io.err, "image check: --lang %q: use sh or py", *lang)
	}
	eng, err := openEngine(backendName(*backendFlag))
	if err != nil {
		return usageErr(io.err, "image check: %v", err)
	}
	defer eng.Close()
	if _, err := eng.needDocker("image check"); err != nil {
		return usageErr(io.err, "%v", err)
	}
	rep, err := executor.CheckImage(ctx, eng, pos[0], langs)
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: image check: %v\n", err)
		return exitFail
	}
	if *asJSON {
		json.NewEncoder(io.out).Encode(rep)
	} else {
		for _, l := range langs {
			lr := rep.Langs[l]
			state := "runnable"
			if !lr.Runnable {
				state = "NOT runnable: missing " + strings.Join(lr.Missing, ", ")
			}
			fmt.Fprintf(io.out, "%s .%s: %s\n", rep.Image, l, state)
			for _, p := range launcher.Required(l) {
				mark := "ok"
				if present, checked := lr.Present[p]; !checked {
					mark = "not checked (no interpreter)"
				} else if !present {
					mark = "MISSING"
				}
				fmt.Fprintf(io.out, "  %-7s %s\n", p, mark)
			}
		}
	}
	if !rep.OK() {
		for _, l := range langs {
			if m := rep.Langs[l].Missing; len(m) > 0 {
				fmt.Fprintf(io.err, "hook-exec: image %s cannot run .%s hooks: it must provide %s\n", rep.Image, l, strings.Join(m, ", "))
			}
		}
		return exitFail
	}
	return exitOK
}

func cmdGC(ctx context.Context, args []string, io stdio) int {
	fs := newFlagSet("gc", io.err)
	all := fs.Bool("all", false, "remove every hook-exec sandbox, also those of live owners")
	backendFlag := fs.String("backend", "", "engine: docker (default; env HOOKEXEC_BACKEND)")
	if _, err := parseFlags(fs, args); err != nil {
		return flagErr(err)
	}
	eng, err := openEngine(backendName(*backendFlag))
	if err != nil {
		return usageErr(io.err, "gc: %v", err)
	}
	defer eng.Close()
	dock, err := eng.needDocker("gc")
	if err != nil {
		return usageErr(io.err, "%v", err)
	}
	n, err := dock.Sweep(ctx, *all)
	fmt.Fprintf(io.out, "removed %d sandbox(es)\n", n)
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: gc: %v\n", err)
		return exitFail
	}
	return exitOK
}
