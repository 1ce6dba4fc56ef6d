package e2e

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/containerd/containerd/api/types/runc/options"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/containerd"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// A runsc task created and never started (a pool refill cut short at
// shutdown) cannot be signalled: runsc refuses ("cannot signal container in
// state created") and containerd's client will not delete a task it could
// not stop. The removal deletes it through the shim as it is; before that,
// each such sandbox outlived every sweep.
func TestRunscCreatedTaskIsRemoved(t *testing.T) {
	t.Parallel()
	runscEngines(t)
	if runscErr != nil {
		t.Skip(runscErr)
	}
	wrapper, err := os.Stat("/usr/local/sbin/" + containerd.RunscWrapper)
	if err != nil || wrapper.Mode()&0o111 == 0 {
		t.Fatalf("runsc is set up but its wrapper is not: %v", err)
	}
	ctx, cancel := context.WithTimeout(namespaces.WithNamespace(context.Background(), containerd.Namespace), 2*time.Minute)
	defer cancel()
	cli := ctrd.Client()
	img, err := cli.GetImage(ctx, ctrdRefs[launcher.Shell])
	if err != nil {
		t.Fatal(err)
	}
	labels := backend.OwnerLabels()
	labels[sandbox.LabelManaged] = "true"
	labels[sandbox.LabelOwnerStart] = "0" // an owner that is gone: the sweep's to remove
	id := "hookexec-e2e-created-" + time.Now().Format("150405.000000")
	c, err := cli.NewContainer(ctx, id,
		client.WithContainerLabels(labels),
		client.WithNewSnapshot(id, img),
		client.WithNewSpec(oci.WithImageConfig(img), oci.WithProcessArgs("sleep", "60")),
		client.WithRuntime("io.containerd.runc.v2", &options.Options{BinaryName: "/usr/local/sbin/" + containerd.RunscWrapper}),
	)
	if err != nil {
		t.Fatal(err)
	}
	task, err := c.NewTask(ctx, cio.NullIO)
	if err != nil {
		c.Delete(ctx, client.WithSnapshotCleanup)
		t.Fatal(err)
	}
	if st, err := task.Status(ctx); err != nil || st.Status != client.Created {
		t.Fatalf("task status %v (%v), want created", st.Status, err)
	}
	if _, err := ctrd.Sweep(ctx, false); err != nil {
		t.Errorf("sweep: %v", err)
	}
	if _, err := cli.LoadContainer(ctx, id); !errdefs.IsNotFound(err) {
		t.Fatalf("the created, never started runsc sandbox survived the sweep (load: %v)", err)
	}
}
