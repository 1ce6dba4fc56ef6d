package images

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/containerd/errdefs"
	"github.com/distribution/reference"
	"github.com/moby/moby/client"
	"github.com/moby/moby/client/pkg/jsonmessage"
	"github.com/moby/term"

	"github.com/hookexec/hook-exec/launcher"
)

// builderVersion is part of every input hash: change it when the way a
// root filesystem is assembled changes.
const builderVersion = "3"

// Builder builds recipes on one engine.
type Builder struct {
	Docker *client.Client
	// Out receives progress, rendered as docker renders it (a live display
	// on a terminal, plain lines otherwise).
	Out io.Writer
	// CacheDir keeps downloaded package files between builds; default
	// $XDG_CACHE_HOME/hook-exec/debs or ~/.cache/hook-exec/debs.
	CacheDir string
	// From builds through the engine's builder from this distribution
	// image (BuildFrom) instead of from packages the host extracts.
	From string
}

// Make builds r the way this host can: from Debian packages it resolves
// and extracts itself (Build), or, with From or on a host without Debian's
// tools, through the engine from a distribution image (BuildFrom).
func (b *Builder) Make(ctx context.Context, r Recipe) (string, error) {
	switch {
	case b.From != "":
		return b.BuildFrom(ctx, r, b.From)
	case !HostHasDebianTools():
		fmt.Fprintf(b.out(), "%s: no apt-get, apt-cache or dpkg-deb here: building from %s through the engine\n", r.Name, DistroBase)
		return b.BuildFrom(ctx, r, DistroBase)
	}
	return b.Build(ctx, r)
}

// debFile is one package file as apt resolves it.
type debFile struct {
	name   string // file name in the pool, e.g. busybox-static_1.35.0_amd64.deb
	sha256 string
	spec   string // what apt-get download is given for it: NAME=VERSION
}

