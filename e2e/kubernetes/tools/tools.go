//go:build tools

package tools

import (
	_ "github.com/containernetworking/plugins/plugins/main/loopback"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubelet"
	_ "sigs.k8s.io/cri-tools/cmd/crictl"
)
