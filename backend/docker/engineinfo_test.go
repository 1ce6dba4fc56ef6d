package docker

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// Podman 4.3.1's /version, as `podman system service` answered it here.
const podmanVersion = `{"Platform":{"Name":"linux/amd64/debian-12"},"Components":[{"Name":"Podman Engine","Version":"4.3.1","Details":{"APIVersion":"4.3.1","MinAPIVersion":"4.0.0","Os":"linux"}},{"Name":"Conmon","Version":"conmon version 2.1.6"}],"Version":"4.3.1","ApiVersion":"1.41","MinAPIVersion":"1.24","Os":"linux","Arch":"amd64"}`

// Docker 20.10's, abridged.
const dockerVersion = `{"Platform":{"Name":"Docker Engine - Community"},"Components":[{"Name":"Engine","Version":"20.10.24"},{"Name":"containerd","Version":"1.6.20"}],"Version":"20.10.24","ApiVersion":"1.41","MinAPIVersion":"1.12","Os":"linux","Arch":"amd64"}`

// An engine that enforces limits, and rootless Docker 20.10's on cgroup
// v1 (its /info, abridged, as read here).
const (
	limitsInfo   = `{"MemoryLimit":true,"SwapLimit":true,"PidsLimit":true,"CgroupDriver":"cgroupfs","CgroupVersion":"1"}`
	rootlessInfo = `{"MemoryLimit":false,"SwapLimit":false,"PidsLimit":false,"CgroupDriver":"none","CgroupVersion":"1","SecurityOptions":["name=seccomp,profile=default","name=rootless"]}`
)

func versionEngine(t *testing.T, version string) *Backend {
	t.Helper()
	return infoEngine(t, version, limitsInfo)
}

func infoEngine(t *testing.T, version, info string) *Backend {
	t.Helper()
	return libpodEngine(t, version, info, "")
}

