// Package docker runs sandboxes on a Docker Engine through its API.
//
// One run: create (labelled, no AutoRemove, log driver none) -> attach ->
// wait(next-exit) registered -> start -> stdin written while stdout and
// stderr are read -> half-close -> exit -> inspect -> remove under a
// detached, bounded context.
package docker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/client"

	"github.com/hookexec/hook-exec/backend"
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
	// chans stream a sandbox past the engine's attach, when the engine
	// runs on this machine under runc (nil: never).
	chans *backend.Channels
	// flavour is what the engine is (Docker or Podman), asked at first use.
	flavourMu sync.Mutex
	flavour   flavour
}

// New connects to the engine that DOCKER_HOST (unix, tcp with the
// DOCKER_TLS_VERIFY and DOCKER_CERT_PATH of the docker CLI, or ssh) names,
// or the default socket, negotiating the API version (the client's default,
// unless DOCKER_API_VERSION fixes one). Extra client options apply last.
func New(extra ...client.Opt) (*Backend, error) {
	opts := []client.Opt{client.FromEnv}
	if host := os.Getenv("DOCKER_HOST"); strings.HasPrefix(host, "ssh://") {
		ssh, err := SSH(host, os.Getenv("HOOKEXEC_SSH"))
		if err != nil {
			return nil, err
		}
		opts = append(opts, ssh...)
	}
	cli, err := client.New(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("%w: docker client: %w", backend.ErrEngine, err)
	}
	b := &Backend{cli: cli}
	if strings.HasPrefix(cli.DaemonHost(), "unix://") {
		b.chans = backend.NewChannels("docker " + cli.DaemonHost()) // the engine may see this machine's files
	}
	return b, nil
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
	probe := b.chans.WaitProbe(ctx) // its sandbox goes through the client
	return errors.Join(probe, b.cleanups.Wait(ctx), b.cli.Close(), b.chans.Close())
}

// WaitProbe waits for the channel probe running in the background, if
// one is (backend.Channels).
func (b *Backend) WaitProbe(ctx context.Context) error { return b.chans.WaitProbe(ctx) }

// WaitCleanup waits for the cleanups still running in the background.
func (b *Backend) WaitCleanup(ctx context.Context) error {
	return errors.Join(b.chans.WaitProbe(ctx), b.cleanups.Wait(ctx))
}

// Address is the engine's endpoint (DOCKER_HOST's).
func (b *Backend) Address() string { return b.cli.DaemonHost() }

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
