package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/kubernetes"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// k8sPassEnv turns on the Kubernetes backend's suites: `make e2e-k8s`
// brings a single-node cluster up (scripts/k8s-cluster.sh), sets it and
// KUBECONFIG, and runs them.
const k8sPassEnv = "HOOKEXEC_E2E_K8S"

// k8sSeccomp is where the test cluster's kubelet finds the sandboxes'
// seccomp profile (k8s-cluster.sh writes it there).
const k8sSeccomp = "hook-exec.json"

var (
	k8sOnce    sync.Once
	k8sErr     error
	k8sEngs    []engineUnderTest
	k8sBackend atomic.Pointer[kubernetes.Backend] // for the leak checks
)

func k8sOptions() kubernetes.Options {
	return kubernetes.Options{PullPolicy: corev1.PullNever, Seccomp: k8sSeccomp}
}

// k8sSetup makes the namespace, connects, and measures a cold run of a
// trivial hook: a pod's start counts against a hook's timeout, and is
// long beside the cases' own timeouts.
func k8sSetup() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, k8sErr = kubernetes.Setup(ctx, k8sOptions()); k8sErr != nil {
		return
	}
	b, err := kubernetes.New(ctx, k8sOptions())
	if err != nil {
		k8sErr = err
		return
	}
	k8sBackend.Store(b)
	slowest, err := slowestColdRun(ctx, b, refs)
	if err != nil {
		k8sErr = err
		return
	}
	// Four case executors start pods at once in the suites.
	k8sEngs = []engineUnderTest{{"kubernetes", "", b, refs, 4 * slowest, []string{"--k8s-pull-policy", "Never", "--k8s-seccomp", k8sSeccomp}, ""}}
	println("e2e: a cold pod run took at most", slowest.String(), "here; the cases' timeouts get", (4 * slowest).String(), "more")
}

// k8sEngines returns the Kubernetes backend for the case suites (core,
// adversarial) in the Kubernetes pass; none otherwise.
func k8sEngines(t testing.TB) []engineUnderTest {
	t.Helper()
	if os.Getenv(k8sPassEnv) != "1" {
		t.Logf("the kubernetes variants run in their own pass (%s=1; make e2e-k8s runs it)", k8sPassEnv)
		return nil
	}
	requireEngines(t) // the reference images' names
	k8sOnce.Do(k8sSetup)
	if k8sErr != nil {
		t.Fatalf("the kubernetes backend is not usable (make e2e-k8s sets a cluster up): %v", k8sErr)
	}
	return k8sEngs
}

