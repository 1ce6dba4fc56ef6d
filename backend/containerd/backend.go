// Package containerd runs sandboxes directly on containerd: no dockerd on
// the path, no network setup, about a third of Docker's cold latency.
//
// One run: image (already in hook-exec's namespace) -> container with a
// labelled snapshot and an OCI spec: containerd's default with the sandbox
// description over it (plus Docker's
// default seccomp profile, which containerd does not apply by itself) ->
// task with stdin/stdout/stderr streams -> wait registered -> start -> stdin
// closed with CloseIO once it is written -> exit -> metrics (OOM) -> task,
// container and snapshot deleted under a detached, bounded context.
package containerd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/containerd/containerd/v2/client"

	"github.com/hookexec/hook-exec/backend"
)

// Namespace is hook-exec's own containerd namespace.
const Namespace = "hookexec"

// Candidate sockets, in the order they are tried when no address is given.
var Candidates = []string{"/run/containerd/containerd.sock", "/var/run/docker/containerd/containerd.sock"}

const (
	removeTimeout = 60 * time.Second // tries included: a loaded engine is slow to answer
	dialTimeout   = 3 * time.Second
	setupTimeout  = 30 * time.Second
)

// Backend runs sandboxes on containerd.
type Backend struct {
	cli         *client.Client
	addr        string
	snapshotter string
	runtime     runtime

	mu       sync.Mutex
	images   map[string]cachedImage // ready images by normalized reference
	cleanups backend.Cleanups
	// chans stream a sandbox past the shim's stdio copy, under runc (nil:
	// never).
	chans *backend.Channels
}

// Address resolves the containerd socket: the given one, else
// HOOKEXEC_CONTAINERD_ADDRESS, else the first of [Candidates] that exists.
func Address(given string) (string, error) {
	if given != "" {
		return given, nil
	}
	if a := os.Getenv("HOOKEXEC_CONTAINERD_ADDRESS"); a != "" {
		return a, nil
	}
	for _, c := range Candidates {
		if fi, err := os.Stat(c); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return c, nil
		}
	}
	return "", fmt.Errorf("%w: no containerd socket at %s: give --containerd-address or HOOKEXEC_CONTAINERD_ADDRESS",
		backend.ErrEngine, strings.Join(Candidates, " or "))
}

// New connects to containerd at address (see [Address]) and checks that it
// answers.
func New(ctx context.Context, address string) (*Backend, error) {
	addr, err := Address(address)
	if err != nil {
		return nil, err
	}
	if strings.HasPrefix(addr, "/") {
		// A missing socket fails at once rather than after the dial timeout.
		if _, err := os.Stat(addr); err != nil {
			return nil, fmt.Errorf("%w: containerd at %s: %w", backend.ErrEngine, addr, err)
		}
	}
	cli, err := client.New(addr, client.WithDefaultNamespace(Namespace), client.WithTimeout(dialTimeout))
	if err != nil {
		return nil, fmt.Errorf("%w: connect to containerd at %s: %w", backend.ErrEngine, addr, err)
	}
	vctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if _, err := cli.Version(vctx); err != nil {
		cli.Close()
		return nil, fmt.Errorf("%w: containerd at %s does not answer: %w", backend.ErrEngine, addr, err)
	}
	return &Backend{cli: cli, addr: addr, snapshotter: os.Getenv("HOOKEXEC_CONTAINERD_SNAPSHOTTER"), runtime: runtime{typ: runcShim},
		images: map[string]cachedImage{}, chans: backend.NewChannels("containerd " + addr)}, nil
}

func (b *Backend) Name() string    { return "containerd" }
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

// Client is the containerd client, for image import.
func (b *Backend) Client() *client.Client { return b.cli }

// Address is the socket in use.
func (b *Backend) Address() string { return b.addr }

// Ping checks that containerd answers.
func (b *Backend) Ping(ctx context.Context) error {
	if _, err := b.cli.Version(ctx); err != nil {
		return fmt.Errorf("%w: containerd: %w", backend.ErrEngine, err)
	}
	return nil
}

func (b *Backend) engineErr(op string, err error) error {
	return fmt.Errorf("%w: %s (containerd at %s): %w", backend.ErrEngine, op, b.addr, err)
}
