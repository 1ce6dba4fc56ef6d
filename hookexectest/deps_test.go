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
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "k8s.io/") || strings.HasSuffix(p, "/backend/kubernetes") {
			t.Errorf("hookexectest depends on %s", p)
		}
	}
}
