package kubernetes

import (
	"errors"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/hookexec/hook-exec/sandbox"
)

func testBackend(o Options) *Backend {
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.ServiceAccount == "" {
		o.ServiceAccount = DefaultServiceAccount
	}
	return &Backend{o: o}
}

func TestPodForRefuses(t *testing.T) {
	b := testBackend(Options{})
	for name, opt := range map[string]sandbox.Option{
		"host mount": sandbox.WithMount(sandbox.Mount{Source: t.TempDir(), Target: "/w", ReadOnly: true}),
		"root":       sandbox.WithRootOwner(),
		"kept /tmp":  sandbox.WithTmpDir(t.TempDir()),
	} {
		spec, err := sandbox.New("img", []string{"true"}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.podFor("p", spec, time.Minute); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: err = %v, want ErrUnsupported", name, err)
		}
	}
}

func TestPodForHardened(t *testing.T) {
	b := testBackend(Options{Seccomp: "hook-exec.json", RuntimeClass: "gvisor"})
	spec, err := sandbox.New("img", []string{"sh", "-c", "x"}, sandbox.WithLabels(map[string]string{
		sandbox.LabelExecution: "exec_1",
		"io.hookexec.note":     "a value a label cannot hold!",
	}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.podFor("p", spec, 2500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Spec.Containers[0]
	if *p.Spec.ActiveDeadlineSeconds != 3 {
		t.Errorf("activeDeadlineSeconds = %d, want 3 (rounded up)", *p.Spec.ActiveDeadlineSeconds)
	}
	if p.Spec.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeLocalhost || *c.SecurityContext.SeccompProfile.LocalhostProfile != "hook-exec.json" {
		t.Errorf("seccomp = %+v", p.Spec.SecurityContext.SeccompProfile)
	}
	if *p.Spec.RuntimeClassName != "gvisor" || *p.Spec.AutomountServiceAccountToken || *p.Spec.EnableServiceLinks {
		t.Error("runtime class, token or service links wrong")
	}
	if *c.SecurityContext.AllowPrivilegeEscalation || !*c.SecurityContext.ReadOnlyRootFilesystem || c.SecurityContext.Capabilities.Drop[0] != "ALL" {
		t.Errorf("container security context %+v", c.SecurityContext)
	}
	if p.Labels[sandbox.LabelExecution] != "exec_1" || p.Labels[sandbox.LabelManaged] != "true" {
		t.Errorf("labels %v", p.Labels)
	}
	if _, ok := p.Labels["io.hookexec.note"]; ok {
		t.Error("a value a label cannot hold became a label (the API would refuse the pod)")
	}
	if p.Annotations["io.hookexec.note"] != "a value a label cannot hold!" {
		t.Errorf("annotations %v", p.Annotations)
	}
	if !c.Stdin || !c.StdinOnce || c.TTY {
		t.Error("stdin must be open once, without a tty")
	}
}

// Every program, the launcher too, starts behind the attach's handshake.
func TestPodCommandAwaitsAttach(t *testing.T) {
	b := testBackend(Options{})
	spec, err := sandbox.New("img:1", []string{"echo", "out"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := b.podFor("p", spec, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sh", "-c", attachSync, "hook-exec-attach", "echo", "out"}
	if got := p.Spec.Containers[0].Command; !slices.Equal(got, want) {
		t.Errorf("command = %q, want %q", got, want)
	}
}
