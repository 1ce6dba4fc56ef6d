package containerd

import "testing"

func TestOOMKillLine(t *testing.T) {
	for _, tc := range []struct {
		in string
		n  uint64
		ok bool
	}{
		{"oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", 3, true},               // v1 memory.oom_control
		{"low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\noom_group_kill 0\n", 2, true}, // v2 memory.events
		{"oom_kill_disable 0\nunder_oom 0\n", 0, false},                          // a kernel that does not count
		{"oom_kill x\n", 0, false},
	} {
		if n, ok := oomKillLine(tc.in); n != tc.n || ok != tc.ok {
			t.Errorf("oomKillLine(%q) = %d, %v; want %d, %v", tc.in, n, ok, tc.n, tc.ok)
		}
	}
}
