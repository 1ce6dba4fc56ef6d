// Package docker runs sandboxes on a Docker Engine through its API.
//
// One run: create (labelled, no AutoRemove, log driver none) -> attach ->
// wait(next-exit) registered -> start -> stdin written while stdout and
// stderr are read -> half-close -> exit -> inspect -> remove under a
// detached, bounded context.
package docker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/containerd/errdefs"
	units "github.com/docker/go-units"
	"github.com/moby/moby/api/pkg/stdcopy"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/mount"
	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// Bounds of the steps that run after the caller's deadline.
const (
	// removeTimeout bounds the removal of a container, tries included: an
	// engine under load can take many seconds to answer one.
	removeTimeout = 60 * time.Second
	// createTimeout bounds a create that goes on after the caller's deadline.
	createTimeout = 30 * time.Second
	// oomSettle bounds the wait for the engine to record an OOM kill that
	// raced the exit (seconds under load); the run's deadline bounds it too.
	oomSettle    = 3 * time.Second
	oomSettleMin = 200 * time.Millisecond
)

// Backend runs sandboxes on a Docker Engine.
type Backend struct {
	cli      *client.Client
	runtime  string // HostConfig.Runtime; "" is the engine's default
	gvisor   bool   // the runtime is runsc: pids count gVisor's own tasks
	cleanups backend.Cleanups
}

// New connects to the engine that DOCKER_HOST (unix, tcp with the
// DOCKER_TLS_VERIFY and DOCKER_CERT_PATH of the docker CLI, or ssh) names,
// or the default socket, negotiating the API version (the client's default,
// unless DOCKER_API_VERSION fixes one). Extra client options apply last.
func New(extra ...client.Opt) (*Backend, error) {
	opts := []client.Opt{client.FromEnv}
	if host := os.Getenv("DOCKER_HOST"); strings.HasPrefix(host, "ssh://") {
		dial, err := sshDialer(host)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", backend.ErrEngine, err)
		}
		opts = append(opts, client.WithHost("http://docker.ssh"), client.WithDialContext(dial))
	}
	cli, err := client.New(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("%w: docker client: %w", backend.ErrEngine, err)
	}
	return &Backend{cli: cli}, nil
}

// Client is the engine's API client, for image builds and probes.
func (b *Backend) Client() *client.Client { return b.cli }

func (b *Backend) Name() string { return "docker" }

// Isolating is true: every run is a hardened container.
func (b *Backend) Isolating() bool { return true }

// Close waits (bounded) for background cleanups, then closes the client.
func (b *Backend) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	return errors.Join(b.cleanups.Wait(ctx), b.cli.Close())
}

// WaitCleanup waits for the cleanups still running in the background.
func (b *Backend) WaitCleanup(ctx context.Context) error { return b.cleanups.Wait(ctx) }

// Ping checks that the engine answers.
func (b *Backend) Ping(ctx context.Context) error {
	if _, err := b.cli.Ping(ctx, client.PingOptions{}); err != nil {
		return b.engineErr("ping", err)
	}
	return nil
}

func (b *Backend) engineErr(op string, err error) error {
	return fmt.Errorf("%w: %s (engine at %s): %w", backend.ErrEngine, op, b.cli.DaemonHost(), err)
}

