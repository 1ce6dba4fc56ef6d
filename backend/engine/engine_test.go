package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/launcher"
)

func TestName(t *testing.T) {
	tests := []struct {
		given, env, want string
	}{
		{"containerd", "local", "containerd"},
		{"", "containerd", "containerd"},
		{"", "", "docker"},
	}
	for _, tc := range tests {
		t.Setenv("HOOKEXEC_BACKEND", tc.env)
		if got := Name(tc.given); got != tc.want {
			t.Errorf("Name(%q) with HOOKEXEC_BACKEND=%q = %q, want %q", tc.given, tc.env, got, tc.want)
		}
	}
}

func TestOpenLocal(t *testing.T) {
	t.Parallel()
	e, err := Open(context.Background(), Options{Backend: "local", Sweep: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := e.Backend().Name(); got != "local" {
		t.Errorf("backend %q, want local", got)
	}
	if e.Docker() != nil {
		t.Errorf("local has a Docker engine: %v", e.Docker())
	}
	if e.Containerd() != nil {
		t.Errorf("local has a containerd engine: %v", e.Containerd())
	}
	if _, err := e.Sweep(context.Background(), false); !errors.Is(err, ErrNoSandboxes) {
		t.Errorf("Sweep on local: %v, want ErrNoSandboxes", err)
	}
	if _, err := e.DefaultImage(context.Background(), launcher.Shell); !errors.Is(err, backend.ErrEngine) {
		t.Errorf("DefaultImage on local: %v, want ErrEngine", err)
	}
}

func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		want error
	}{
		{"unknown backend", Options{Backend: "podman"}, ErrUnknownBackend},
		{"containerd at no socket", Options{Backend: "containerd", ContainerdAddress: t.TempDir() + "/none.sock"}, backend.ErrEngine},
	}
	for _, tc := range tests {
		if _, err := Open(context.Background(), tc.opts); !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestOpenDockerPingsWhenAsked(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+t.TempDir()+"/none.sock")
	e, err := Open(context.Background(), Options{Backend: "docker"})
	if err != nil {
		t.Fatalf("without Ping, opening needs no answer: %v", err)
	}
	if _, ok := e.Backend().(backend.Warmer); !ok {
		t.Errorf("Backend() of docker is %T, not a backend.Warmer: the executor would not pool", e.Backend())
	}
	e.Close()
	if _, err := Open(context.Background(), Options{Backend: "docker", Ping: true}); !errors.Is(err, backend.ErrEngine) {
		t.Errorf("with Ping at no socket: %v, want ErrEngine", err)
	}
}

func TestUnavailable(t *testing.T) {
	t.Parallel()
	cause := errors.New("dial unix /x: no such file")
	e := Unavailable("docker", cause)
	defer e.Close()
	if _, err := e.Backend().Run(context.Background(), &backend.Run{}); !errors.Is(err, cause) {
		t.Errorf("Run: %v, want the open error", err)
	}
	if _, err := e.DefaultImage(context.Background(), launcher.Python); !errors.Is(err, cause) {
		t.Errorf("DefaultImage: %v, want the open error", err)
	}
	if !e.Backend().Isolating() {
		t.Errorf("an unavailable engine must count as isolating, so plugin hooks fail with its error, not not_isolated")
	}
}

func TestOnlyContainerdImportsAndLocalHasNoImages(t *testing.T) {
	t.Parallel()
	if _, err := ImportArchive(context.Background(), Options{Backend: "docker"}, strings.NewReader("")); !errors.Is(err, ErrNoImages) {
		t.Errorf("ImportArchive on docker: %v, want ErrNoImages", err)
	}
	if _, err := OpenImages(context.Background(), Options{Backend: "local"}); !errors.Is(err, ErrNoImages) {
		t.Errorf("OpenImages on local: %v, want ErrNoImages", err)
	}
}

func TestTasksOnLocal(t *testing.T) {
	t.Parallel()
	o := Options{Backend: "local"}
	if _, err := GC(context.Background(), o, false); !errors.Is(err, ErrNoSandboxes) {
		t.Errorf("GC on local: %v, want ErrNoSandboxes", err)
	}
}