// resolve asks apt which exact files the recipe's packages are, without
// downloading them. Each package is pinned to the newest version a
// configured source serves (apt-cache madison): apt's candidate can be an
// installed version no source has any more (a vendor's nodejs whose
// repository was removed), which apt-get download cannot fetch.
func resolve(ctx context.Context, pkgs []string) ([]debFile, error) {
	pkgs = slices.Compact(slices.Sorted(slices.Values(pkgs))) // recipes share lists (gitPackages)
	versions, err := downloadable(ctx, pkgs)
	if err != nil {
		return nil, err
	}
	args := []string{"download", "--print-uris"}
	for _, p := range pkgs {
		args = append(args, p+"="+versions[p])
	}
	cmd := exec.CommandContext(ctx, "apt-get", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("resolve packages with apt-get download --print-uris (run apt-get update first): %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var files []debFile
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		// 'URI' FILENAME SIZE SHA256:HEX
		f := strings.Fields(sc.Text())
		if len(f) != 4 || !strings.HasPrefix(f[3], "SHA256:") {
			continue
		}
		pkg, _, _ := strings.Cut(f[1], "_")
		files = append(files, debFile{name: f[1], sha256: strings.TrimPrefix(f[3], "SHA256:"), spec: pkg + "=" + versions[pkg]})
	}
	if len(files) != len(pkgs) {
		return nil, fmt.Errorf("apt resolved %d package files for %d packages %v: run apt-get update", len(files), len(pkgs), pkgs)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files, nil
}

// downloadable is the newest version of each package that a source
// serves, from apt-cache madison's "NAME | VERSION | SOURCE Packages"
// lines (newest first).
func downloadable(ctx context.Context, pkgs []string) (map[string]string, error) {
	cmd := exec.CommandContext(ctx, "apt-cache", append([]string{"madison"}, pkgs...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("list package versions with apt-cache madison (run apt-get update first): %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return parseMadison(out, pkgs)
}

func parseMadison(out []byte, pkgs []string) (map[string]string, error) {
	versions := map[string]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Split(line, "|")
		if len(f) != 3 || !strings.HasSuffix(strings.TrimSpace(f[2]), " Packages") {
			continue // a source package's line, or none of madison's
		}
		name, version := strings.TrimSpace(f[0]), strings.TrimSpace(f[1])
		if _, seen := versions[name]; !seen && slices.Contains(pkgs, name) {
			versions[name] = version
		}
	}
	var missing []string
	for _, p := range pkgs {
		if versions[p] == "" {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no configured apt source serves %v: run apt-get update, or add Debian's sources", missing)
	}
	return versions, nil
}

// inputsHash covers everything an image is made of.
func inputsHash(r Recipe, files []debFile) string {
	h := sha256.New()
	fmt.Fprintf(h, "builder %s\nname %s\nbusybox %v\nremove %q\n", builderVersion, r.Name, r.Busybox, r.Remove)
	if len(r.Links) > 0 { // absent, the hash stays what it was before links existed
		fmt.Fprintf(h, "links %v\n", r.Links)
	}
	if r.Busybox { // the launcher's stand-in for missing programs, which these images carry
		fmt.Fprintf(h, "standin %d\n%s\n", len(launcher.StandIn), launcher.StandIn)
	}
	fmt.Fprintf(h, "dockerfile %d\n%s\n", len(r.Dockerfile), r.Dockerfile)
	for _, f := range files {
		fmt.Fprintf(h, "deb %s %s\n", f.name, f.sha256)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Build builds the recipe unless an image with the same inputs exists, and
// returns its reference.
func (b *Builder) Build(ctx context.Context, r Recipe) (ref string, err error) {
	files, err := resolve(ctx, r.Packages)
	if err != nil {
		return "", err
	}
	inputs := inputsHash(r, files)
	ref = r.Repo() + ":" + inputs[:12]
	if _, err := b.Docker.ImageInspect(ctx, ref); err == nil {
		fmt.Fprintf(b.out(), "%s: up to date (%s)\n", r.Name, ref)
		return ref, nil
	} else if !errdefs.IsNotFound(err) {
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
	fmt.Fprintf(b.out(), "%s: building %s\n", r.Name, ref)
	debs, err := b.fetch(ctx, files)
	if err != nil {
		return "", err
	}
	root, err := os.MkdirTemp("", "hookexec-rootfs-")
	if err != nil {
		return "", fmt.Errorf("make root filesystem directory: %w", err)
	}
	defer os.RemoveAll(root)
	if err := assemble(ctx, r, debs, root); err != nil {
		return "", err
	}
	return ref, b.send(ctx, r, root, ref, inputs)
}

func (b *Builder) out() io.Writer {
	if b.Out == nil {
		return io.Discard
	}
	return b.Out
}

func (b *Builder) cacheDir() (string, error) {
	if b.CacheDir != "" {
		return b.CacheDir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find a cache directory: %w", err)
	}
	return filepath.Join(base, "hook-exec", "debs"), nil
}

// fetch returns the paths of the package files, downloading those not yet
// cached, each checked against the SHA-256 apt announced.
func (b *Builder) fetch(ctx context.Context, files []debFile) ([]string, error) {
	dir, err := b.cacheDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("make cache directory: %w", err)
	}
	var missing []string
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, f.name)
		if fileSHA256(paths[i]) != f.sha256 {
			os.Remove(paths[i])
			missing = append(missing, f.spec)
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(b.out(), "downloading %s\n", strings.Join(missing, " "))
		cmd := exec.CommandContext(ctx, "apt-get", append([]string{"download"}, missing...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("apt-get download %s: %w: %s", strings.Join(missing, " "), err, bytes.TrimSpace(out))
		}
	}
	for i, f := range files {
		if got := fileSHA256(paths[i]); got != f.sha256 {
			return nil, fmt.Errorf("package file %s has SHA-256 %s, apt announced %s", f.name, got, f.sha256)
		}
	}
	return paths, nil
}

func fileSHA256(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// assemble extracts the packages into root and finishes the tree.
func assemble(ctx context.Context, r Recipe, debs []string, root string) error {
	for _, d := range debs {
		if out, err := exec.CommandContext(ctx, "dpkg-deb", "-x", d, root).CombinedOutput(); err != nil {
			return fmt.Errorf("dpkg-deb -x %s: %w: %s", filepath.Base(d), err, bytes.TrimSpace(out))
		}
	}
	for path, target := range r.Links {
		if err := os.Symlink(target, filepath.Join(root, filepath.Clean("/"+path))); err != nil {
			return fmt.Errorf("link %s: %w", path, err)
		}
	}
	if r.Busybox {
		if err := linkApplets(ctx, root); err != nil {
			return err
		}
		// The reused sandbox's agent (launcher's agent.sh) runs as this
		// copy of busybox's sh: executable, not readable, by the sandbox's
		// user, so the agent is not dumpable and no process of that user
		// can read or write its memory through /proc. A copy: gVisor reads
		// what it executes, and every other sh must still run under it.
		if err := copyFile(filepath.Join(root, "bin", "busybox"), filepath.Join(root, filepath.FromSlash(launcher.AgentShell)), 0o711); err != nil {
			return err
		}
		// The launcher's stand-in for a program a script calls and the
		// image lacks: linked by that name last on the script's PATH, it
		// fails the run as a missing program when the script calls it.
		if err := writeFile(filepath.Join(root, filepath.FromSlash(launcher.StandInPath)), []byte(launcher.StandIn), 0o755); err != nil {
			return err
		}
	}
	for _, p := range r.Remove {
		if err := os.RemoveAll(filepath.Join(root, filepath.Clean("/"+p))); err != nil {
			return fmt.Errorf("remove %s from the image: %w", p, err)
		}
	}
	tmp := filepath.Join(root, "tmp")
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return err
	}
	return os.Chmod(tmp, 0o777|fs.ModeSticky)
}

// copyFile copies src to dst (its directories made) with mode.
func copyFile(src, dst string, mode os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return writeFile(dst, b, mode)
}

// writeFile writes b to dst (its directories made) with mode.
func writeFile(dst string, b []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(dst, b, mode); err != nil {
		return err
	}
	return os.Chmod(dst, mode) // WriteFile's mode is masked by the umask
}

// linkApplets links each busybox applet into /bin unless the root already
// has a program of that name.
func linkApplets(ctx context.Context, root string) error {
	bb := filepath.Join(root, "bin", "busybox")
	list, err := exec.CommandContext(ctx, bb, "--list").Output()
	if err != nil {
		return fmt.Errorf("list busybox applets: %w", err)
	}
	for _, a := range strings.Fields(string(list)) {
		if a == "busybox" || strings.Contains(a, "/") {
			continue
		}
		exists := slices.ContainsFunc([]string{"bin", "sbin", "usr/bin", "usr/sbin"}, func(d string) bool {
			_, err := os.Lstat(filepath.Join(root, d, a))
			return err == nil
		})
		if exists {
			continue
		}
		if err := os.Symlink("busybox", filepath.Join(root, "bin", a)); err != nil {
			return fmt.Errorf("link applet %s: %w", a, err)
		}
	}
	return nil
}

// send streams the build context (the Dockerfile and root/ as rootfs/) to
// the engine and renders its progress.
func (b *Builder) send(ctx context.Context, r Recipe, root, ref, inputs string) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(writeContext(pw, r.Dockerfile, root)) }()
	defer pr.Close()
	resp, err := b.Docker.ImageBuild(ctx, pr, client.ImageBuildOptions{
		Tags:        []string{ref},
		Dockerfile:  "Dockerfile",
		Labels:      map[string]string{LabelRecipe: r.Name, LabelInputs: inputs},
		Remove:      true,
		ForceRemove: true,
		PullParent:  false,
	})
	if err != nil {
		return fmt.Errorf("build %s: %w", ref, err)
	}
	defer resp.Body.Close()
	fd, isTerm := term.GetFdInfo(b.out())
	if err := jsonmessage.DisplayJSONMessagesStream(resp.Body, b.out(), fd, isTerm, nil); err != nil {
		return fmt.Errorf("build %s: %w", ref, err)
	}
	if _, err := b.Docker.ImageInspect(ctx, ref); err != nil {
		return fmt.Errorf("build %s: the image is missing after the build: %w", ref, err)
	}
	return nil
}

// writeContext writes a tar build context: the Dockerfile and root as rootfs/.
func writeContext(w io.Writer, dockerfile, root string) error {
	tw := tar.NewWriter(w)
	if err := tw.WriteHeader(&tar.Header{Name: "Dockerfile", Mode: 0o644, Size: int64(len(dockerfile))}); err != nil {
		return err
	}
	if _, err := io.WriteString(tw, dockerfile); err != nil {
		return err
	}
	if root == "" {
		return tw.Close() // the Dockerfile alone (BuildFrom)
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if info.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		}
		hdr, err := tar.FileInfoHeader(info, link)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		hdr.Name = filepath.ToSlash(filepath.Join("rootfs", rel))
		if d.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "root", "root"
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if info.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			_, err = io.Copy(tw, f)
			f.Close()
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write build context: %w", err)
	}
	return tw.Close()
}

// Image is one built image.
type Image struct {
	Recipe string
	Ref    string
	ID     string
	Size   int64
}

// List returns the images built here, newest first.
func List(ctx context.Context, cli *client.Client) ([]Image, error) {
	res, err := cli.ImageList(ctx, client.ImageListOptions{Filters: make(client.Filters).Add("label", LabelRecipe)})
	if err != nil {
		return nil, fmt.Errorf("list images: %w", err)
	}
	list := res.Items
	sort.Slice(list, func(i, j int) bool { return list[i].Created > list[j].Created })
	var out []Image
	for _, s := range list {
		for _, t := range s.RepoTags {
			out = append(out, Image{Recipe: s.Labels[LabelRecipe], Ref: familiar(t), ID: s.ID, Size: s.Size})
		}
	}
	return out, nil
}

// familiar is ref as Docker names it: Podman's compat API reports the
// images it built as docker.io/hookexec/hook-sh:TAG, and takes the short
// form back.
func familiar(ref string) string {
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return ref
	}
	return reference.FamiliarString(named)
}

// Find returns the newest built image of a recipe, or ErrNotBuilt with the
// command that builds it.
func Find(ctx context.Context, cli *client.Client, r Recipe) (string, error) {
	list, err := List(ctx, cli)
	if err != nil {
		return "", err
	}
	for _, im := range list {
		if im.Recipe == r.Name && strings.HasPrefix(im.Ref, r.Repo()+":") {
			return im.Ref, nil
		}
	}
	return "", fmt.Errorf("%w: no %s image in the engine: run `hook-exec images build` (or `make images`)", ErrNotBuilt, r.Name)
}