// Config converts a sandbox description to Docker's container and host
// configuration.
func Config(s *sandbox.Spec) (*container.Config, *container.HostConfig) {
	tmp := "rw,nosuid,nodev,size=" + strconv.FormatInt(s.TmpfsBytes, 10) + ",mode=1777"
	if s.TmpNoExec {
		tmp += ",noexec"
	}
	cfg := &container.Config{
		Image:        s.Image,
		Hostname:     "hook",
		User:         s.User,
		AttachStdin:  true,
		AttachStdout: true,
		AttachStderr: true,
		OpenStdin:    true,
		StdinOnce:    true,
		Env:          s.Env,
		Entrypoint:   s.Argv, // with an entrypoint set, the image's Cmd is not appended
		WorkingDir:   s.WorkingDir,
		Labels:       maps.Clone(s.Labels),
	}
	swap := s.Memory
	hc := &container.HostConfig{
		LogConfig:      container.LogConfig{Type: "none"},
		NetworkMode:    "bridge",
		AutoRemove:     false,
		ReadonlyRootfs: s.ReadOnlyRoot,
		Tmpfs:          map[string]string{"/tmp": tmp},
		IpcMode:        "private",
		Resources: container.Resources{
			Memory:     s.Memory,
			MemorySwap: swap,
			NanoCPUs:   s.NanoCPUs,
			PidsLimit:  &s.Pids,
			Ulimits: []*units.Ulimit{
				{Name: "nofile", Soft: int64(s.NoFile), Hard: int64(s.NoFile)},
				{Name: "fsize", Soft: int64(s.FileSize), Hard: int64(s.FileSize)},
			},
		},
	}
	for _, m := range s.Mounts {
		mt := mount.Mount{Type: mount.TypeBind, Source: m.Source, Target: m.Target, ReadOnly: m.ReadOnly,
			BindOptions: &mount.BindOptions{Propagation: mount.PropagationRPrivate}}
		if m.Volume {
			mt.Type, mt.BindOptions = mount.TypeVolume, nil
		}
		hc.Mounts = append(hc.Mounts, mt)
	}
	if s.NoNetwork {
		hc.NetworkMode = "none"
		cfg.NetworkDisabled = true
	}
	if s.DropAllCaps {
		hc.CapDrop = []string{"ALL"}
	}
	if s.NoNewPrivileges {
		hc.SecurityOpt = []string{"no-new-privileges"}
	}
	hc.SecurityOpt = append(hc.SecurityOpt, "seccomp="+backend.SeccompProfile())
	return cfg, hc
}

// config is Config for b's runtime: under gVisor the host's pids limit
// counts its own tasks.
func (b *Backend) config(s *sandbox.Spec) (*container.Config, *container.HostConfig) {
	cfg, hc := Config(s)
	hc.Runtime = b.runtime
	if b.gvisor {
		pids := backend.RunscHostPids(s.Pids)
		hc.PidsLimit = &pids
	}
	return cfg, hc
}

func randomName() string {
	var b [8]byte
	rand.Read(b[:])
	return "hookexec-" + hex.EncodeToString(b[:])
}

// Run implements backend.Backend.
func (b *Backend) Run(ctx context.Context, r *backend.Run) (*backend.Outcome, error) {
	return backend.RunPrepared(ctx, r, b.prepare)
}

// Warm creates and starts a sandbox ahead of its run: its launcher waits
// on stdin. ctx bounds only the preparation.
func (b *Backend) Warm(ctx context.Context, spec *sandbox.Spec) (backend.Warm, error) {
	return backend.WarmPrepared(ctx, spec, b.prepare)
}

// started is a container created, attached, waited on and started, whose
// program waits on stdin; backend.Prepared runs it.
type started struct {
	b          *Backend
	name, id   string
	hj         client.HijackedResponse
	halfCloser interface{ CloseWrite() error }
	exitC      chan backend.Exit
	cancelWait context.CancelFunc
	oom        *oomWatch
	outDone    chan struct{} // closed when the output copier is done; nil before Stream
	inDone     chan struct{}
}

var _ backend.Started = (*started)(nil)

