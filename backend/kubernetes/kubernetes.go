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
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
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

// Run implements backend.Backend.
func (b *Backend) Run(ctx context.Context, r *backend.Run) (*backend.Outcome, error) {
	return backend.RunPrepared(ctx, r, b.prepare)
}

// WarmLifetime implements backend.WarmLifetimer: a pool hands out no pod
// within ten minutes of the warm deadline that would end it.
func (b *Backend) WarmLifetime() time.Duration { return warmDeadline - 10*time.Minute }

// NotReusable implements backend.NotReusable.
func (b *Backend) NotReusable() string {
	return "a pod's attach is stdinOnce, and the reset a reused sandbox needs was never run on a pod"
}

var (
	_ backend.WarmLifetimer = (*Backend)(nil)
	_ backend.NotReusable   = (*Backend)(nil)
)

// Warm implements backend.Warmer: a pod started ahead of its run, its
// launcher waiting on stdin.
func (b *Backend) Warm(ctx context.Context, spec *sandbox.Spec) (backend.Warm, error) {
	return backend.WarmPrepared(ctx, spec, b.prepare)
}

func randomName() string {
	var r [8]byte
	rand.Read(r[:])
	return "hookexec-" + hex.EncodeToString(r[:])
}

// podFor is the pod of one sandbox. deadline is its activeDeadlineSeconds.
func (b *Backend) podFor(name string, rs *sandbox.Spec, deadline time.Duration) (*corev1.Pod, error) {
	if len(rs.Mounts) > 0 {
		return nil, fmt.Errorf("%w: mounts (%s -> %s): a pod runs on a node of the cluster, not on this host", ErrUnsupported, rs.Mounts[0].Source, rs.Mounts[0].Target)
	}
	uid, gid, err := rs.IDs()
	if err != nil {
		return nil, err
	}
	if uid == 0 {
		return nil, fmt.Errorf("%w: user %s: pods run as non-root", ErrUnsupported, rs.User)
	}
	env := make([]corev1.EnvVar, 0, len(rs.Env))
	for _, kv := range rs.Env {
		k, v, _ := strings.Cut(kv, "=")
		env = append(env, corev1.EnvVar{Name: k, Value: v})
	}
	all := maps.Clone(rs.Labels)
	maps.Copy(all, backend.OwnerLabels())
	// Every label as an annotation (the sweep reads those); as a label too
	// where the value is one a label may hold, for selectors.
	podLabels := map[string]string{}
	for k, v := range all {
		if len(validation.IsQualifiedName(k)) == 0 && len(validation.IsValidLabelValue(v)) == 0 {
			podLabels[k] = v
		}
	}
	podLabels[sandbox.LabelManaged] = "true"
	cpu := resource.NewMilliQuantity(max(rs.NanoCPUs/1e6, 1), resource.DecimalSI)
	// A small request: the limit bounds the hook, the request only places
	// the pod, and a node holds many hooks that mostly wait.
	cpuRequest := resource.NewMilliQuantity(min(rs.NanoCPUs/1e6, 50), resource.DecimalSI)
	mem := resource.NewQuantity(rs.Memory, resource.BinarySI)
	secs := int64((deadline + time.Second - 1) / time.Second)
	profile := &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}
	if b.o.Seccomp != "" {
		profile = &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeLocalhost, LocalhostProfile: ptr(b.o.Seccomp)}
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: b.o.Namespace, Labels: podLabels, Annotations: all},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			ServiceAccountName:            b.o.ServiceAccount,
			AutomountServiceAccountToken:  ptr(false),
			EnableServiceLinks:            ptr(false),
			ActiveDeadlineSeconds:         &secs,
			TerminationGracePeriodSeconds: ptr(int64(0)),
			// No resolver: nothing in the pod has anywhere to ask.
			DNSPolicy: corev1.DNSNone,
			DNSConfig: &corev1.PodDNSConfig{Nameservers: []string{"127.0.0.1"}},
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   ptr(true),
				RunAsUser:      ptr(int64(uid)),
				RunAsGroup:     ptr(int64(gid)),
				SeccompProfile: profile,
			},
			Containers: []corev1.Container{{
				Name:            containerName,
				Image:           rs.Image,
				ImagePullPolicy: b.o.PullPolicy,
				Command:         rs.Argv,
				Env:             env,
				WorkingDir:      rs.WorkingDir,
				Stdin:           true,
				StdinOnce:       true,
				Resources: corev1.ResourceRequirements{
					Limits:   corev1.ResourceList{corev1.ResourceCPU: *cpu, corev1.ResourceMemory: *mem},
					Requests: corev1.ResourceList{corev1.ResourceCPU: *cpuRequest, corev1.ResourceMemory: *mem},
				},
				SecurityContext: &corev1.SecurityContext{
					Privileged:               ptr(false),
					AllowPrivilegeEscalation: ptr(!rs.NoNewPrivileges),
					ReadOnlyRootFilesystem:   ptr(rs.ReadOnlyRoot),
					RunAsNonRoot:             ptr(true),
					SeccompProfile:           profile,
				},
				VolumeMounts:             []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}},
				TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			}},
			Volumes: []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{
				EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: resource.NewQuantity(rs.TmpfsBytes, resource.BinarySI)},
			}}},
		},
	}
	if rs.DropAllCaps {
		pod.Spec.Containers[0].SecurityContext.Capabilities = &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}
	}
	if b.o.RuntimeClass != "" {
		pod.Spec.RuntimeClassName = ptr(b.o.RuntimeClass)
	}
	return pod, nil
}

