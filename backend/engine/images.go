package engine

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/containerd"
	"github.com/hookexec/hook-exec/backend/docker"
	"github.com/hookexec/hook-exec/images"
	"github.com/hookexec/hook-exec/launcher"
)

// Images are the engines that hold reference images: Docker, which builds
// every image, and containerd, into which they are copied, when the
// backend is containerd.
type Images struct {
	Docker     *docker.Backend
	Containerd *containerd.Backend // nil unless the backend is containerd
	// From builds from this distribution image through the engine
	// (images.Builder.From); "" builds from the host's Debian tools, or
	// from images.DistroBase where it has none.
	From string
}

// Image is one reference image an engine holds.
type Image struct {
	Ref    string `json:"ref"`
	Recipe string `json:"recipe"`
	Size   int64  `json:"size"` // bytes; 0 when the engine does not say
}

// OpenImages connects to Docker (checking that it answers) and, when
// o.Backend names containerd, to containerd. The local backend has no
// images: ErrNoImages.
func OpenImages(ctx context.Context, o Options) (*Images, error) {
	name := Name(o.Backend)
	if name != "docker" && name != "containerd" {
		return nil, fmt.Errorf("%q: %w", name, ErrNoImages)
	}
	d, err := docker.New()
	if err == nil {
		err = d.Ping(ctx)
	}
	if err != nil {
		return nil, err
	}
	im := &Images{Docker: d}
	if name == "containerd" {
		if im.Containerd, err = containerd.New(ctx, o.ContainerdAddress); err != nil {
			d.Close()
			return nil, err
		}
	}
	return im, nil
}

// Close closes both engines.
func (im *Images) Close() error {
	err := im.Docker.Close()
	if im.Containerd != nil {
		err = errors.Join(err, im.Containerd.Close())
	}
	return err
}

// Build builds every reference image (a build whose inputs did not change
// is skipped) and copies what containerd lacks into it. Progress goes to out.
func (im *Images) Build(ctx context.Context, out io.Writer) error {
	b := &images.Builder{Docker: im.Docker.Client(), Out: out, From: im.From}
	for _, r := range images.Reference {
		ref, err := b.Make(ctx, r)
		if err == nil && im.Containerd != nil && !im.Containerd.Has(ctx, ref) {
			fmt.Fprintf(out, "%s: importing into containerd namespace %s\n", r.Name, containerd.Namespace)
			err = CopyToContainerd(ctx, im.Docker, im.Containerd, ref)
		}
		if err != nil {
			return fmt.Errorf("build %s: %w", r.Name, err)
		}
	}
	return nil
}

// Ensure returns each language's (and bash's) newest reference image in
// Docker, building the ones missing, and copies into containerd those it
// lacks.
func (im *Images) Ensure(ctx context.Context, out io.Writer) (map[launcher.Lang]string, error) {
	refs := map[launcher.Lang]string{}
	for _, lang := range []launcher.Lang{launcher.Shell, launcher.Python, "bash", launcher.Node} {
		r, _ := images.ForLang(string(lang))
		ref, err := images.Find(ctx, im.Docker.Client(), r)
		if err != nil && !errors.Is(err, images.ErrNotBuilt) {
			return nil, err
		}
		if err != nil {
			if ref, err = (&images.Builder{Docker: im.Docker.Client(), Out: out, From: im.From}).Make(ctx, r); err != nil {
				return nil, fmt.Errorf("build %s: %w", r.Name, err)
			}
		}
		if im.Containerd != nil && !im.Containerd.Has(ctx, ref) {
			if err := CopyToContainerd(ctx, im.Docker, im.Containerd, ref); err != nil {
				return nil, err
			}
		}
		refs[lang] = ref
	}
	return refs, nil
}

// List returns the reference images of the backend, newest first.
func (im *Images) List(ctx context.Context) ([]Image, error) {
	var list []Image
	if im.Containerd != nil {
		for _, r := range images.Reference {
			ref, err := im.Containerd.Newest(ctx, r.Repo())
			if err != nil {
				return nil, err
			}
			if ref == "" {
				continue
			}
			i := Image{Ref: ref, Recipe: r.Name}
			if ci, err := im.Containerd.Client().GetImage(ctx, ref); err == nil {
				i.Size, _ = ci.Size(ctx)
			}
			list = append(list, i)
		}
		return list, nil
	}
	all, err := images.List(ctx, im.Docker.Client())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", backend.ErrEngine, err)
	}
	for _, i := range all {
		list = append(list, Image{Ref: i.Ref, Recipe: i.Recipe, Size: i.Size})
	}
	return list, nil
}

// CopyToContainerd streams `docker save` of ref into hook-exec's containerd
// namespace.
func CopyToContainerd(ctx context.Context, dock *docker.Backend, ctrd *containerd.Backend, ref string) error {
	rc, err := dock.Client().ImageSave(ctx, []string{ref})
	if err != nil {
		return fmt.Errorf("%w: docker save %s: %w", backend.ErrEngine, ref, err)
	}
	defer rc.Close()
	if _, err := ctrd.Import(ctx, rc); err != nil {
		return fmt.Errorf("import %s into containerd: %w", ref, err)
	}
	return nil
}

// ImportArchive imports an OCI or Docker image archive into hook-exec's
// containerd namespace and returns the names it holds. Only containerd
// imports archives (Docker has `docker load`): ErrNoImages otherwise.
func ImportArchive(ctx context.Context, o Options, archive io.Reader) ([]string, error) {
	if name := Name(o.Backend); name != "containerd" {
		return nil, fmt.Errorf("%q: %w: only the containerd backend imports archives (use docker load for docker)", name, ErrNoImages)
	}
	c, err := containerd.New(ctx, o.ContainerdAddress)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Import(ctx, archive)
}
