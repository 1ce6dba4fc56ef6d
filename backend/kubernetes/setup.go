package kubernetes

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

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
	cfg, err := RESTConfig(o.Kubeconfig, o.Context)
	if err != nil {
		return nil, err
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if o.ServiceAccount == "" {
		o.ServiceAccount = DefaultServiceAccount
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: kubernetes client for %s: %w", backend.ErrEngine, cfg.Host, err)
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
			func() error { _, err := cs.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); return err },
			func() error {
				cur, err := cs.CoreV1().Namespaces().Get(ctx, ns.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				if cur.Labels == nil {
					cur.Labels = map[string]string{}
				}
				for k, v := range ns.Labels {
					cur.Labels[k] = v
				}
				_, err = cs.CoreV1().Namespaces().Update(ctx, cur, metav1.UpdateOptions{})
				return err
			}},
		{"service account " + o.Namespace + "/" + o.ServiceAccount + " (no token mounted)",
			func() error {
				_, err := cs.CoreV1().ServiceAccounts(o.Namespace).Create(ctx, sa, metav1.CreateOptions{})
				return err
			},
			func() error {
				cur, err := cs.CoreV1().ServiceAccounts(o.Namespace).Get(ctx, sa.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				cur.AutomountServiceAccountToken = ptr(false)
				_, err = cs.CoreV1().ServiceAccounts(o.Namespace).Update(ctx, cur, metav1.UpdateOptions{})
				return err
			}},
		{"network policy " + o.Namespace + "/" + denyAll + " (no ingress, no egress)",
			func() error {
				_, err := cs.NetworkingV1().NetworkPolicies(o.Namespace).Create(ctx, np, metav1.CreateOptions{})
				return err
			},
			func() error {
				cur, err := cs.NetworkingV1().NetworkPolicies(o.Namespace).Get(ctx, np.Name, metav1.GetOptions{})
				if err != nil {
					return err
				}
				cur.Spec = np.Spec
				_, err = cs.NetworkingV1().NetworkPolicies(o.Namespace).Update(ctx, cur, metav1.UpdateOptions{})
				return err
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
