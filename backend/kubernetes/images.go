package kubernetes

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hookexec/hook-exec/backend"
)

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