// prepare runs create -> attach -> wait registered -> start under ctx. The
// wait lives under life (the run's context, or none for a warm sandbox).
// On failure what was made is removed.
func (b *Backend) prepare(ctx, life context.Context, spec *sandbox.Spec) (_ *backend.Prepared, retErr error) {
	if spec.Image == "" {
		return nil, fmt.Errorf("%w: no image given", backend.ErrImageNotFound)
	}
	// A step cut short by the caller's deadline is a timeout, whatever error
	// the engine gave for it.
	defer func() {
		if retErr != nil && !errors.Is(retErr, backend.ErrPrepareTimeout) && backend.Expired(ctx) {
			retErr = backend.ErrPrepareTimeout
		}
	}()
	cfg, hc := b.config(spec)
	maps.Copy(cfg.Labels, backend.OwnerLabels())
	// The container goes on any failure below, found by a name chosen
	// before create answers; an abandoned create removes what it made itself,
	// in the background.
	name := randomName()
	abandoned := false
	begin := time.Now()
	defer func() {
		if retErr != nil && !abandoned {
			retErr = errors.Join(retErr, b.remove(ctx, name))
		}
	}()
	created, err := b.create(ctx, cfg, hc, name)
	switch {
	case err == nil:
	case errors.Is(err, errAbandoned):
		abandoned = true
		return nil, backend.ErrPrepareTimeout
	case errdefs.IsNotFound(err):
		return nil, fmt.Errorf("%w: %q: %w", backend.ErrImageNotFound, spec.Image, err)
	default:
		return nil, b.engineErr("create container", err)
	}
	s := &started{b: b, name: name, id: created.ID, exitC: make(chan backend.Exit, 1)}
	attached, err := b.cli.ContainerAttach(ctx, s.id, client.ContainerAttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		if backend.Expired(ctx) {
			return nil, backend.ErrPrepareTimeout
		}
		return nil, b.engineErr("attach", err)
	}
	s.hj = attached.HijackedResponse
	// Without a half-close the script never sees the end of its event (the
	// client's own HijackedResponse.CloseWrite would do nothing, silently).
	var ok bool
	if s.halfCloser, ok = s.hj.Conn.(interface{ CloseWrite() error }); !ok {
		s.hj.Close()
		return nil, fmt.Errorf("%w (engine at %s, connection %T)", backend.ErrNoHalfClose, b.cli.DaemonHost(), s.hj.Conn)
	}
	// The wait outlives the caller's deadline: after a kill we still read the exit.
	startBegin := time.Now()
	var waitCtx context.Context
	waitCtx, s.cancelWait = context.WithCancel(context.WithoutCancel(life))
	wait := b.cli.ContainerWait(waitCtx, s.id, client.ContainerWaitOptions{Condition: container.WaitConditionNextExit})
	if _, err := b.cli.ContainerStart(ctx, s.id, client.ContainerStartOptions{}); err != nil {
		s.cancelWait()
		s.hj.Close()
		if backend.Expired(ctx) {
			return nil, backend.ErrPrepareTimeout
		}
		if errdefs.IsNotFound(err) || errdefs.IsInternal(err) || errdefs.IsInvalidArgument(err) || errdefs.IsUnknown(err) {
			return nil, fmt.Errorf("%w: %w", backend.ErrStart, err)
		}
		return nil, b.engineErr("start", err)
	}
	// One answer from the wait, in the shared form; the wait's context ends
	// with Release, so this ends too.
	go func() {
		select {
		case r := <-wait.Result:
			if r.Error != nil && r.Error.Message != "" {
				s.exitC <- backend.Exit{Err: b.engineErr("wait", errors.New(r.Error.Message))}
				return
			}
			s.exitC <- backend.Exit{Code: int(r.StatusCode)}
		case err := <-wait.Error:
			s.exitC <- backend.Exit{Err: b.engineErr("wait", err)}
		}
	}()
	s.oom = watchOOM(s.id)
	return backend.NewPrepared(s, startBegin.Sub(begin), time.Since(startBegin), &b.cleanups), nil
}

// Stream implements backend.Started: stdin goes in over the attach
// connection, then a half-close; stdout and stderr come back multiplexed.
func (s *started) Stream(stdin []byte, stdout, stderr io.Writer) {
	s.outDone, s.inDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.outDone)
		stdcopy.StdCopy(stdout, stderr, s.hj.Reader)
	}()
	go func() {
		defer close(s.inDone)
		// Errors are expected when the program exits without reading: the
		// engine closes the stream. The exit status tells what happened.
		if _, err := s.hj.Conn.Write(stdin); err == nil {
			s.halfCloser.CloseWrite()
		}
	}()
}

