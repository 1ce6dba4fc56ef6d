package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/containerd/containerd/api/types/runc/options"
	"github.com/containerd/containerd/v2/client"
	"github.com/containerd/containerd/v2/pkg/cio"
	"github.com/containerd/containerd/v2/pkg/namespaces"
	"github.com/containerd/containerd/v2/pkg/oci"
	"github.com/containerd/errdefs"
	"github.com/google/go-cmp/cmp"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/containerd"
	"github.com/hookexec/hook-exec/hook"
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
	requireRunsc(t)
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

// `hook-exec run --runtime runsc` answers on both engines, and the hook
// sees gVisor's kernel, not the host's.
func TestRunUnderRunsc(t *testing.T) {
	t.Parallel()
	requireRunsc(t)
	script := scriptFile(t, "uname.sh", "cat >/dev/null\nuname -r >&2\n"+shAllow+"\n")
	for _, b := range []string{"docker", "containerd"} {
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			r := hookExec(t, toolEvent("ls"), nil, "run", "--backend", b, "--runtime", "runsc", "--script", script, "--trace", "-")
			r.wantCode(t, 0)
			var tr hook.Trace
			line := r.stderr[strings.LastIndex(strings.TrimSpace(r.stderr), "\n")+1:]
			if err := json.Unmarshal([]byte(line), &tr); err != nil {
				t.Fatalf("trace: %v\n%s", err, r.stderr)
			}
			if tr.Runtime != "runsc" || tr.FinalAction != hook.Allow {
				t.Errorf("trace runtime %q action %q, want runsc allow", tr.Runtime, tr.FinalAction)
			}
			if kernel := strings.TrimSpace(tr.StderrExcerpt); kernel != gvisorKernel {
				t.Errorf("kernel inside %q, want gVisor's %q", kernel, gvisorKernel)
			}
		})
	}
}

// doctorReport is `hook-exec doctor --json` as a user's script reads it.
type doctorReport struct {
	Engines []struct {
		Name    string `json:"name"`
		Usable  bool   `json:"usable"`
		Problem string `json:"problem"`
		Facts   []struct {
			Topic string `json:"topic"`
		} `json:"facts"`
		Latency []struct {
			Runtime  string  `json:"runtime"`
			Mode     string  `json:"mode"`
			Runs     int     `json:"runs"`
			MedianMS float64 `json:"median_ms"`
			Error    string  `json:"error"`
			Kernel   string  `json:"kernel"`
			Stream   string  `json:"stream"`
		} `json:"latency"`
	} `json:"engines"`
}

// gvisorKernel is the release gVisor's kernel reports.
const gvisorKernel = "4.4.0"

// `hook-exec doctor` on this machine: both engines run hooks, every fact
// a user decides by is there, and runsc measured with gVisor's kernel.
func TestDoctor(t *testing.T) {
	t.Parallel()
	requireEngines(t)
	runsc.once.Do(runsc.setup)
	crun.once.Do(crun.setup)
	r := hookExec(t, nil, nil, "doctor", "--json", "--runs", "1")
	r.wantCode(t, 0)
	var rep doctorReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, r.stdout)
	}
	topics := map[string][]string{
		"docker":     {"engine", "limits", "kernel", "storage driver", "cgroups", "seccomp", "AppArmor", "user namespaces", "runtimes", "runsc", "crun", "reference images"},
		"containerd": {"engine", "snapshotter", "runsc", "crun", "reference images"},
	}
	if len(rep.Engines) != 2 {
		t.Fatalf("%d engines reported, want 2", len(rep.Engines))
	}
	for _, e := range rep.Engines {
		if !e.Usable {
			t.Errorf("%s not usable: %s", e.Name, e.Problem)
		}
		var got []string
		for _, f := range e.Facts {
			got = append(got, f.Topic)
		}
		if diff := cmp.Diff(topics[e.Name], got); diff != "" {
			t.Errorf("%s facts (-want +got):\n%s", e.Name, diff)
		}
		wantLatency := 3 // runc cold and pooled through the channel, and cold through the attach
		for _, r := range []*altRuntime{runsc, crun} {
			if r.err == nil {
				wantLatency += 2
			}
		}
		if len(e.Latency) != wantLatency {
			t.Fatalf("%s: %d latency rows, want %d: %+v", e.Name, len(e.Latency), wantLatency, e.Latency)
		}
		for i, l := range e.Latency {
			if l.Error != "" || l.Runs != 1 || l.MedianMS <= 0 {
				t.Errorf("%s %s %s: %+v", e.Name, l.Runtime, l.Mode, l)
			}
			// This machine's engines see its files: the channel, but for
			// gVisor and the row measured through the attach (the last).
			want := "channel"
			if l.Runtime == "runsc" || i == len(e.Latency)-1 {
				want = "attach"
			}
			if l.Stream != want || (i == len(e.Latency)-1 && (l.Runtime != "runc" || l.Mode != "cold")) {
				t.Errorf("%s row %d %s %s: stream %q, want %s", e.Name, i, l.Runtime, l.Mode, l.Stream, want)
			}
			if l.Runtime == "runsc" && l.Kernel != gvisorKernel {
				t.Errorf("%s runsc %s: kernel %q, want gVisor's", e.Name, l.Mode, l.Kernel)
			}
		}
	}
}
