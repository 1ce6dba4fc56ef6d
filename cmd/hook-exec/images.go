package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/hookexec/hook-exec/backend/containerd"
	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/images"
	"github.com/hookexec/hook-exec/launcher"
)

func cmdImages(ctx context.Context, args []string, io stdio) int {
	if len(args) == 0 {
		return usageErr(io.err, "images: want `images build`, `images list` or `images import FILE`")
	}
	fs := newFlagSet("images "+args[0], io.err)
	backendFlag := fs.String("backend", "", "engine: docker (default; env HOOKEXEC_BACKEND)")
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return flagErr(err)
	}
	if (args[0] == "import") != (len(pos) == 1) || len(pos) > 1 {
		return usageErr(io.err, "images %s: wrong arguments %q", args[0], pos)
	}
	name := backendName(*backendFlag)
	if args[0] == "import" {
		return importArchive(ctx, name, pos[0], io)
	}
	// Images are built by the Docker engine, then copied into containerd.
	dock, err := docker.New()
	if err != nil {
		return usageErr(io.err, "images: %v", err)
	}
	defer dock.Close()
	var ctrd *containerd.Backend
	if name == "containerd" {
		if ctrd, err = containerd.New(ctx, containerdAddress); err != nil {
			fmt.Fprintf(io.err, "hook-exec: images: %v\n", err)
			return exitFail
		}
		defer ctrd.Close()
	} else if name != "docker" {
		return usageErr(io.err, "images: backend %q has no images", name)
	}
	switch args[0] {
	case "build":
		b := &images.Builder{Docker: dock.Client(), Out: io.out}
		for _, r := range images.Reference {
			ref, err := b.Build(ctx, r)
			if err == nil && ctrd != nil && !ctrd.Has(ctx, ref) {
				fmt.Fprintf(io.out, "%s: importing into containerd namespace %s\n", r.Name, containerd.Namespace)
				err = copyToContainerd(ctx, dock, ctrd, ref)
			}
			if err != nil {
				fmt.Fprintf(io.err, "hook-exec: images build: %s: %v\n", r.Name, err)
				return exitFail
			}
		}
		return exitOK
	case "list":
		if ctrd != nil {
			for _, r := range images.Reference {
				ref, err := ctrd.Newest(ctx, r.Repo())
				if err != nil {
					fmt.Fprintf(io.err, "hook-exec: images list: %v\n", err)
					return exitFail
				}
				if ref != "" {
					fmt.Fprintf(io.out, "%s\t%s\n", ref, r.Name)
				}
			}
			return exitOK
		}
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

// copyToContainerd streams `docker save` of ref into containerd.
func copyToContainerd(ctx context.Context, dock *docker.Backend, ctrd *containerd.Backend, ref string) error {
	rc, err := dock.Client().ImageSave(ctx, []string{ref})
	if err != nil {
		return fmt.Errorf("docker save %s: %w", ref, err)
	}
	defer rc.Close()
	_, err = ctrd.Import(ctx, rc)
	return err
}

// importArchive imports an OCI or Docker image archive into containerd.
func importArchive(ctx context.Context, backendName, path string, io stdio) int {
	if backendName != "containerd" {
		return usageErr(io.err, "images import: only the containerd backend imports archives (use docker load for docker)")
	}
	f, err := os.Open(path)
	if err != nil {
		return usageErr(io.err, "images import: %v", err)
	}
	defer f.Close()
	ctrd, err := containerd.New(ctx, containerdAddress)
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: images import: %v\n", err)
		return exitFail
	}
	defer ctrd.Close()
	names, err := ctrd.Import(ctx, f)
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: images import: %v\n", err)
		return exitFail
	}
	for _, n := range names {
		fmt.Fprintln(io.out, n)
	}
	return exitOK
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
	if !eng.Isolating() {
		return usageErr(io.err, "image check needs a container backend, not %s", eng.Name())
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
	noStartupSweep = true
	eng, err := openEngine(backendName(*backendFlag))
	if err != nil {
		return usageErr(io.err, "gc: %v", err)
	}
	defer eng.Close()
	var n int
	switch {
	case eng.docker != nil:
		n, err = eng.docker.Sweep(ctx, *all)
	case eng.containerd != nil:
		n, err = eng.containerd.Sweep(ctx, *all)
	default:
		return usageErr(io.err, "gc: backend %s leaves no sandboxes", eng.Name())
	}
	fmt.Fprintf(io.out, "removed %d sandbox(es)\n", n)
	if err != nil {
		fmt.Fprintf(io.err, "hook-exec: gc: %v\n", err)
		return exitFail
	}
	return exitOK
}