// Duplex implements backend.Started: stdin stays open on the attach
// connection until the returned writer is closed (a half-close).
func (s *started) Duplex(stdout, stderr io.Writer) io.WriteCloser {
	s.outDone, s.inDone = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(s.outDone)
		stdcopy.StdCopy(stdout, stderr, s.hj.Reader)
	}()
	return &attachedStdin{s: s}
}

type attachedStdin struct {
	s    *started
	once sync.Once
}

func (w *attachedStdin) Write(p []byte) (int, error) { return w.s.hj.Conn.Write(p) }

func (w *attachedStdin) Close() error {
	w.once.Do(func() {
		w.s.halfCloser.CloseWrite()
		close(w.s.inDone)
	})
	return nil
}

// Exited implements backend.Started.
func (s *started) Exited() <-chan backend.Exit { return s.exitC }

// Kill implements backend.Started.
func (s *started) Kill(ctx context.Context) {
	s.b.cli.ContainerKill(ctx, s.id, client.ContainerKillOptions{Signal: "KILL"})
}

// Drain implements backend.Started: the stream ends with the container,
// or is closed after grace.
func (s *started) Drain(grace time.Duration) bool {
	complete := true
	select {
	case <-s.outDone:
	case <-time.After(grace):
		complete = false
	}
	s.hj.Close()
	<-s.outDone
	return complete
}

// OOMKills implements backend.Started: Docker gives a container its own
// cgroup namespace, where a reused sandbox's agent reads the counter.
func (s *started) OOMKills(context.Context) (uint64, bool) { return 0, false }

// OOMKilled implements backend.Started: the cgroup watch answers for
// local engines; a SIGKILL nobody here sent, or an engine whose cgroups
// are not local, asks the engine.
func (s *started) OOMKilled(ctx context.Context, code int, killed bool) bool {
	unexplained := code == 137 && !killed
	if s.oom.stop() {
		return true
	}
	if s.oom == nil || unexplained {
		return s.b.oomKilled(ctx, s.id, unexplained)
	}
	return false
}

// Release implements backend.Started.
func (s *started) Release() {
	s.cancelWait()
	s.hj.Close()
	if s.outDone != nil {
		<-s.outDone
		<-s.inDone
	}
	s.oom.stop()
}

// Remove implements backend.Started.
func (s *started) Remove(ctx context.Context) error { return s.b.remove(ctx, s.name) }

var errAbandoned = errors.New("create abandoned at the deadline")

// create creates the container under its own bounded context, so that the
// engine never finishes a create nobody waits for: when the caller's
// deadline comes first, the create goes on in the background and the
// container it makes is removed there.
func (b *Backend) create(ctx context.Context, cfg *container.Config, hc *container.HostConfig, name string) (client.ContainerCreateResult, error) {
	type result struct {
		resp client.ContainerCreateResult
		err  error
	}
	ch := make(chan result, 1)
	var mu sync.Mutex
	gaveUp := false
	b.cleanups.Go(func() error {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), createTimeout)
		defer cancel()
		resp, err := b.cli.ContainerCreate(cctx, client.ContainerCreateOptions{Config: cfg, HostConfig: hc, Name: name})
		mu.Lock()
		abandoned := gaveUp
		if !abandoned {
			ch <- result{resp, err}
		}
		mu.Unlock()
		if abandoned {
			// Even a create that failed here may have been made by the
			// engine: the name finds it.
			return b.remove(ctx, name)
		}
		return nil
	})
	select {
	case r := <-ch:
		return r.resp, r.err
	case <-ctx.Done():
		mu.Lock()
		defer mu.Unlock()
		gaveUp = true
		select {
		case r := <-ch: // it finished just now: remove it in the background
			if r.err == nil {
				b.cleanups.Go(func() error { return b.remove(ctx, name) })
			}
		default:
		}
		return client.ContainerCreateResult{}, errAbandoned
	}
}

