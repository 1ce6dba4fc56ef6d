package images

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os/exec"
	"path"
	"slices"
	"strings"

	"github.com/containerd/errdefs"

	"github.com/hookexec/hook-exec/launcher"
)

// DistroBase is the distribution image the engine's builder starts from
// where the host has no Debian tools (macOS, another Linux): the reference
// images' packages are Debian 12's.
const DistroBase = "debian:bookworm-slim"

// HostHasDebianTools reports whether this host can resolve and extract
// the packages itself (apt-get, apt-cache, dpkg-deb): the registry-free
// path. Without them the images are built from DistroBase.
func HostHasDebianTools() bool {
	for _, p := range []string{"apt-get", "apt-cache", "dpkg-deb"} {
		if _, err := exec.LookPath(p); err != nil {
			return false
		}
	}
	return true
}

// DistroDockerfile is r's Dockerfile for an engine that reaches a
// registry: a first stage from base downloads the same Debian packages and
// extracts them as the registry-free build does (its links, busybox's
// applets, the agent's shell, what it removes), and the image is that
// root on the same empty base with the same configuration.
func (r Recipe) DistroDockerfile(base string) (string, error) {
	head, rest, ok := strings.Cut(r.Dockerfile, "FROM scratch\nCOPY rootfs/ /\n")
	if !ok {
		return "", fmt.Errorf("%s: its Dockerfile does not start from rootfs/ on scratch", r.Name)
	}
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	var run []string
	run = append(run, "set -eu", "apt-get update -q >/dev/null", "mkdir -p /debs /rootfs", "cd /debs")
	pkgs := make([]string, len(r.Packages))
	for i, p := range r.Packages {
		pkgs[i] = q(p)
	}
	run = append(run, "apt-get download -q "+strings.Join(pkgs, " ")+" >/dev/null",
		`for d in /debs/*.deb; do dpkg-deb -x "$d" /rootfs; done`)
	links := make([]string, 0, len(r.Links))
	for p := range r.Links {
		links = append(links, p)
	}
	slices.Sort(links)
	for _, p := range links {
		run = append(run, "ln -s "+q(r.Links[p])+" "+q(path.Join("/rootfs", path.Clean("/"+p))))
	}
	if r.Busybox {
		run = append(run,
			`for a in $(/rootfs/bin/busybox --list); do case $a in busybox|*/*) continue;; esac; `+
				`for d in bin sbin usr/bin usr/sbin; do if [ -e "/rootfs/$d/$a" ] || [ -L "/rootfs/$d/$a" ]; then continue 2; fi; done; `+
				`ln -s busybox "/rootfs/bin/$a"; done`,
			"mkdir -p "+q(path.Dir("/rootfs"+launcher.AgentShell)),
			"cp /rootfs/bin/busybox "+q("/rootfs"+launcher.AgentShell),
			"chmod 711 "+q("/rootfs"+launcher.AgentShell),
			"echo "+base64.StdEncoding.EncodeToString([]byte(launcher.StandIn))+" | base64 -d >"+q("/rootfs"+launcher.StandInPath),
			"chmod 755 "+q("/rootfs"+launcher.StandInPath))
	}
	for _, p := range r.Remove {
		run = append(run, "rm -rf "+q(path.Join("/rootfs", path.Clean("/"+p))))
	}
	run = append(run, "mkdir -p /rootfs/tmp", "chmod 1777 /rootfs/tmp")
	return head + "# Built from " + base + " by the engine's own builder (hook-exec images build\n" +
		"# --from): the same Debian packages, extracted the same way.\n" +
		"FROM " + base + " AS packages\n" +
		"RUN " + strings.Join(run, "; \\\n    ") + "\n" +
		"FROM scratch\nCOPY --from=packages /rootfs/ /\n" + rest, nil
}

// BuildFrom builds r through the engine's builder from base, which the
// engine pulls from its registry: the path for a host without Debian's
// tools. An image of the same Dockerfile is kept.
func (b *Builder) BuildFrom(ctx context.Context, r Recipe, base string) (string, error) {
	dockerfile, err := r.DistroDockerfile(base)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(builderVersion + "\x00" + dockerfile))
	inputs := hex.EncodeToString(sum[:])
	ref := r.Repo() + ":" + inputs[:12]
	if _, err := b.Docker.ImageInspect(ctx, ref); err == nil {
		fmt.Fprintf(b.out(), "%s: up to date (%s)\n", r.Name, ref)
		return ref, nil
	} else if !errdefs.IsNotFound(err) {
		return "", fmt.Errorf("inspect image %s: %w", ref, err)
	}
	fmt.Fprintf(b.out(), "%s: building %s from %s (the engine pulls it: this needs a registry)\n", r.Name, ref, base)
	return ref, b.send(ctx, Recipe{Name: r.Name, Dockerfile: dockerfile}, "", ref, inputs)
}
