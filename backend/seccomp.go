//go:build linux

package backend

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/moby/profiles/seccomp"
	specs "github.com/opencontainers/runtime-spec/specs-go"
)

// traceCalls let one process read or drive another of the same user. In a
// sandbox the launcher is such a process: a script that attaches to it could
// stop it and wedge the run. Docker allows them without CAP_SYS_PTRACE on
// kernels from 4.8; hook sandboxes never do.
var traceCalls = []string{"ptrace", "process_vm_readv", "process_vm_writev"}

// selfOnly are the calls that change a process's limits, priority or
// scheduling, which a process may do to another of its user without
// reading its memory: a run could set a reused sandbox's agent's
// RLIMIT_AS, nice value or policy, and every later run would inherit it.
// Docker allows them for any pid; hook sandboxes only for the caller
// itself (pid 0). setpriority and ioprio_set name their target by a kind
// and an id: only (PRIO_PROCESS, 0) and (IOPRIO_WHO_PROCESS, 0), since a
// process group or a user takes in the agent too.
var selfOnly = []specs.LinuxSyscall{
	{Names: []string{"prlimit64", "sched_setscheduler", "sched_setparam", "sched_setattr", "sched_setaffinity"},
		Action: specs.ActAllow, Args: []specs.LinuxSeccompArg{{Index: 0, Value: 0, Op: specs.OpEqualTo}}},
	{Names: []string{"setpriority"}, Action: specs.ActAllow,
		Args: []specs.LinuxSeccompArg{{Index: 0, Value: 0 /* PRIO_PROCESS */, Op: specs.OpEqualTo}, {Index: 1, Value: 0, Op: specs.OpEqualTo}}},
	{Names: []string{"ioprio_set"}, Action: specs.ActAllow,
		Args: []specs.LinuxSeccompArg{{Index: 0, Value: 1 /* IOPRIO_WHO_PROCESS */, Op: specs.OpEqualTo}, {Index: 1, Value: 0, Op: specs.OpEqualTo}}},
}

// multiplexed are the 32-bit ABIs' calls that stand for many: a filter
// cannot read socketcall's arguments (in memory), so through it a 32-bit
// process (or int 0x80) would make any socket, AF_UNIX too. Hook sandboxes
// allow neither it nor the 32-bit ABIs at all (the profile's
// sub-architectures): every reference image is 64-bit.
var multiplexed = []string{"socketcall"}

// afUnix is socket(2)'s AF_UNIX. A sandbox has no network, but a unix
// socket under any of its mounts (a read-only mount does not stop a
// connect) would reach whatever listens there: a docker.sock, an agent's
// socket. Hook sandboxes cannot make one at all; socketpair(2), which
// connects only to itself, stays.
const afUnix = 1

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
				s.Names = slices.DeleteFunc(s.Names, func(n string) bool {
					return slices.Contains(traceCalls, n) || slices.Contains(multiplexed, n) ||
						slices.ContainsFunc(selfOnly, func(c specs.LinuxSyscall) bool { return slices.Contains(c.Names, n) })
				})
				if len(s.Names) == 0 && s.Name == "" {
					continue
				}
			}
			if slices.Equal(s.Names, []string{"socket"}) && len(s.Args) == 1 && s.Args[0] == (specs.LinuxSeccompArg{Index: 0, Value: afUnix + 2, Op: specs.OpLessThan}) {
				// Docker's "socket(domain < 3)": AF_UNSPEC, AF_UNIX, AF_INET.
				for _, domain := range []uint64{0, afUnix + 1} {
					c := *s
					c.Args = []specs.LinuxSeccompArg{{Index: 0, Value: domain, Op: specs.OpEqualTo}}
					kept = append(kept, &c)
				}
				continue
			}
			kept = append(kept, s)
		}
		for _, c := range selfOnly {
			kept = append(kept, &seccomp.Syscall{LinuxSyscall: c})
		}
		p.Syscalls = kept
		for i := range p.ArchMap {
			p.ArchMap[i].SubArches = nil // 64-bit calls only: see multiplexed
		}
		b, err := json.Marshal(p)
		if err != nil {
			panic("backend: encode the seccomp profile: " + err.Error())
		}
		seccompJSON = string(b)
	})
	return seccompJSON
}
