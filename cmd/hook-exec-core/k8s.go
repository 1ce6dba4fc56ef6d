package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend/kubernetes"
)

func newK8sCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "k8s COMMAND",
		Short: "Prepare a Kubernetes cluster for --backend kubernetes",
		RunE:  parent,
	}
	c.AddCommand(newK8sSetupCmd(g, io), newK8sSeccompCmd(io))
	return c
}

func newK8sSetupCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:   "setup [--k8s-namespace NS] [--kubeconfig FILE] [--kube-context NAME]",
		Short: "Make the namespace hook sandboxes run in (idempotent)",
		Long: `Make, or bring back to what they should be, the objects --backend kubernetes
runs its pods with:

  namespace       NS (default hook-exec), labelled to enforce the
                  "restricted" Pod Security level: a pod that asks for
                  root, a capability, a host namespace or a host path is
                  refused by the cluster itself;
  service account hook-exec-sandbox, whose token is never mounted: a hook
                  gets no credential for the cluster's API;
  network policy  hook-exec-deny-all: no ingress and no egress for any pod
                  of the namespace (enforced where the network plugin
                  enforces policies).

The kubeconfig comes from --kubeconfig, then KUBECONFIG, then
~/.kube/config, then the in-cluster service account.`,
		Example:     "  hook-exec k8s setup\n  hook-exec k8s setup --k8s-namespace hooks --kube-context prod",
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE: func(c *cobra.Command, _ []string) error {
			did, err := kubernetes.Setup(c.Context(), g.k8s)
			for _, d := range did {
				fmt.Fprintln(io.out, d)
			}
			return engineCall(err)
		},
	}
	g.k8sFlags(c)
	return c
}

func newK8sSeccompCmd(io stdio) *cobra.Command {
	return &cobra.Command{
		Use:   "seccomp-profile",
		Short: "Print the sandboxes' seccomp profile for a node's kubelet",
		Long: `Print, in the OCI form a kubelet reads as a Localhost profile, the seccomp
filter the Docker and containerd backends apply: Docker's default without
the process-tracing calls (ptrace, process_vm_readv, process_vm_writev),
evaluated for a process without capabilities on this machine's kernel.
Put it below each node's kubelet seccomp directory and name it with
--k8s-seccomp; without it the pods run under the runtime's default
profile, which lets a hook trace another process of its user.`,
		Example:     "  hook-exec k8s seccomp-profile > /var/lib/kubelet/seccomp/hook-exec.json\n  hook-exec run --backend kubernetes --k8s-seccomp hook-exec.json --script guard.sh < event.json",
		Args:        noArgs,
		Annotations: map[string]string{annotEnv: envNone, annotExit: exitLocal},
		RunE: func(*cobra.Command, []string) error {
			p, err := kubernetes.SeccompProfile()
			if err != nil {
				return failure(err)
			}
			fmt.Fprintf(io.out, "%s\n", p)
			return nil
		},
	}
}
