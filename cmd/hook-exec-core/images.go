package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"

	units "github.com/docker/go-units"
	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/images"
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
	var from string
	c := &cobra.Command{
		Use:   "build [--from IMAGE]",
		Short: "Build the reference images (skipped when an image of the same inputs exists)",
		Long: `Build the reference images. On a host with Debian's tools (apt-get, apt-cache,
dpkg-deb) hook-exec resolves and extracts the packages itself and no registry
is used; elsewhere (macOS, another Linux), or with --from, the engine's own
builder does the same from a Debian image it pulls (default ` + images.DistroBase + `):
the same packages, the same empty base, the same configuration.`,
		Example: `  hook-exec images build
  hook-exec images build --backend containerd
  hook-exec images build --from ` + images.DistroBase + `   # through the engine, from a registry`,
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE: func(c *cobra.Command, _ []string) error {
			return withImages(c.Context(), g, func(im *engine.Images) error {
				im.From = from
				return im.Build(c.Context(), io.out)
			})
		},
	}
	c.Flags().StringVar(&from, "from", "", "build through the engine from this Debian `IMAGE` (pulled from its registry)")
	return c
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
