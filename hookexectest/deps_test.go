package hookexectest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoKubernetesClient: a plugin author's suite that imports hookexectest
// does not compile the Kubernetes client (hundreds of packages).
func TestNoKubernetesClient(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, p := range deps {
		// Nor a cgroup library (the Docker backend reads an OOM kill from
		// the cgroup's own files): it brings eBPF, D-Bus and protobuf.
		if strings.HasPrefix(p, "k8s.io/") || strings.HasSuffix(p, "/backend/kubernetes") || strings.HasPrefix(p, "github.com/containerd/cgroups") {
			t.Errorf("hookexectest depends on %s", p)
		}
	}
	// testcontainers-go alone is 336 packages: what hook-exec adds stays small.
	if len(deps) > 375 {
		t.Errorf("hookexectest compiles %d packages, more than 375", len(deps))
	}
}
