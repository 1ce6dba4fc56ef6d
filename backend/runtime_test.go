package backend

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// crun is refused only on a hybrid hierarchy whose v2 part holds a
// controller, as crun itself refuses it.
func TestCrunUnsupported(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		return p
	}
	hybrid := write("hybrid", "tmpfs /sys/fs/cgroup tmpfs ro 0 0\ncgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\ncgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\n")
	v2 := write("v2", "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n")
	v1 := write("v1", "tmpfs /sys/fs/cgroup tmpfs ro 0 0\ncgroup /sys/fs/cgroup/memory cgroup rw,memory 0 0\n")
	some, none := write("some", "hugetlb\n"), write("none", "\n")
	for _, tc := range []struct {
		name, mounts, controllers string
		refused                   bool
	}{
		{"hybrid, a controller in v2", hybrid, some, true},
		{"hybrid, none in v2", hybrid, none, false},
		{"cgroup v2", v2, some, false},
		{"cgroup v1", v1, some, false},
		{"no mounts file", filepath.Join(dir, "missing"), some, false},
	} {
		err := crunUnsupported(tc.mounts, tc.controllers)
		if (err != nil) != tc.refused || (err != nil && !errors.Is(err, ErrRuntime)) {
			t.Errorf("%s: %v, want refused %v (ErrRuntime)", tc.name, err, tc.refused)
		}
	}
}
