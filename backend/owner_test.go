package backend

import (
	"maps"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/hookexec/hook-exec/sandbox"
)

func TestOwnerGone(t *testing.T) {
	t.Parallel()
	me := maps.Clone(OwnerLabels())
	me[sandbox.LabelManaged] = "true"
	if me[sandbox.LabelOwnerStart] == "" {
		t.Fatalf("owner labels %v lack %s", me, sandbox.LabelOwnerStart)
	}
	if OwnerGone(me) {
		t.Fatalf("this live process is reported gone: %v", me)
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := maps.Clone(me)
	dead[sandbox.LabelOwnerPID] = strconv.Itoa(cmd.Process.Pid)
	if !OwnerGone(dead) {
		t.Fatal("an exited process is not reported gone")
	}
	reused := maps.Clone(me)
	reused[sandbox.LabelOwnerStart] = "1"
	if !OwnerGone(reused) {
		t.Fatal("a reused pid (other start time) is not reported gone")
	}
	other := maps.Clone(dead)
	other[sandbox.LabelOwnerHost] = "another-host-" + strconv.Itoa(os.Getpid())
	if OwnerGone(other) {
		t.Fatal("another host's object was reported gone")
	}
}

// A caller changing its owner labels (a test planting a dead owner) must
// not relabel every later sandbox of the process: they would be swept.
func TestOwnerLabelsAreTheCallersOwn(t *testing.T) {
	t.Parallel()
	l := OwnerLabels()
	start := l[sandbox.LabelOwnerStart]
	l[sandbox.LabelOwnerStart] = "0"
	if got := OwnerLabels()[sandbox.LabelOwnerStart]; got != start {
		t.Fatalf("owner start %q after a caller's change, want %q", got, start)
	}
}