func ptr[T any](v T) *T { return &v }

// startedPod is a pod whose container runs, its launcher waiting on stdin.
type startedPod struct {
	b    *Backend
	name string

	life      context.Context // the watch and the attach
	cancel    context.CancelFunc
	exited    chan backend.Exit // one exit, from the watch
	running   chan struct{}     // closed once the container ran (or ended)
	startErr  error             // set before failed is closed
	failed    chan struct{}     // the pod cannot start
	streamed  chan struct{}     // closed when the attach ends
	streamErr error             // the attach's error, set before streamed is closed
	stdin     cutStdin          // Stream's

	mu     sync.Mutex
	killed bool
	oom    bool
	stdinW *io.PipeWriter // Duplex
}

var _ backend.Started = (*startedPod)(nil)

// prepare creates the pod under ctx and waits for its container to run;
// the watch lives under life. On failure the pod is removed.
func (b *Backend) prepare(ctx, life context.Context, rs *sandbox.Spec) (_ *backend.Prepared, retErr error) {
	defer func() {
		if retErr != nil && backend.Expired(ctx) {
			retErr = backend.ErrPrepareTimeout
		}
	}()
	begin := time.Now()
	deadline := warmDeadline
	if d, ok := ctx.Deadline(); ok && life == ctx {
		deadline = time.Until(d) + deadlineSlack
	}
	name := randomName()
	pod, err := b.podFor(name, rs, deadline)
	if err != nil {
		return nil, err
	}
	p := &startedPod{b: b, name: name, exited: make(chan backend.Exit, 1), running: make(chan struct{}),
		failed: make(chan struct{}), streamed: make(chan struct{})}
	p.life, p.cancel = context.WithCancel(context.WithoutCancel(life))
	defer func() {
		if retErr != nil {
			p.cancel()
			// A create cut short may still have made the pod: it goes by name.
			b.cleanups.Go(func() error { return b.remove(ctx, name) })
		}
	}()
	created := &corev1.Pod{}
	if err := b.api.pods(b.o.Namespace).create(ctx, pod, created); err != nil {
		if apierrors.IsForbidden(err) || apierrors.IsInvalid(err) {
			return nil, fmt.Errorf("%w: the cluster refused the pod: %w", backend.ErrStart, err)
		}
		return nil, b.engineErr("create pod", err)
	}
	startBegin := time.Now()
	go p.watch(created.ResourceVersion)
	select {
	case <-p.running:
	case <-p.failed:
		return nil, p.startErr
	case <-ctx.Done():
		return nil, backend.ErrPrepareTimeout
	}
	return backend.NewPrepared(p, startBegin.Sub(begin), time.Since(startBegin), &b.cleanups), nil
}