// oomKilled reads the engine's OOM flag. The engine may record an OOM kill
// after it reports the exit, so a SIGKILL exit that hook-exec did not cause
// is asked again for a short while.
func (b *Backend) oomKilled(ctx context.Context, id string, unexplainedKill bool) bool {
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), backend.KillGrace)
	defer cancel()
	deadline := time.Now().Add(oomSettle)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if min := time.Now().Add(oomSettleMin); deadline.Before(min) {
		deadline = min
	}
	for {
		res, err := b.cli.ContainerInspect(ictx, id, client.ContainerInspectOptions{})
		info := res.Container
		if err != nil || info.State == nil {
			return false
		}
		if info.State.OOMKilled || !unexplainedKill || time.Now().After(deadline) {
			return info.State.OOMKilled
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// remove deletes a container by name or id (forced: a running one is
// killed first) under a detached, bounded context; a container that does
// not exist is not an error. Failures are tried again until the bound: a
// conflict (a start or another removal still in flight on the engine, as
// when the process that asked for it was killed) or an engine too loaded
// to answer in time resolves later. An engine that cannot be reached at
// all is not waited for: the sweep of the next process removes what is
// left once this one is gone.
func (b *Backend) remove(ctx context.Context, ref string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	err := backend.Retry(rctx, func(ctx context.Context) error {
		_, err := b.cli.ContainerRemove(ctx, ref, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
		if err == nil || errdefs.IsNotFound(err) {
			return nil
		}
		return err
	}, func(err error) bool { return !client.IsErrConnectionFailed(err) })
	if err != nil {
		return b.engineErr("remove container "+ref, err)
	}
	return nil
}

// Sweep removes the managed containers whose owner process is gone (see
// backend.OwnerGone), or every managed container when all is true. It
// returns how many it removed.
func (b *Backend) Sweep(ctx context.Context, all bool) (int, error) {
	list, err := b.cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", sandbox.LabelManaged+"=true"),
	})
	if err != nil {
		return 0, b.engineErr("list containers", err)
	}
	n := 0
	var errs []error
	for _, c := range list.Items {
		if !all && !backend.OwnerGone(c.Labels) {
			continue
		}
		if err := b.remove(ctx, c.ID); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Session is what a hook borrows from a session container: its image and
// its mounts, never its environment, capabilities or network.
type Session struct {
	Image  string
	Mounts []sandbox.Mount
}

// SessionOf inspects a session container. Hooks run in a fresh sandbox of
// its image with its mounts, never by exec into it: Docker cannot kill the
// process tree of an exec'd process, so a hook could outlive its timeout.
func (b *Backend) SessionOf(ctx context.Context, name string) (*Session, error) {
	res, err := b.cli.ContainerInspect(ctx, name, client.ContainerInspectOptions{})
	info := res.Container
	if errdefs.IsNotFound(err) {
		return nil, fmt.Errorf("session container %q not found", name)
	}
	if err != nil {
		return nil, b.engineErr("inspect session container", err)
	}
	s := &Session{Image: info.Image}
	if info.Config != nil && info.Config.Image != "" {
		s.Image = info.Config.Image
	}
	for _, m := range info.Mounts {
		switch m.Type {
		case mount.TypeBind:
			s.Mounts = append(s.Mounts, sandbox.Mount{Source: m.Source, Target: m.Destination})
		case mount.TypeVolume:
			s.Mounts = append(s.Mounts, sandbox.Mount{Source: m.Name, Target: m.Destination, Volume: true})
		}
	}
	return s, nil
}

// Managed returns the labels of every managed container that exists now.
func (b *Backend) Managed(ctx context.Context) ([]map[string]string, error) {
	list, err := b.cli.ContainerList(ctx, client.ContainerListOptions{
		All:     true,
		Filters: make(client.Filters).Add("label", sandbox.LabelManaged+"=true"),
	})
	if err != nil {
		return nil, b.engineErr("list containers", err)
	}
	out := make([]map[string]string, len(list.Items))
	for i, c := range list.Items {
		out[i] = c.Labels
	}
	return out, nil
}
