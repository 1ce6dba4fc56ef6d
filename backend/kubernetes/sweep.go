package kubernetes

import (
	"context"
	"errors"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/sandbox"
)

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
