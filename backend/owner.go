package backend

import (
	"errors"
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/hookexec/hook-exec/sandbox"
)

var (
	ownerOnce   sync.Once
	ownerLabels map[string]string
)

// OwnerLabels identify this process on everything it creates: host, pid and
// the pid's start time (so a reused pid is not mistaken for the owner). The
// map is the caller's own: a change to it never reaches another sandbox.
func OwnerLabels() map[string]string {
	ownerOnce.Do(func() {
		host, _ := os.Hostname()
		pid := os.Getpid()
		ownerLabels = map[string]string{
			sandbox.LabelOwnerHost:  host,
			sandbox.LabelOwnerPID:   strconv.Itoa(pid),
			sandbox.LabelOwnerStart: startTime(pid),
		}
	})
	return maps.Clone(ownerLabels)
}

// OwnerGone reports whether the owner recorded in labels is a process on
// this host that no longer runs. Objects of another host, or without owner
// labels, are never reported gone: their owner cannot be checked from here.
func OwnerGone(labels map[string]string) bool {
	host, _ := os.Hostname()
	if labels[sandbox.LabelManaged] != "true" || labels[sandbox.LabelOwnerHost] != host {
		return false
	}
	pid, err := strconv.Atoi(labels[sandbox.LabelOwnerPID])
	if err != nil || pid <= 0 {
		return false
	}
	st := startTime(pid)
	return st == "" || st != labels[sandbox.LabelOwnerStart]
}

// startTime is field 22 of /proc/PID/stat (clock ticks since boot), or ""
// when the process does not exist or has ended (a zombie).
func startTime(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) || err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces and parentheses: split after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return "" // a zombie has ended: only its parent has not collected it
	}
	return f[19] // field 22 overall; fields here start at 3
}