// watch follows the pod until its container ended (or the pod is gone),
// through as many watches as it takes: a watch may end at any time.
func (p *startedPod) watch(rv string) {
	pods := p.b.api.pods(p.b.o.Namespace)
	sel := fields.OneTermEqualSelector("metadata.name", p.name).String()
	ranOnce := sync.OnceFunc(func() { close(p.running) })
	done := false
	report := func(e backend.Exit) {
		if !done {
			done = true
			p.exited <- e
		}
	}
	// refused: the API will not let this process follow its pod (RBAC,
	// credentials): an engine error now, not a timeout later.
	refused := func(err error) bool {
		if !apierrors.IsForbidden(err) && !apierrors.IsUnauthorized(err) {
			return false
		}
		err = p.b.engineErr("watch pod "+p.name, err)
		p.fail(err)
		report(backend.Exit{Err: err})
		return true
	}
	for !done && p.life.Err() == nil {
		if rv == "" {
			// Going on from now: what happened since the last event (the
			// pod's end, its deletion) is read first, or no event says it.
			got := &corev1.Pod{}
			err := pods.get(p.life, p.name, got)
			switch {
			case err == nil:
				rv = got.ResourceVersion
				p.observe(got, ranOnce, report)
				continue
			case apierrors.IsNotFound(err):
				p.gone(ranOnce, report)
				continue
			case refused(err) || p.life.Err() != nil:
				return
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		w, err := pods.watch(p.life, metav1.ListOptions{FieldSelector: sel, ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			if refused(err) || p.life.Err() != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		for ev := range w.ResultChan() {
			switch ev.Type {
			case watch.Error:
				// Most often "too old a resource version": go on from now.
				rv = ""
				w.Stop()
			case watch.Deleted:
				p.gone(ranOnce, report)
			case watch.Added, watch.Modified, watch.Bookmark:
				pod, ok := ev.Object.(*corev1.Pod)
				if !ok {
					continue
				}
				rv = pod.ResourceVersion
				if ev.Type != watch.Bookmark {
					p.observe(pod, ranOnce, report)
				}
			}
			if done {
				break
			}
		}
		w.Stop()
	}
}

// observe takes one state of the pod.
func (p *startedPod) observe(pod *corev1.Pod, ran func(), report func(backend.Exit)) {
	var st *corev1.ContainerStatus
	for i := range pod.Status.ContainerStatuses {
		if pod.Status.ContainerStatuses[i].Name == containerName {
			st = &pod.Status.ContainerStatuses[i]
		}
	}
	switch {
	case st != nil && st.State.Terminated != nil:
		t := st.State.Terminated
		if (t.Reason == "StartError" || t.Reason == "ContainerCannotRun") && p.fail(fmt.Errorf("%w: %s", backend.ErrStart, t.Message)) {
			return
		}
		if pod.Status.Reason == "DeadlineExceeded" {
			// The backstop ended it: hook-exec did not (its kill, or a
			// pooled pod idle past warmDeadline). Not the hook's own exit.
			ran()
			report(backend.Exit{Err: fmt.Errorf("%w: pod %s reached its activeDeadlineSeconds: %s", backend.ErrEngine, p.name, pod.Status.Message)})
			return
		}
		p.mu.Lock()
		p.oom = t.Reason == "OOMKilled"
		p.mu.Unlock()
		ran()
		report(backend.Exit{Code: int(t.ExitCode)})
	case st != nil && st.State.Running != nil:
		ran()
	case st != nil && st.State.Waiting != nil:
		w := st.State.Waiting
		switch w.Reason {
		case "ErrImageNeverPull", "ErrImagePull", "ImagePullBackOff", "InvalidImageName":
			p.fail(fmt.Errorf("%w: %q on %s: %s: %s", backend.ErrImageNotFound, pod.Spec.Containers[0].Image, p.b.cfg.Host, w.Reason, w.Message))
		case "CreateContainerConfigError", "CreateContainerError", "RunContainerError":
			p.fail(fmt.Errorf("%w: %s: %s", backend.ErrStart, w.Reason, w.Message))
		}
	case pod.Status.Phase == corev1.PodFailed:
		p.fail(fmt.Errorf("%w: pod %s failed before its container ran: %s: %s", backend.ErrEngine, p.name, pod.Status.Reason, pod.Status.Message))
	}
}

// gone: the pod was deleted. After hook-exec's kill that is the exit.
func (p *startedPod) gone(ran func(), report func(backend.Exit)) {
	p.mu.Lock()
	killed := p.killed
	p.mu.Unlock()
	p.fail(fmt.Errorf("%w: pod %s was deleted before its container ran", backend.ErrEngine, p.name))
	if killed {
		report(backend.Exit{Code: backend.KilledExitCode})
		return
	}
	report(backend.Exit{Err: fmt.Errorf("%w: pod %s was deleted by someone else", backend.ErrEngine, p.name)})
}

// fail records why the pod cannot start, once, and says whether it did; a
// pod that already ran keeps its exit as the answer.
func (p *startedPod) fail(err error) bool {
	select {
	case <-p.running:
		return false
	case <-p.failed:
		return false
	default:
	}
	p.startErr = err
	close(p.failed)
	return true
}

// attach streams stdin in and the output out through pods/attach, until
// the container's streams end or life does.
func (p *startedPod) attach(stdin io.Reader, stdout, stderr io.Writer) {
	defer close(p.streamed)
	req := p.b.api.pods(p.b.o.Namespace).attach(p.name, &corev1.PodAttachOptions{
		Container: containerName, Stdin: true, Stdout: true, Stderr: true,
	})
	exec, err := newExecutor(p.b.cfg, req.URL())
	if err == nil {
		err = exec.StreamWithContext(p.life, remotecommand.StreamOptions{Stdin: stdin, Stdout: stdout, Stderr: stderr})
	}
	p.streamErr = err
}

// newExecutor prefers SPDY and falls back to WebSockets where it cannot
// upgrade (a proxy, an apiserver without it). Measured on v1.37: when the
// container exits while stdin still flows (a 10 MiB event its script never
// read), the apiserver's WebSocket translation drops the attach without
// its final status (close 1006) in 6 of 12 runs, so the output could not be
// known complete; SPDY ended cleanly in 12 of 12.
func newExecutor(cfg *rest.Config, u *url.URL) (remotecommand.Executor, error) {
	spdy, err := remotecommand.NewSPDYExecutor(cfg, "POST", u)
	if err != nil {
		return nil, err
	}
	ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", u.String())
	if err != nil {
		return nil, err
	}
	// client-go's SPDY says an upgrade failed in words only; the upgrade
	// comes before any stdin is read, so the second try has it all.
	return remotecommand.NewFallbackExecutor(spdy, ws, func(err error) bool {
		return strings.HasPrefix(err.Error(), "unable to upgrade connection") || httpstream.IsHTTPSProxyError(err)
	})
}

// Stream implements backend.Started.
func (p *startedPod) Stream(stdin []byte, stdout, stderr io.Writer) {
	p.stdin.r = bytes.NewReader(stdin)
	go p.attach(&p.stdin, stdout, stderr)
}

// cutStdin is a run's stdin that ends early at Drain: once the program
// exited nothing reads it, and an attach still carrying an event the
// program never read would end only when its last byte crossed the
// apiserver and the kubelet.
type cutStdin struct {
	r   io.Reader
	cut atomic.Bool
}

func (c *cutStdin) Read(b []byte) (int, error) {
	if c.cut.Load() {
		return 0, io.EOF
	}
	return c.r.Read(b)
}

// Duplex implements backend.Started.
func (p *startedPod) Duplex(stdout, stderr io.Writer) io.WriteCloser {
	r, w := io.Pipe()
	p.mu.Lock()
	p.stdinW = w
	p.mu.Unlock()
	go p.attach(r, stdout, stderr)
	return w
}

// Exited implements backend.Started.
func (p *startedPod) Exited() <-chan backend.Exit { return p.exited }

// Kill implements backend.Started: the pod deleted with a grace of one
// second, which the kubelet carries out at once with the image's stop
// signal (the reference images' is SIGKILL; any other image gets SIGTERM
// and the kubelet's minimum of 2 s before SIGKILL). Not grace 0: that
// removes the pod from the API before the node has killed anything, so
// the exit would be a guess; with a grace the container's terminated
// status, from the node, is the exit. A node that does not answer within
// the executor's kill grace leaves the exit unknown, and the removal after
// the answer (grace 0) takes the pod out of the API regardless.
func (p *startedPod) Kill(ctx context.Context) {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	p.b.deletePod(ctx, p.name, killGrace)
}

// Drain implements backend.Started. An attach that failed counts as
// output cut short: what the hook wrote may not have arrived.
func (p *startedPod) Drain(grace time.Duration) bool {
	p.stdin.cut.Store(true)
	select {
	case <-p.streamed:
		return p.streamErr == nil
	case <-time.After(grace):
		p.cancel()
		<-p.streamed
		return false
	}
}

// OOMKills implements backend.Started: a pod's cgroup is the node's, not
// this host's (and a pod is never reused).
func (p *startedPod) OOMKills(context.Context) (uint64, bool) { return 0, false }

// OOMKilled implements backend.Started: the container's terminated reason.
func (p *startedPod) OOMKilled(context.Context, int, bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.oom
}

// Release implements backend.Started.
func (p *startedPod) Release() {
	p.mu.Lock()
	w := p.stdinW
	p.mu.Unlock()
	if w != nil {
		w.CloseWithError(io.ErrClosedPipe)
	}
	p.cancel()
}

// Remove implements backend.Started.
func (p *startedPod) Remove(ctx context.Context) error { return p.b.remove(ctx, p.name) }

// deletePod deletes a pod under ctx with a grace of so many seconds (0:
// out of the API at once, the kubelet kills when it learns); gone already
// is fine.
func (b *Backend) deletePod(ctx context.Context, name string, grace int64) error {
	err := b.api.pods(b.o.Namespace).delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	if err != nil && !apierrors.IsNotFound(err) {
		return b.engineErr("delete pod "+name, err)
	}
	return nil
}

// remove deletes a pod under a detached, bounded context, trying again
// while the API fails.
func (b *Backend) remove(ctx context.Context, name string) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	return backend.Retry(rctx, func(ctx context.Context) error {
		tctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		return b.deletePod(tctx, name, 0)
	}, func(error) bool { return true })
}

// Pods returns hook-exec's pods in the namespace, those matching selector
// (a label selector, "" for all) among them.
func (b *Backend) Pods(ctx context.Context, selector string) ([]corev1.Pod, error) {
	sel := sandbox.LabelManaged + "=true"
	if selector != "" {
		sel += "," + selector
	}
	list := &corev1.PodList{}
	if err := b.api.pods(b.o.Namespace).list(ctx, metav1.ListOptions{LabelSelector: sel}, list); err != nil {
		return nil, b.engineErr("list pods", err)
	}
	return list.Items, nil
}

// allLabels are a pod's labels with its annotations, which hold the
// labels whose values a label cannot.
func allLabels(p *corev1.Pod) map[string]string {
	l := maps.Clone(p.Annotations)
	if l == nil {
		l = map[string]string{}
	}
	maps.Copy(l, p.Labels)
	return l
}

// Managed returns the labels (and annotations) of every managed pod not
// already being deleted.
func (b *Backend) Managed(ctx context.Context) ([]map[string]string, error) {
	pods, err := b.Pods(ctx, "")
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for i := range pods {
		if pods[i].DeletionTimestamp == nil {
			out = append(out, allLabels(&pods[i]))
		}
	}
	return out, nil
}

// Sweep deletes the managed pods whose owner process (on this host) is
// gone, or all of them when all is true.
func (b *Backend) Sweep(ctx context.Context, all bool) (int, error) {
	pods, err := b.Pods(ctx, "")
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for i := range pods {
		if !all && !backend.OwnerGone(allLabels(&pods[i])) {
			continue
		}
		if err := b.deletePod(ctx, pods[i].Name, 0); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// Runtime implements backend.Runtimed: the pods' RuntimeClass.
func (b *Backend) Runtime() string { return b.o.RuntimeClass }

// Host is the API server's address.
func (b *Backend) Host() string { return b.cfg.Host }

// Newest returns the reference of repo's image the cluster's nodes hold
// (their status lists them): "" when none does. Several tags of the repo
// are a choice only the caller can make, and an error that names them.
func (b *Backend) Newest(ctx context.Context, repo string) (string, error) {
	nodes := &corev1.NodeList{}
	if err := b.api.nodes().list(ctx, metav1.ListOptions{}, nodes); err != nil {
		return "", b.engineErr("list nodes", err)
	}
	found := map[string]bool{}
	for _, n := range nodes.Items {
		for _, im := range n.Status.Images {
			for _, name := range im.Names {
				name = strings.TrimPrefix(name, "docker.io/")
				if strings.HasPrefix(name, repo+":") {
					found[name] = true
				}
			}
		}
	}
	refs := slices.Sorted(maps.Keys(found))
	switch len(refs) {
	case 0:
		return "", nil
	case 1:
		return refs[0], nil
	}
	return "", fmt.Errorf("%w: the nodes hold several %s images (%s): give --image", backend.ErrImageNotFound, repo, strings.Join(refs, ", "))
}
