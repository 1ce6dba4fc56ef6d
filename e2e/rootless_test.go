package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/docker"
	hookengine "github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/images"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// rootlessPassEnv turns on the rootless Docker pass (make e2e-rootless): a
// rootless dockerd (Debian's docker.io's dockerd-rootless.sh, rootlesskit,
// slirp4netns) the test starts as rootlessUser, reached on its socket.
const rootlessPassEnv = "HOOKEXEC_E2E_ROOTLESS"

// rootlessUser is the account the rootless engine runs as (make rootless
// makes it, with its subordinate ids).
const rootlessUser = "hookexec-rootless"

var (
	rootlessOnce sync.Once
	rootlessErr  error
	rootlessB    *docker.Backend
	rootlessSock string
	// rootlessEngs are the case suites' engine on it, where it enforces
	// limits (built once).
	rootlessEngsOnce sync.Once
	rootlessEngs     []engineUnderTest
	rootlessEngsErr  error
	// rootlessStop stops the engine and removes its runtime directory (TestMain).
	rootlessStop = func() {}
)

// rootlessEngine starts the rootless engine once, in the rootless pass, and
// returns a backend on it; it skips otherwise.
func rootlessEngine(t testing.TB) *docker.Backend {
	t.Helper()
	if os.Getenv(rootlessPassEnv) != "1" {
		t.Skipf("the rootless Docker pass runs on its own (%s=1; make e2e-rootless)", rootlessPassEnv)
	}
	requireEngines(t)
	rootlessOnce.Do(rootlessSetup)
	if rootlessErr != nil {
		if os.Getenv("HOOKEXEC_REQUIRE_ENGINE") == "1" {
			t.Fatalf("rootless Docker is not usable and HOOKEXEC_REQUIRE_ENGINE=1 (make rootless sets it up): %v", rootlessErr)
		}
		t.Skipf("rootless Docker is not usable (make rootless sets it up): %v", rootlessErr)
	}
	return rootlessB
}

