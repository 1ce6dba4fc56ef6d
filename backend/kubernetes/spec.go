package kubernetes

import (
	"fmt"
	"maps"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

// podFor is the pod of one sandbox. deadline is its activeDeadlineSeconds.
func (b *Backend) podFor(name string, rs *sandbox.Spec, deadline time.Duration) (*corev1.Pod, error) {
	if len(rs.Mounts) > 0 {
		return nil, fmt.Errorf("%w: mounts (%s -> %s): a pod runs on a node of the cluster, not on this host", ErrUnsupported, rs.Mounts[0].Source, rs.Mounts[0].Target)
	}
	if rs.TmpDir != "" {
		return nil, fmt.Errorf("%w: /tmp kept between runs (%s): a pod runs on a node of the cluster, not on this host", ErrUnsupported, rs.TmpDir)
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
				Command:         command(rs),
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

// attachSync is what every pod's program starts behind, in the image's
// sh. An attach cannot join a container that has exited, and containerd's
// CRI (1.6 to 2.x) starts copying an attach's stdin before it adds the
// attach's stdout and stderr to the container's output: a program that
// answers its first byte at once could write before either was added, and
// its output would reach only the node's log (the conformance suite's
// StdinUnread lost "out" so, once, in CI; a launcher is no different,
// only slower to answer). So the program waits for a first line (the
// attach is connected), then writes syncMark on stdout and on stderr every
// 10 ms until a second line says both marks arrived, which proves both
// streams added; it ends each stream's marks with syncEnd and execs the
// program. sh's read takes no byte past its line from a pipe, so the
// program gets the rest of stdin whole. A pod that never gets its lines
// waits for its deadline. The kill and the wait are silenced together: a
// shell that reaps the killed loop elsewhere reports it on stderr, ahead
// of syncEnd. The loop's last sleep may outlive it, a child of the program
// (as PID 1) until it ends.
const attachSync = `IFS= read -r _ || exit 125
while :; do printf .; printf . >&2; { sleep 0.01 || sleep 1; } 2>/dev/null; done &
IFS= read -r _ || { kill -9 $! 2>/dev/null; exit 125; }
{ kill -9 $!; wait $!; } 2>/dev/null
printf '!'; printf '!' >&2
exec "$@"`

// The bytes attachSync writes on each stream ahead of the program's own.
const (
	syncMark = '.'
	syncEnd  = '!'
)

// command is the container's command: the program behind attachSync,
// which needs sh in the image.
func command(rs *sandbox.Spec) []string {
	return append([]string{"sh", "-c", attachSync, "hook-exec-attach"}, rs.Argv...)
}
