package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/docker"
	hookengine "github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// podmanPassEnv turns on the case suites' variant on Podman: a `podman
// system service` the test starts on a socket of its own (Debian's podman:
// make podman), reached through its Docker-compatible API as DOCKER_HOST
// would name it, with the reference images built there. A pass of its own
// (make e2e-podman).
const podmanPassEnv = "HOOKEXEC_E2E_PODMAN"

var (
	podmanOnce sync.Once
	podmanErr  error
	podmanEngs []engineUnderTest
	// podmanB lists the sandboxes left on Podman (TestMain's leak check).
	podmanB *docker.Backend
	// podmanStop stops the service and removes its directory (TestMain).
	podmanStop = func() {}
	// podmanOpen opens another backend on the test's Podman service.
	podmanOpen func(...client.Opt) (*docker.Backend, error)
)

// podmanEngines returns Podman for the case suites, in the Podman pass;
// none otherwise.
func podmanEngines(t testing.TB) []engineUnderTest {
	t.Helper()
	if os.Getenv(podmanPassEnv) != "1" {
		t.Logf("the podman variants run in their own pass (%s=1; make e2e-podman runs it)", podmanPassEnv)
		return nil
	}
	requireEngines(t)
	podmanOnce.Do(podmanSetup)
	if podmanErr != nil {
		if os.Getenv("HOOKEXEC_REQUIRE_ENGINE") == "1" {
			t.Fatalf("podman is not usable and HOOKEXEC_REQUIRE_ENGINE=1 (make podman installs it): %v", podmanErr)
		}
		t.Skipf("podman is not usable (make podman installs it): %v", podmanErr)
	}
	return podmanEngs
}

// podmanSetup starts the service, builds the reference images through its
// API, and measures a cold run there.
func podmanSetup() {
	prog, err := exec.LookPath("podman")
	if err != nil {
		podmanErr = err
		return
	}
	dir, err := os.MkdirTemp("/var/tmp", "hookexec-podman-")
	if err != nil {
		podmanErr = err
		return
	}
	sock := filepath.Join(dir, "podman.sock")
	// runc, as on the machine's Docker: Podman prefers crun once it is
	// installed (make test installs it), and crun refuses hybrid cgroups.
	conf := filepath.Join(dir, "containers.conf")
	if err := os.WriteFile(conf, []byte("[engine]\nruntime = \"runc\"\n"), 0o644); err != nil {
		os.RemoveAll(dir)
		podmanErr = err
		return
	}
	log := &syncWriter{w: &bytes.Buffer{}}
	cmd := exec.Command(prog, "system", "service", "--time=0", "unix://"+sock)
	cmd.Env = append(os.Environ(), "CONTAINERS_CONF="+conf)
	// conmon writes an empty "oom" file into its working directory when a
	// sandbox is OOM-killed (seen here): the service's own, not the suite's.
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = log, log
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		podmanErr = err
		return
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	podmanStop = func() {
		if podmanB != nil {
			podmanB.Close()
		}
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		os.RemoveAll(dir)
	}
	podmanOpen = func(extra ...client.Opt) (*docker.Backend, error) {
		return docker.New(append([]client.Opt{client.WithHost("unix://" + sock)}, extra...)...)
	}
	d, err := podmanOpen()
	if err != nil {
		podmanErr = err
		return
	}
	podmanB = d
	if podmanErr = awaitEngine(d, exited, log, "the test's podman service", 30*time.Second); podmanErr != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	if podman, err := d.IsPodman(ctx); err != nil || !podman {
		podmanErr = fmt.Errorf("the test's service is not Podman (%v)", err)
		return
	}
	built, err := (&hookengine.Images{Docker: d}).Ensure(ctx, os.Stderr)
	if err != nil {
		podmanErr = fmt.Errorf("reference images on podman: %w", err)
		return
	}
	refs := map[launcher.Lang]string{}
	for lang, ref := range built {
		refs[lang] = ref
	}
	start, err := slowestColdRun(ctx, d, refs)
	if err != nil {
		podmanErr = err
		return
	}
	// The probe has run by now (the runs before its verdict took the
	// attach): Podman on this machine's socket sees its FIFOs.
	if err := d.WaitCleanup(ctx); err != nil {
		podmanErr = err
		return
	}
	if d.Stream() != "channel" {
		podmanErr = errors.New("podman on this machine's socket streams through the attach: want the channel")
		return
	}
	podmanEngs = []engineUnderTest{{"docker", "", d, refs, 2 * start, nil, "podman"}}
	println("e2e: a cold run on podman took at most", start.String(), "here; the cases' timeouts get twice that more")
}

// awaitEngine waits, within bound, for an engine the test started (its
// process's exit closes exited; log holds what it said) to answer.
func awaitEngine(d *docker.Backend, exited <-chan struct{}, log *syncWriter, what string, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := d.Ping(ctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited: %s", what, log.String())
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not answer: %v (it said %q)", what, err, log.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Podman 4.3's attach now and then loses what a program wrote when it
// exits leaving its stdin unread (7 runs of 60 at once, here, before the
// backend ran programs under a drain of their stdin): a hook that answers
// without reading its event, many at once, each gets its own answer.
func TestPodmanUnreadStdinKeepsOutput(t *testing.T) {
	engs := podmanEngines(t)
	if len(engs) == 0 {
		t.Skip("not the Podman pass")
	}
	eng := engs[0]
	const runs = 60
	timeout := 20 * coldLatency(t, eng)
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			spec, err := sandbox.New(eng.refs[launcher.Shell], []string{"sh", "-c", fmt.Sprintf("echo out-%d", i)})
			if err != nil {
				t.Error(err)
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), timeout*runs)
			defer cancel()
			out, err := eng.b.Run(ctx, &backend.Run{Spec: spec, Stdin: bytes.Repeat([]byte("x"), 1<<20), MaxOutput: 1024})
			switch {
			case err != nil:
				t.Errorf("run %d: %v", i, err)
			case out.ExitCode != 0 || out.TimedOut || string(out.Stdout) != fmt.Sprintf("out-%d\n", i):
				t.Errorf("run %d: exit %d, timed out %v, stdout %q: want 0, out-%d", i, out.ExitCode, out.TimedOut, out.Stdout, i)
			}
		})
	}
	wg.Wait()
}
