package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	units "github.com/docker/go-units"
	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/engine"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/launcher"
)

func newImagesCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "images COMMAND",
		Short: "Build, list or import the reference images",
		Long: `Build, list or import the reference images (hookexec/hook-sh and
hookexec/hook-python) that run hooks when --image is not given. Images are
built from Debian packages by the Docker engine, without a registry, and
copied into containerd's hookexec namespace for --backend containerd.`,
		Example: `  hook-exec images build
  hook-exec images build --backend containerd
  hook-exec images list --json
  hook-exec images import image.tar --backend containerd`,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE:        parent,
	}
	g.engineFlags(c, "docker or containerd")
	c.AddCommand(newImagesBuildCmd(g, io), newImagesListCmd(g, io), newImagesImportCmd(g, io))
	return c
}

// withImages opens the engines that hold the reference images for f.
func withImages(ctx context.Context, g *globals, f func(*engine.Images) error) error {
	im, err := engine.OpenImages(ctx, g.engine())
	if err != nil {
		return engineCall(err)
	}
	defer im.Close()
	return engineCall(f(im))
}

func newImagesBuildCmd(g *globals, io stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "build",
		Short: "Build the reference images (skipped when an image of the same inputs exists)",
		Example: `  hook-exec images build
  hook-exec images build --backend containerd`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE: func(c *cobra.Command, _ []string) error {
			return withImages(c.Context(), g, func(im *engine.Images) error {
				return im.Build(c.Context(), io.out)
			})
		},
	}
}

func newImagesListCmd(g *globals, io stdio) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "list [--json]",
		Short: "List the reference images the engine holds, newest first",
		Example: `  hook-exec images list
  hook-exec images list --backend containerd --json`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE: func(c *cobra.Command, _ []string) error {
			return withImages(c.Context(), g, func(im *engine.Images) error {
				list, err := im.List(c.Context())
				if err != nil {
					return err
				}
				if asJSON {
					if list == nil {
						list = []engine.Image{}
					}
					return json.NewEncoder(io.out).Encode(list)
				}
				tw := tabwriter.NewWriter(io.out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "REFERENCE\tRECIPE\tSIZE")
				for _, i := range list {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", i.Ref, i.Recipe, units.HumanSize(float64(i.Size)))
				}
				return tw.Flush()
			})
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print a JSON array of {ref, recipe, size}")
	return c
}

func newImagesImportCmd(g *globals, io stdio) *cobra.Command {
	return &cobra.Command{
		Use:         "import FILE --backend containerd",
		Short:       "Import an OCI or Docker image archive into containerd (use docker load for docker)",
		Example:     `  hook-exec images import hook-sh.tar --backend containerd`,
		Args:        exactArgs(1, "one archive FILE"),
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE: func(c *cobra.Command, args []string) error {
			if name := engine.Name(g.backend); name != "containerd" {
				return usageError("only the containerd backend imports archives (use docker load for docker), not %s", name)
			}
			f, err := os.Open(args[0])
			if err != nil {
				return usageError("%v", err)
			}
			defer f.Close()
			names, err := engine.ImportArchive(c.Context(), g.engine(), f)
			if err != nil {
				return engineCall(err)
			}
			for _, n := range names {
				fmt.Fprintln(io.out, n)
			}
			return nil
		},
	}
}

func newImageCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:         "image COMMAND",
		Short:       "Check that an image provides the launcher's programs",
		Example:     `  hook-exec image check my/image:1 --lang py`,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE:        parent,
	}
	g.engineFlags(c, "docker or containerd")
	c.AddCommand(newImageCheckCmd(g, io))
	return c
}

func newImageCheckCmd(g *globals, io stdio) *cobra.Command {
	var lang string
	var asJSON bool
	c := &cobra.Command{
		Use:   "check IMAGE [--lang sh|py] [--json]",
		Short: "Report which launcher programs IMAGE provides",
		Long: `Run a probe in IMAGE (in the same hardened sandbox hooks get) and report,
per language, which programs the launcher needs are present: python for .py;
sh, mktemp, dd, wc and rm for .sh.`,
		Example: `  hook-exec image check hookexec/hook-python:latest
  hook-exec image check my/image:1 --lang sh --json`,
		Args: exactArgs(1, "exactly one IMAGE"),
		Annotations: map[string]string{annotEnv: envEngine, annotExit: `  0    every asked language is runnable in IMAGE
  1    a language is not runnable (stderr names what is missing), or another failure
  64   usage error
  125  the engine cannot be reached or refused the request`},
		RunE: func(c *cobra.Command, args []string) error {
			langs := []launcher.Lang{launcher.Shell, launcher.Python}
			switch lang {
			case "":
			case "sh", "py":
				langs = []launcher.Lang{launcher.Lang(lang)}
			default:
				return usageError("--lang %q: use sh or py", lang)
			}
			o := g.engine()
			o.Ping, o.Sweep = true, true
			eng, err := engine.Open(c.Context(), o)
			if err != nil {
				return engineCall(err)
			}
			defer eng.Close()
			if !eng.Backend().Isolating() {
				return usageError("image check needs a container backend, not %s", eng.Backend().Name())
			}
			rep, err := executor.CheckImage(c.Context(), eng.Backend(), args[0], langs)
			if err != nil {
				return failure(err)
			}
			if asJSON {
				json.NewEncoder(io.out).Encode(rep)
			} else {
				printImageReport(io, rep, langs)
			}
			if !rep.OK() {
				for _, l := range langs {
					if m := rep.Langs[l].Missing; len(m) > 0 {
						fmt.Fprintf(io.err, "hook-exec: image %s cannot run .%s hooks: it must provide %s\n", rep.Image, l, strings.Join(m, ", "))
					}
				}
				return &exitError{code: exitFail}
			}
			return nil
		},
	}
	c.Flags().StringVar(&lang, "lang", "", "check only this language: sh or py (default both)")
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return c
}

func printImageReport(io stdio, rep *executor.ImageReport, langs []launcher.Lang) {
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

func newGCCmd(g *globals, io stdio) *cobra.Command {
	var all, asJSON bool
	c := &cobra.Command{
		Use:   "gc [--all] [--json]",
		Short: "Remove sandboxes that a dead hook-exec left behind",
		Long: `Remove the sandboxes (containers, containerd tasks and snapshots) whose
owning hook-exec process is gone. Sandboxes of live owners are kept unless
--all is given.`,
		Example: `  hook-exec gc
  hook-exec gc --backend containerd --all --json`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE: func(c *cobra.Command, _ []string) error {
			o := g.engine()
			o.Ping = true
			eng, err := engine.Open(c.Context(), o)
			if err != nil {
				return engineCall(err)
			}
			defer eng.Close()
			n, err := eng.Sweep(c.Context(), all)
			if errors.Is(err, engine.ErrNoSandboxes) {
				return engineCall(err)
			}
			if asJSON {
				out := struct {
					Removed int    `json:"removed"`
					Error   string `json:"error,omitempty"`
				}{Removed: n}
				if err != nil {
					out.Error = err.Error()
				}
				json.NewEncoder(io.out).Encode(out)
			} else {
				fmt.Fprintf(io.out, "removed %d sandbox(es)\n", n)
			}
			return engineCall(err)
		},
	}
	g.engineFlags(c, "docker or containerd")
	c.Flags().BoolVar(&all, "all", false, "remove every hook-exec sandbox, also those of live owners")
	c.Flags().BoolVar(&asJSON, "json", false, `print {"removed": N} as JSON`)
	return c
}
