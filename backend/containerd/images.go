package containerd

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/errdefs"
	"github.com/distribution/reference"

	"github.com/hookexec/hook-exec/backend"
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

// imageTTL bounds how long an image found ready is used without asking
// containerd again: a reference imported anew is seen after at most this.
const imageTTL = 30 * time.Second

// cachedImage is an image found, unpacked for the snapshotter, with its
// configured environment: three requests saved on a run's hot path.
type cachedImage struct {
	img client.Image
	env []string
	at  time.Time
}

// image returns the image, unpacked for the snapshotter, and its Env.
func (b *Backend) image(ctx context.Context, ref string) (client.Image, []string, error) {
	if ref == "" {
		return nil, nil, fmt.Errorf("%w: no image given", backend.ErrImageNotFound)
	}
	name := NormalizeRef(ref)
	b.mu.Lock()
	c, ok := b.images[name]
	b.mu.Unlock()
	if ok && time.Since(c.at) < imageTTL {
		return c.img, c.env, nil
	}
	img, err := b.cli.GetImage(ctx, name)
	if errdefs.IsNotFound(err) {
		return nil, nil, fmt.Errorf("%w: %q is not in containerd namespace %q: import it with `hook-exec images build --backend containerd` (or `hook-exec images import FILE --backend containerd`)",
			backend.ErrImageNotFound, ref, Namespace)
	}
	if err != nil {
		return nil, nil, b.engineErr("get image", err)
	}
	unpacked, err := img.IsUnpacked(ctx, b.snapshotter)
	if err == nil && !unpacked {
		err = img.Unpack(ctx, b.snapshotter)
	}
	if err != nil {
		return nil, nil, b.engineErr("unpack image "+ref, err)
	}
	ic, err := img.Spec(ctx)
	if err != nil {
		return nil, nil, b.engineErr("read image config", err)
	}
	b.mu.Lock()
	b.images[name] = cachedImage{img: img, env: ic.Config.Env, at: time.Now()}
	b.mu.Unlock()
	return img, ic.Config.Env, nil
}
