//go:build linux

package backend

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/moby/profiles/seccomp"
)

// traceCalls let one process read or drive another of the same user. In a
// sandbox the launcher is such a process: a script that attaches to it could
// stop it and wedge the run. Docker allows them without CAP_SYS_PTRACE on
// kernels from 4.8; hook sandboxes never do.
var traceCalls = []string{"ptrace", "process_vm_readv", "process_vm_writev"}

var (
	seccompOnce sync.Once
	seccompJSON string
)

// SeccompProfile returns the seccomp profile every container backend
// applies, in Docker's JSON form: Docker's default profile
// (moby/profiles/seccomp) without the process-tracing calls, which then
// fail with EPERM like every call the profile does not allow.
func SeccompProfile() string {
	seccompOnce.Do(func() {
		p := seccomp.DefaultProfile()
		var kept []*seccomp.Syscall
		for _, s := range p.Syscalls {
			if s.Includes == nil || len(s.Includes.Caps) == 0 {
				s.Names = slices.DeleteFunc(s.Names, func(n string) bool { return slices.Contains(traceCalls, n) })
				if len(s.Names) == 0 && s.Name == "" {
					continue
				}
			}
			kept = append(kept, s)
		}
		p.Syscalls = kept
		b, err := json.Marshal(p)
		if err != nil {
			panic("backend: encode the seccomp profile: " + err.Error())
		}
		seccompJSON = string(b)
	})
	return seccompJSON
}
