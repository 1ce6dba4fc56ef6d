package engine

import (
	"context"
	"errors"
	"path/filepath"
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

// toy is a backend of a test's own: an engine that answers, holds one
// image and leaves sandboxes to sweep.
type toy struct{ swept, pinged *int }

func (toy) Name() string    { return "toy" }
func (toy) Isolating() bool { return true }
func (toy) Close() error    { return nil }
func (toy) Run(context.Context, *backend.Run) (*backend.Outcome, error) {
	return nil, errors.New("toy: no runs")
}
func (t toy) Sweep(context.Context, bool) (int, error) { *t.swept++; return 3, nil }
func (t toy) Ping(context.Context) error               { *t.pinged++; return nil }
func (toy) Address() string                            { return "toy://engine" }
func (toy) Newest(_ context.Context, repo string) (string, error) {
	return repo + ":toy", nil
}

// A backend is a registration: one line (the map entry) makes a toy
// backend one that Open opens, Ping asks, Sweep sweeps, DefaultImage
// finds images in, admission keys by its address and the unknown
// backend's message names. Not parallel: it changes the table.
func TestToyBackendIsOneRegistration(t *testing.T) {
	var swept, pinged int
	backends["toy"] = registration{open: func(context.Context, Options) (backend.Backend, error) { return toy{&swept, &pinged}, nil }, image: heldImage("build it")}
	defer delete(backends, "toy")

	e, err := Open(context.Background(), Options{Backend: "toy"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.Ping(context.Background()); err != nil || pinged != 1 {
		t.Errorf("Ping: %v, asked %d times", err, pinged)
	}
	if n, err := e.Sweep(context.Background(), false); err != nil || n != 3 || swept != 1 {
		t.Errorf("Sweep: %d, %v, swept %d times", n, err, swept)
	}
	if ref, err := e.DefaultImage(context.Background(), launcher.Shell); err != nil || !strings.HasSuffix(ref, ":toy") {
		t.Errorf("DefaultImage: %q, %v", ref, err)
	}
	state := t.TempDir()
	e.Admission(state, nil)
	if dirs, _ := filepath.Glob(filepath.Join(state, "admission", "toy-*")); len(dirs) != 1 {
		t.Errorf("admission directories %v, want one of toy's", dirs)
	}
	if _, err := Open(context.Background(), Options{Backend: "podman"}); err == nil || !strings.Contains(err.Error(), "toy") {
		t.Errorf("the unknown backend's message does not name the toy: %v", err)
	}
}
