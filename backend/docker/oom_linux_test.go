//go:build linux

package docker

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/sandbox"
)

// TestOOMWatch runs containers on the local engine and reads the kernel's
// OOM count through the watch, not the engine's flag.
func TestOOMWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a Docker Engine; skipped with -short (make unit)")
	}
	b, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx := context.Background()
	if err := b.Ping(ctx); err != nil {
		if os.Getenv("HOOKEXEC_REQUIRE_ENGINE") == "1" {
			t.Fatalf("no engine and HOOKEXEC_REQUIRE_ENGINE=1: %v", err)
		}
		t.Skipf("no engine: %v", err)
	}
	res, err := b.cli.ImageList(ctx, client.ImageListOptions{Filters: make(client.Filters).Add("label", "io.hookexec.recipe=hook-python")})
	if err != nil || len(res.Items) == 0 || len(res.Items[0].RepoTags) == 0 {
		t.Skipf("no hook-python image (make images): %v", err)
	}
	image := res.Items[0].RepoTags[0]

	for _, tc := range []struct {
		name string
		code string
		oom  bool
	}{
		{"over the limit", "x = bytearray(256 << 20)", true},
		{"within the limit", "x = bytearray(1 << 20)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The container idles; the allocation runs beside it (an exec)
			// once the watch is on: the OOM kill cannot come before the
			// watch, however slow the machine.
			s, err := sandbox.New(image, []string{"python3", "-c", "import time; time.sleep(120)"}, sandbox.WithLimits(64<<20, 32, 1e9))
			if err != nil {
				t.Fatal(err)
			}
			cfg, hc := Config(s)
			cfg.AttachStdin, cfg.OpenStdin, cfg.StdinOnce = false, false, false
			c, err := b.cli.ContainerCreate(ctx, client.ContainerCreateOptions{Config: cfg, HostConfig: hc})
			if err != nil {
				t.Fatal(err)
			}
			defer b.remove(ctx, c.ID)
			if _, err := b.cli.ContainerStart(ctx, c.ID, client.ContainerStartOptions{}); err != nil {
				t.Fatal(err)
			}
			w := watchOOM(c.ID)
			if w == nil {
				t.Fatal("no watch on a local engine's container")
			}
			ex, err := b.cli.ExecCreate(ctx, c.ID, client.ExecCreateOptions{Cmd: []string{"python3", "-c", tc.code}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.cli.ExecStart(ctx, ex.ID, client.ExecStartOptions{Detach: true}); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
				r, err := b.cli.ExecInspect(ctx, ex.ID, client.ExecInspectOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if !r.Running && r.PID != 0 {
					t.Logf("allocation exited %d", r.ExitCode)
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the allocation did not end in a minute")
				}
			}
			if got := w.stop(); got != tc.oom {
				t.Errorf("watch saw an OOM kill: %v, want %v", got, tc.oom)
			}
		})
	}
}
