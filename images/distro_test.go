package images

import (
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/internal/shellsyntax"
	"github.com/hookexec/hook-exec/launcher"
)

// Every reference recipe has a Dockerfile for the engine's builder: the
// same packages downloaded and extracted in a Debian stage, the applets and
// links the registry-free build makes, and the recipe's own image
// configuration on an empty base; its RUN is a script sh reads.
func TestDistroDockerfile(t *testing.T) {
	t.Parallel()
	for _, r := range Reference {
		d, err := r.DistroDockerfile(DistroBase)
		if err != nil {
			t.Fatalf("%s: %v", r.Name, err)
		}
		if !strings.Contains(d, "FROM "+DistroBase+" AS packages\n") || !strings.Contains(d, "FROM scratch\nCOPY --from=packages /rootfs/ /\n") ||
			!strings.HasSuffix(d, "STOPSIGNAL SIGKILL\n") || !strings.Contains(d, "USER 65534:65534") {
			t.Errorf("%s:\n%s", r.Name, d)
		}
		for _, p := range r.Packages {
			if !strings.Contains(d, " '"+p+"'") {
				t.Errorf("%s: package %s is not downloaded", r.Name, p)
			}
		}
		for p, target := range r.Links {
			if !strings.Contains(d, "ln -s '"+target+"' '/rootfs/"+p+"'") {
				t.Errorf("%s: link %s -> %s missing", r.Name, p, target)
			}
		}
		if r.Busybox && !strings.Contains(d, "chmod 711 '/rootfs/usr/lib/hook-exec/sh'") {
			t.Errorf("%s: the agent's shell is not made", r.Name)
		}
		if r.Busybox && !strings.Contains(d, "chmod 755 '/rootfs"+launcher.StandInPath+"'") {
			t.Errorf("%s: the launcher's stand-in is not made", r.Name)
		}
		_, run, _ := strings.Cut(d, "\nRUN ")
		run, _, _ = strings.Cut(run, "\nFROM scratch")
		if err := shellsyntax.Check([]byte(strings.ReplaceAll(run, "\\\n", "\n")), "sh"); err != nil {
			t.Errorf("%s: its RUN does not parse as sh: %v", r.Name, err)
		}
	}
	if _, err := (Recipe{Name: "x", Dockerfile: "FROM alpine\n"}).DistroDockerfile(DistroBase); err == nil {
		t.Error("a recipe not built on scratch from rootfs/ got a distro Dockerfile")
	}
}
