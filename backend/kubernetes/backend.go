// Package kubernetes runs sandboxes as pods through a cluster's API, for
// hosts whose hooks must run where their workloads run, under the cluster's
// policies rather than on one engine.
//
// One run: a pod of one container (restartPolicy Never, no service-account
// token, no service links, non-root, RuntimeDefault seccomp, no capability,
// no privilege escalation, read-only root, /tmp an emptyDir in memory of
// the sandbox's size, memory and CPU limits, activeDeadlineSeconds as a
// backstop) -> watched until its container runs -> pods/attach with stdin
// (the launcher's framing: the script never appears in the pod) -> the exit
// status from the container's status -> the pod deleted with grace 0. A kill
// is a deletion with a grace of one second, so that the node confirms it.
//
// What a pod cannot say the way an OCI spec does is named where it is
// decided: no host mounts (a pod runs on a node, not on this host), /tmp
// not noexec (an emptyDir takes no mount options), the open-file and
// file-size limits are the runtime's, pids are the kubelet's podPidsLimit,
// and "no network" is the namespace's deny-all NetworkPolicy, which only a
// network plugin that enforces policies makes true.
package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/hookexec/hook-exec/backend"
)

// Defaults of `hook-exec k8s setup` and of the backend.
const (
	DefaultNamespace      = "hook-exec"
	DefaultServiceAccount = "hook-exec-sandbox"
)

// ErrUnsupported: the sandbox asks for something a pod cannot give.
var ErrUnsupported = errors.New("not possible on the kubernetes backend")

const (
	containerName = "hook"
	// warmDeadline is the activeDeadlineSeconds of a pod started ahead of
	// its run: the backstop for a pool whose owner died.
	warmDeadline = time.Hour
	// deadlineSlack is added to a run's own deadline for the backstop: the
	// kubelet ends the pod when hook-exec could not.
	deadlineSlack = 30 * time.Second
	removeTimeout = 60 * time.Second
	// killGrace is the kill's deletion grace, in seconds (see Kill).
	killGrace   = 1
	dialTimeout = 10 * time.Second
)

// Options say which cluster and where in it.
type Options struct {
	// Kubeconfig is the file to read; "" means the usual places (KUBECONFIG,
	// ~/.kube/config, then the in-cluster service account).
	Kubeconfig string
	// Context is the kubeconfig context; "" means its current one.
	Context string
	// Namespace is where pods run; "" means [DefaultNamespace].
	Namespace string
	// ServiceAccount the pods run as (its token is never mounted); ""
	// means [DefaultServiceAccount].
	ServiceAccount string
	// RuntimeClass is the pods' runtimeClassName (gVisor, Kata); "": the
	// node's default.
	RuntimeClass string
	// PullPolicy of the images; "" means IfNotPresent.
	PullPolicy corev1.PullPolicy
	// Seccomp is a Localhost profile (a path below the kubelet's seccomp
	// directory) holding [SeccompProfile], the filter the other backends
	// apply; "" means the runtime's default, which lets a process trace
	// another of its user.
	Seccomp string
}

// Backend runs sandboxes as pods.
type Backend struct {
	api      *api
	cfg      *rest.Config
	o        Options
	cleanups backend.Cleanups
}

// New connects to the cluster and checks that the namespace and its
// service account exist (`hook-exec k8s setup` makes them).
func New(ctx context.Context, o Options) (*Backend, error) {
	cfg, a, err := connect(&o)
	if err != nil {
		return nil, err
	}
	if o.PullPolicy == "" {
		o.PullPolicy = corev1.PullIfNotPresent
	}
	b := &Backend{api: a, cfg: cfg, o: o}
	cctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	if err := a.serviceAccounts(o.Namespace).get(cctx, o.ServiceAccount, &corev1.ServiceAccount{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("%w: service account %s/%s does not exist on %s: run `hook-exec k8s setup` first",
				backend.ErrEngine, o.Namespace, o.ServiceAccount, cfg.Host)
		}
		return nil, b.engineErr("reach the cluster", err)
	}
	return b, nil
}

// connect fills in o's namespace and service account and makes the
// clients of the cluster o names.
func connect(o *Options) (*rest.Config, *api, error) {
	cfg, err := RESTConfig(o.Kubeconfig, o.Context)
	if err != nil {
		return nil, nil, err
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.ServiceAccount == "" {
		o.ServiceAccount = DefaultServiceAccount
	}
	a, err := newAPI(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: kubernetes client for %s: %w", backend.ErrEngine, cfg.Host, err)
	}
	return cfg, a, nil
}

// RESTConfig loads a client configuration the way kubectl does.
func RESTConfig(kubeconfig, context string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("%w: kubeconfig: %w", backend.ErrEngine, err)
	}
	// A pod is a create, a watch, an attach and a delete: client-go's
	// default of 5 requests a second would be the bottleneck.
	cfg.QPS, cfg.Burst = 200, 400
	cfg.UserAgent = "hook-exec"
	return cfg, nil
}

func (b *Backend) Name() string    { return "kubernetes" }
func (b *Backend) Isolating() bool { return true }

// Namespace is where the pods run.
func (b *Backend) Namespace() string { return b.o.Namespace }

// Address is the API server's.
func (b *Backend) Address() string { return b.cfg.Host }

// Close waits (bounded) for the background removals.
func (b *Backend) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), removeTimeout)
	defer cancel()
	return b.cleanups.Wait(ctx)
}

// WaitCleanup waits for the removals still running in the background.
func (b *Backend) WaitCleanup(ctx context.Context) error { return b.cleanups.Wait(ctx) }

func (b *Backend) engineErr(op string, err error) error {
	return fmt.Errorf("%w: %s (kubernetes at %s): %w", backend.ErrEngine, op, b.cfg.Host, err)
}
