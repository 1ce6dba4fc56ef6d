package kubernetes

import (
	"context"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hookexec/hook-exec/backend"
)

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
