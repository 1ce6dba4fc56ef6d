package hookexectest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoKubernetesClient: a plugin author's suite that imports hookexectest
// does not compile the Kubernetes client (hundreds of packages), nor
// testcontainers-go (336 packages; tcsandbox brings it to those who use it).
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
		if strings.HasPrefix(p, "k8s.io/") || strings.HasSuffix(p, "/backend/kubernetes") || strings.HasPrefix(p, "github.com/containerd/cgroups") || strings.HasPrefix(p, "github.com/testcontainers/") {
			t.Errorf("hookexectest depends on %s", p)
		}
	}
	// The executor and the Docker backend with its Engine API client are
	// about 300: they stay below testcontainers-go alone.
	if len(deps) >= 336 {
		t.Errorf("hookexectest compiles %d packages, not fewer than testcontainers-go's 336", len(deps))
	}
}
