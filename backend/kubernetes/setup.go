package kubernetes

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/hookexec/hook-exec/backend"
)

// denyAll is the NetworkPolicy that setup writes: every pod of the
// namespace, no ingress and no egress rule.
const denyAll = "hook-exec-deny-all"

// Setup makes (or brings back to what it should be) the namespace the
// backend runs in: Pod Security "restricted" enforced, a service account
// whose token is never mounted, and a deny-all NetworkPolicy. It reports
// what it did, one line per object.
func Setup(ctx context.Context, o Options) ([]string, error) {
	cfg, a, err := connect(&o)
	if err != nil {
		return nil, err
	}
	var did []string
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: o.Namespace, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce":         "restricted",
		"pod-security.kubernetes.io/enforce-version": "latest",
		"pod-security.kubernetes.io/warn":            "restricted",
		"pod-security.kubernetes.io/audit":           "restricted",
	}}}
	sa := &corev1.ServiceAccount{
		ObjectMeta:                   metav1.ObjectMeta{Name: o.ServiceAccount, Namespace: o.Namespace},
		AutomountServiceAccountToken: ptr(false),
	}
	np := &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: denyAll, Namespace: o.Namespace},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
	steps := []struct {
		what           string
		create, update func() error
	}{
		{"namespace " + o.Namespace + " (pod security: restricted)",
			func() error { return a.namespaces().create(ctx, ns, &corev1.Namespace{}) },
			func() error {
				cur := &corev1.Namespace{}
				if err := a.namespaces().get(ctx, ns.Name, cur); err != nil {
					return err
				}
				if cur.Labels == nil {
					cur.Labels = map[string]string{}
				}
				for k, v := range ns.Labels {
					cur.Labels[k] = v
				}
				return a.namespaces().update(ctx, cur.Name, cur)
			}},
		{"service account " + o.Namespace + "/" + o.ServiceAccount + " (no token mounted)",
			func() error { return a.serviceAccounts(o.Namespace).create(ctx, sa, &corev1.ServiceAccount{}) },
			func() error {
				cur := &corev1.ServiceAccount{}
				if err := a.serviceAccounts(o.Namespace).get(ctx, sa.Name, cur); err != nil {
					return err
				}
				cur.AutomountServiceAccountToken = ptr(false)
				return a.serviceAccounts(o.Namespace).update(ctx, cur.Name, cur)
			}},
		{"network policy " + o.Namespace + "/" + denyAll + " (no ingress, no egress)",
			func() error { return a.networkPolicies(o.Namespace).create(ctx, np, &networkingv1.NetworkPolicy{}) },
			func() error {
				cur := &networkingv1.NetworkPolicy{}
				if err := a.networkPolicies(o.Namespace).get(ctx, np.Name, cur); err != nil {
					return err
				}
				cur.Spec = np.Spec
				return a.networkPolicies(o.Namespace).update(ctx, cur.Name, cur)
			}},
	}
	for _, s := range steps {
		err := s.create()
		verb := "created"
		if apierrors.IsAlreadyExists(err) {
			err, verb = s.update(), "updated"
		}
		if err != nil {
			return did, fmt.Errorf("%w: %s on %s: %w", backend.ErrEngine, s.what, cfg.Host, err)
		}
		did = append(did, verb+" "+s.what)
	}
	return did, nil
}