// rootlessSetup starts dockerd-rootless.sh as rootlessUser in a process
// group of its own, with a runtime directory of the test's, and waits for
// its socket to answer.
func rootlessSetup() {
	const script = "/usr/share/docker.io/contrib/dockerd-rootless.sh"
	if _, err := os.Stat(script); err != nil {
		rootlessErr = err
		return
	}
	u, err := user.Lookup(rootlessUser)
	if err != nil {
		rootlessErr = err
		return
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	run, err := os.MkdirTemp("", "hookexec-rootless-")
	if err != nil {
		rootlessErr = err
		return
	}
	if err := os.Chown(run, uid, gid); err != nil {
		os.RemoveAll(run)
		rootlessErr = err
		return
	}
	log := &syncWriter{w: &bytes.Buffer{}}
	cmd := exec.Command(script)
	cmd.Dir = u.HomeDir
	cmd.Env = []string{"HOME=" + u.HomeDir, "USER=" + rootlessUser, "XDG_RUNTIME_DIR=" + run, "PATH=/usr/sbin:/usr/bin:/sbin:/bin"}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Start(); err != nil {
		os.RemoveAll(run)
		rootlessErr = err
		return
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	rootlessStop = func() {
		if rootlessB != nil {
			rootlessB.Close()
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // rootlesskit, dockerd, containerd
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		os.RemoveAll(run)
	}
	rootlessSock = "unix://" + filepath.Join(run, "docker.sock")
	d, err := rootlessOpen()
	if err != nil {
		rootlessErr = err
		return
	}
	rootlessB = d
	rootlessErr = awaitEngine(d, exited, log, "the rootless engine", 60*time.Second)
}

// rootlessLimits says whether the rootless engine enforces a sandbox's
// memory and pids limits (cgroup v2 with the controllers delegated).
func rootlessLimits(t testing.TB, d *docker.Backend) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := d.Client().Info(ctx, client.InfoOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Info.MemoryLimit && res.Info.PidsLimit
}

// TestRootlessWithoutLimits: where the rootless engine would discard the
// limits (cgroup v1, as here: a memory bomb ran unbounded to its timeout
// before this refusal), every hook is refused at once as an engine error
// naming what is missing, and no container is made. Where it enforces
// them, the case suites run there instead (rootlessEngines).
func TestRootlessWithoutLimits(t *testing.T) {
	d := rootlessEngine(t)
	if rootlessLimits(t, d) {
		t.Skip("this rootless engine enforces memory and pids limits: the case suites run on it (rootlessEngines)")
	}
	// The real image, so that a regression would run the bomb there.
	recipe, _ := images.ForLang(string(launcher.Shell))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ref, err := (&images.Builder{Docker: d.Client(), Out: io.Discard}).Make(ctx, recipe)
	if err != nil {
		t.Fatal(err)
	}
	ex := newExecutor(t, d, map[launcher.Lang]string{launcher.Shell: ref})
	h := writeScript(t, launcher.Shell, "x=aaaaaaaaaaaaaaaa\nwhile :; do x=\"$x$x\"; done\n")
	h.Memory = 64 << 20
	h.Timeout = time.Minute
	begin := time.Now()
	r, err := ex.Run(context.Background(), h, toolEvent("ls"))
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, r, hook.FailEngineError)
	if r.Decision.Action != hook.Deny {
		t.Errorf("action %q, want deny: a hook that could not be held to its limits never runs", r.Decision.Action)
	}
	if !bytes.Contains([]byte(r.Trace.Failure.Message), []byte("cannot enforce a sandbox's memory and pids limit")) {
		t.Errorf("failure %q does not say which limits the engine would discard", r.Trace.Failure.Message)
	}
	if took := time.Since(begin); took > 30*time.Second {
		t.Errorf("the refusal took %v: the hook ran", took)
	}
	left, err := d.Managed(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("%d containers on the rootless engine, want none made", len(left))
	}
	// The backend says the same to a caller of its own.
	spec, err := sandbox.New(ref, []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Run(context.Background(), &backend.Run{Spec: spec})
	if !errors.Is(err, backend.ErrNoLimits) {
		t.Errorf("backend run: %v, want ErrNoLimits", err)
	}
}

// rootlessOpen opens another backend on the test's rootless engine.
func rootlessOpen(extra ...client.Opt) (*docker.Backend, error) {
	return docker.New(append([]client.Opt{client.WithHost(rootlessSock)}, extra...)...)
}

// rootlessEngines returns the rootless engine for the case suites, in the
// rootless pass and where it enforces limits (else TestRootlessWithoutLimits
// is its case); none otherwise.
func rootlessEngines(t testing.TB) []engineUnderTest {
	t.Helper()
	if os.Getenv(rootlessPassEnv) != "1" {
		t.Logf("the rootless variants run in their own pass (%s=1; make e2e-rootless runs it)", rootlessPassEnv)
		return nil
	}
	d := rootlessEngine(t)
	if !rootlessLimits(t, d) {
		t.Logf("no rootless variants: the rootless engine would discard limits here; TestRootlessWithoutLimits checks its refusal")
		return nil
	}
	rootlessEngsOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		built, err := (&hookengine.Images{Docker: d}).Ensure(ctx, os.Stderr)
		if err != nil {
			rootlessEngsErr = fmt.Errorf("reference images on the rootless engine: %w", err)
			return
		}
		refs := map[launcher.Lang]string{}
		for lang, ref := range built {
			refs[lang] = ref
		}
		start, err := slowestColdRun(ctx, d, refs)
		if err != nil {
			rootlessEngsErr = err
			return
		}
		rootlessEngs = []engineUnderTest{{"docker", "", d, refs, 2 * start, nil, "rootless"}}
	})
	if rootlessEngsErr != nil {
		t.Fatal(rootlessEngsErr)
	}
	return rootlessEngs
}