// TestKubernetesPodSpec reads back, from the API, the pod a sandbox runs
// in: every setting the backend promises, as the cluster stored it.
func TestKubernetesPodSpec(t *testing.T) {
	engs := k8sEngines(t)
	if len(engs) == 0 {
		t.Skip("not the kubernetes pass")
	}
	b := k8sBackend.Load()
	spec, err := sandbox.New(refs[launcher.Shell], []string{"sh", "-c", "cat >/dev/null"}, sandbox.WithLabels(map[string]string{sandbox.LabelExecution: "podspec"}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w, err := b.Warm(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Discard()
	pods, err := b.Pods(ctx, sandbox.LabelExecution+"=podspec")
	if err != nil || len(pods) != 1 {
		t.Fatalf("list the pod: %d pods, %v", len(pods), err)
	}
	p := pods[0]
	c := p.Spec.Containers[0]
	checks := []struct {
		what string
		ok   bool
	}{
		{"restartPolicy Never", p.Spec.RestartPolicy == corev1.RestartPolicyNever},
		{"no service-account token", p.Spec.AutomountServiceAccountToken != nil && !*p.Spec.AutomountServiceAccountToken && len(c.VolumeMounts) == 1},
		{"no service links", p.Spec.EnableServiceLinks != nil && !*p.Spec.EnableServiceLinks},
		{"runAsNonRoot 65534", p.Spec.SecurityContext.RunAsNonRoot != nil && *p.Spec.SecurityContext.RunAsNonRoot && *p.Spec.SecurityContext.RunAsUser == 65534},
		{"seccomp Localhost " + k8sSeccomp, p.Spec.SecurityContext.SeccompProfile != nil && p.Spec.SecurityContext.SeccompProfile.Type == corev1.SeccompProfileTypeLocalhost && *p.Spec.SecurityContext.SeccompProfile.LocalhostProfile == k8sSeccomp},
		{"all capabilities dropped", c.SecurityContext.Capabilities != nil && len(c.SecurityContext.Capabilities.Drop) == 1 && c.SecurityContext.Capabilities.Drop[0] == "ALL" && len(c.SecurityContext.Capabilities.Add) == 0},
		{"no privilege escalation", c.SecurityContext.AllowPrivilegeEscalation != nil && !*c.SecurityContext.AllowPrivilegeEscalation},
		{"read-only root", c.SecurityContext.ReadOnlyRootFilesystem != nil && *c.SecurityContext.ReadOnlyRootFilesystem},
		{"/tmp in memory, sized", len(p.Spec.Volumes) == 1 && p.Spec.Volumes[0].EmptyDir != nil && p.Spec.Volumes[0].EmptyDir.Medium == corev1.StorageMediumMemory && p.Spec.Volumes[0].EmptyDir.SizeLimit.Value() == sandbox.DefaultTmpfsBytes},
		{"memory limit", c.Resources.Limits.Memory().Value() == sandbox.DefaultMemory},
		{"cpu limit", c.Resources.Limits.Cpu().MilliValue() == sandbox.DefaultNanoCPUs/1e6},
		{"a deadline as backstop", p.Spec.ActiveDeadlineSeconds != nil && *p.Spec.ActiveDeadlineSeconds > 0},
		{"stdin once, no tty", c.Stdin && c.StdinOnce && !c.TTY},
		{"no host namespace", !p.Spec.HostNetwork && !p.Spec.HostPID && !p.Spec.HostIPC},
		{"no resolver", p.Spec.DNSPolicy == corev1.DNSNone && p.Spec.DNSConfig != nil && len(p.Spec.DNSConfig.Nameservers) == 1 && p.Spec.DNSConfig.Nameservers[0] == "127.0.0.1"},
		{"the container's seccomp Localhost " + k8sSeccomp, c.SecurityContext.SeccompProfile != nil && c.SecurityContext.SeccompProfile.Type == corev1.SeccompProfileTypeLocalhost && *c.SecurityContext.SeccompProfile.LocalhostProfile == k8sSeccomp},
		{"a cpu request of at most 50m", c.Resources.Requests.Cpu().MilliValue() > 0 && c.Resources.Requests.Cpu().MilliValue() <= 50},
		{"not privileged, non-root container", c.SecurityContext.Privileged != nil && !*c.SecurityContext.Privileged && c.SecurityContext.RunAsNonRoot != nil && *c.SecurityContext.RunAsNonRoot},
		{"no grace at termination", p.Spec.TerminationGracePeriodSeconds != nil && *p.Spec.TerminationGracePeriodSeconds == 0},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("pod %s: not %s", p.Name, c.what)
		}
	}
}

// TestKubernetesRefusals: what a pod cannot be is refused before any pod
// is made, with the reason named.
func TestKubernetesRefusals(t *testing.T) {
	engs := k8sEngines(t)
	if len(engs) == 0 {
		t.Skip("not the kubernetes pass")
	}
	b := k8sBackend.Load()
	for name, opt := range map[string]sandbox.Option{
		"a host mount": sandbox.WithMount(sandbox.Mount{Source: t.TempDir(), Target: "/workspace", ReadOnly: true}),
		"root":         sandbox.WithRootOwner(),
	} {
		t.Run(name, func(t *testing.T) {
			spec, err := sandbox.New(refs[launcher.Shell], []string{"true"}, opt)
			if err != nil {
				t.Fatal(err)
			}
			_, err = b.Run(context.Background(), &backend.Run{Spec: spec, MaxOutput: 1024})
			if !errors.Is(err, kubernetes.ErrUnsupported) {
				t.Fatalf("err = %v, want ErrUnsupported", err)
			}
		})
	}
}

// TestKubernetesCLI: `hook-exec run --backend kubernetes`, the kubeconfig
// from KUBECONFIG, the image found on the node, answers a trivial hook.
func TestKubernetesCLI(t *testing.T) {
	engs := k8sEngines(t)
	if len(engs) == 0 {
		t.Skip("not the kubernetes pass")
	}
	dir := t.TempDir()
	script := filepath.Join(dir, "guard.sh")
	body := "ev=$(cat)\ncase $ev in *'rm -rf'*) printf '{\"schema_version\":1,\"action\":\"deny\",\"reason\":\"no rm\"}\\n' ;; *) " + shAllow + " ;; esac\n"
	if err := os.WriteFile(script, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	timeout := (10*time.Second + engs[0].start).String()
	args := slices.Concat([]string{"run", "--backend", "kubernetes"}, engs[0].flags, []string{"--timeout", timeout, "--script", script})
	allow := hookExec(t, toolEvent("ls"), nil, args...)
	if allow.code != 0 || !strings.Contains(allow.stdout, `"allow"`) {
		t.Fatalf("allow: exit %d, stdout %q, stderr %q", allow.code, allow.stdout, allow.stderr)
	}
	deny := hookExec(t, toolEvent("rm -rf /"), nil, args...)
	if deny.code != 2 || !strings.Contains(deny.stdout, "no rm") {
		t.Fatalf("deny: exit %d, stdout %q, stderr %q", deny.code, deny.stdout, deny.stderr)
	}
}
