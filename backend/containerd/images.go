package containerd

import (
	"context"
	"io"
	"sort"
	"strings"

	"github.com/containerd/containerd/v2/client"
	"github.com/distribution/reference"
)

// NormalizeRef turns a Docker-style reference (hookexec/hook-sh:tag) into
// the fully qualified name containerd stores (docker.io/hookexec/hook-sh:tag).
func NormalizeRef(ref string) string {
	if named, err := reference.ParseDockerRef(ref); err == nil {
		return named.String()
	}
	return ref
}

// Import reads an image archive (a `docker save` stream or an OCI archive)
// into hook-exec's namespace, unpacks it for the snapshotter, and returns
// the names it holds.
func (b *Backend) Import(ctx context.Context, archive io.Reader) ([]string, error) {
	imgs, err := b.cli.Import(ctx, archive)
	if err != nil {
		return nil, b.engineErr("import image archive", err)
	}
	var names []string
	for _, im := range imgs {
		img := client.NewImageWithPlatform(b.cli, im, nil)
		if err := img.Unpack(ctx, b.snapshotter); err != nil {
			return nil, b.engineErr("unpack "+im.Name, err)
		}
		names = append(names, im.Name)
	}
	return names, nil
}

// Has reports whether an image is in hook-exec's namespace.
func (b *Backend) Has(ctx context.Context, ref string) bool {
	_, err := b.cli.GetImage(ctx, NormalizeRef(ref))
	return err == nil
}

// Newest returns the most recently created image whose name starts with
// repo + ":" (repo in Docker form, e.g. hookexec/hook-sh), or "".
func (b *Backend) Newest(ctx context.Context, repo string) (string, error) {
	prefix := NormalizeRef(repo + ":x")
	prefix = strings.TrimSuffix(prefix, "x")
	list, err := b.cli.ImageService().List(ctx)
	if err != nil {
		return "", b.engineErr("list images", err)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].CreatedAt.After(list[j].CreatedAt) })
	for _, im := range list {
		if strings.HasPrefix(im.Name, prefix) {
			return im.Name, nil
		}
	}
	return "", nil
}