// libpodEngine answers libpod's /info too, as a Podman does.
func libpodEngine(t *testing.T, version, info, libpod string) *Backend {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Api-Version", "1.41")
		w.Header().Set("Content-Type", "application/json")
		switch {
		case libpod != "" && strings.HasSuffix(r.URL.Path, "/libpod/info"):
			w.Write([]byte(libpod))
			return
		case strings.HasSuffix(r.URL.Path, "/version"):
			w.Write([]byte(version))
			return
		case strings.HasSuffix(r.URL.Path, "/info"):
			w.Write([]byte(info))
			return
		}
		w.Write([]byte("OK"))
	}))
	t.Cleanup(srv.Close)
	b, err := New(client.WithHost("tcp://"+strings.TrimPrefix(srv.URL, "http://")), client.WithAPIVersion("1.41"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// Podman's compat API opens SecurityOpt's seccomp= value as a path ("file
// name too long" for the profile itself): it gets a file holding exactly
// the profile, and Docker keeps getting the profile inline.
func TestSeccompForPodman(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	spec, err := sandbox.New("img", []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	_, hc, err := versionEngine(t, dockerVersion).config(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if got := hc.SecurityOpt[len(hc.SecurityOpt)-1]; got != "seccomp="+backend.SeccompProfile() {
		t.Errorf("docker: seccomp option %.60q..., want the profile inline", got)
	}
	if _, ok := hc.Tmpfs["/run"]; ok {
		t.Errorf("docker: a tmpfs at /run (%v): Docker's root is read-only there already", hc.Tmpfs)
	}

	p := versionEngine(t, podmanVersion)
	if podman, err := p.IsPodman(ctx); err != nil || !podman {
		t.Fatalf("IsPodman = %v, %v; want true", podman, err)
	}
	_, hc, err = p.config(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	// Under the read-only root, /var/tmp and /run are read-only tmpfs of
	// ours, not Podman's writable, executable ones.
	for _, dir := range []string{"/var/tmp", "/run"} {
		if opts := hc.Tmpfs[dir]; !spec.ReadOnlyRoot || !strings.HasPrefix(opts, "ro,") || !strings.Contains(opts, "noexec") {
			t.Errorf("podman: %s mounted %q, want a read-only noexec tmpfs (read-only root %v)", dir, opts, spec.ReadOnlyRoot)
		}
	}
	path, ok := strings.CutPrefix(hc.SecurityOpt[len(hc.SecurityOpt)-1], "seccomp=")
	if !ok || !filepath.IsAbs(path) || filepath.Dir(path) != filepath.Join(os.Getenv("XDG_CACHE_HOME"), "hook-exec") {
		t.Fatalf("podman: seccomp option %q, want a path in the user's cache", hc.SecurityOpt)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != backend.SeccompProfile() {
		t.Fatalf("podman: the profile file holds %d bytes (%v), want the profile's %d", len(got), err, len(backend.SeccompProfile()))
	}
	// Changed (by anything but this process), it is put back before the
	// next sandbox.
	os.WriteFile(path, []byte(`{"defaultAction":"SCMP_ACT_ALLOW"}`), 0o644)
	if _, _, err := p.config(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != backend.SeccompProfile() {
		t.Fatalf("after a change: %.40q (%v), want the profile put back", got, err)
	}
	// Gone (a cleaned cache), it is written again for the next run.
	os.Remove(path)
	if _, _, err := p.config(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != backend.SeccompProfile() {
		t.Fatalf("after removal: %d bytes (%v), want the profile", len(got), err)
	}
}

// A profile directory others can write is refused: someone could swap a
// weaker profile in.
func TestProfileDirMustBePrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o777)
	if _, err := writeProfile(dir); err == nil || !strings.Contains(err.Error(), "only it can write") {
		t.Fatalf("writeProfile in a 0777 directory: %v, want a refusal", err)
	}
	os.Chmod(dir, 0o700)
	if _, err := writeProfile(dir); err != nil {
		t.Fatal(err)
	}
}

// Rootless Docker on cgroup v1 discards a sandbox's memory and pids limits
// with a warning (measured here: a memory bomb under --memory 64MiB ran to
// its 20 s timeout): no sandbox is made there, and the error says why.
func TestEngineWithoutLimitsIsRefused(t *testing.T) {
	spec, err := sandbox.New("img", []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = infoEngine(t, dockerVersion, rootlessInfo).config(context.Background(), spec)
	if !errors.Is(err, backend.ErrNoLimits) || !errors.Is(err, backend.ErrEngine) {
		t.Fatalf("config on rootless cgroup v1: %v, want ErrNoLimits (an engine error)", err)
	}
	if !strings.Contains(err.Error(), "memory and pids limit") || !strings.Contains(err.Error(), "cgroup v1") {
		t.Errorf("the error does not say what is missing and where: %v", err)
	}
	// One limit missing is named alone.
	pidsOnly := strings.Replace(limitsInfo, `"PidsLimit":true`, `"PidsLimit":false`, 1)
	_, _, err = infoEngine(t, dockerVersion, pidsOnly).config(context.Background(), spec)
	if !errors.Is(err, backend.ErrNoLimits) || !strings.Contains(err.Error(), "sandbox's pids limit") {
		t.Fatalf("config without pids: %v, want ErrNoLimits naming pids", err)
	}
}

// Rootless Podman says at /info that memory is limited (it reads the
// host's controllers) and drops every limit on cgroup v1 ("not supported
// and ignored"); on v2 only the controllers delegated to its user count,
// which libpod's own /info lists.
func TestRootlessPodmanLimits(t *testing.T) {
	spec, err := sandbox.New("img", []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	const rootlessV1 = `{"MemoryLimit":true,"SwapLimit":true,"PidsLimit":true,"CgroupDriver":"cgroupfs","CgroupVersion":"1","SecurityOptions":["name=seccomp,profile=default","name=rootless"]}`
	const rootlessV2 = `{"MemoryLimit":true,"SwapLimit":true,"PidsLimit":true,"CgroupDriver":"systemd","CgroupVersion":"2","SecurityOptions":["name=seccomp,profile=default","name=rootless"]}`
	for _, tc := range []struct {
		name, info, libpod string
		missing            string // "" when accepted
	}{
		{"cgroup v1", rootlessV1, `{"host":{"cgroupControllers":[]}}`, "memory and pids"},
		{"v2, only cpu and memory delegated", rootlessV2, `{"host":{"cgroupControllers":["cpu","memory"]}}`, "pids"},
		{"v2, memory and pids delegated", rootlessV2, `{"host":{"cgroupControllers":["cpu","memory","pids"]}}`, ""},
	} {
		_, _, err := libpodEngine(t, podmanVersion, tc.info, tc.libpod).config(context.Background(), spec)
		switch {
		case tc.missing == "" && err != nil:
			t.Errorf("%s: %v, want accepted", tc.name, err)
		case tc.missing != "" && (!errors.Is(err, backend.ErrNoLimits) || !strings.Contains(err.Error(), "sandbox's "+tc.missing+" limit")):
			t.Errorf("%s: %v, want ErrNoLimits naming %s", tc.name, err, tc.missing)
		}
	}
}

// On Podman a program that takes the attach runs under drainStdin (its
// attach loses the output of a program that leaves stdin unread); one over
// a channel or a reused sandbox's agent runs as it is, and on Docker every
// program does.
func TestPodmanDrainsStdin(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx := context.Background()
	attach, err := sandbox.New("img", []string{"echo", "out"})
	if err != nil {
		t.Fatal(err)
	}
	resident := *attach
	resident.Resident = true
	channel := *attach
	channel.Mounts = []sandbox.Mount{{Source: t.TempDir(), Target: backend.ChannelTarget, ReadOnly: true}}
	drained := append([]string{"sh", "-c", drainStdin, "hook-exec-drain"}, attach.Argv...)
	for _, c := range []struct {
		name    string
		version string
		spec    *sandbox.Spec
		want    []string
	}{
		{"podman, attach", podmanVersion, attach, drained},
		{"podman, reused agent", podmanVersion, &resident, attach.Argv},
		{"podman, channel", podmanVersion, &channel, attach.Argv},
		{"docker, attach", dockerVersion, attach, attach.Argv},
	} {
		cfg, _, err := versionEngine(t, c.version).config(ctx, c.spec)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(cfg.Entrypoint, c.want) {
			t.Errorf("%s: entrypoint %q, want %q", c.name, cfg.Entrypoint, c.want)
		}
	}
}
