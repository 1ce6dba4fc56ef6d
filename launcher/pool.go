package launcher

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A pooled launcher starts before its run is known and waits on stdin. Its
// stdin carries a header line "N M [EXT]" (EXT: a .sh or js script's copy's
// extension), then the run's environment (M lines of export for the .sh
// launcher, M bytes of NUL-ended entries for the Python one), then the N
// script bytes, then the event. The script is still never on a
// command line; the environment travels on stdin because a sandbox's own
// environment is fixed when it is created. It is the same launcher as the
// cold one, given "pool" where the cold one is given N.

// PoolArgv returns the fixed command line of a pooled launcher.
func PoolArgv(lang Lang) ([]string, error) {
	argv, err := Argv(lang, 0)
	if err != nil {
		return nil, err
	}
	argv[len(argv)-1] = "pool"
	return argv, nil
}

// PoolInput frames a run for a pooled launcher: header, environment
// (NAME=VALUE entries, already checked by the sandbox's env policy), script,
// event.
func PoolInput(lang Lang, env []string, script, event []byte) ([]byte, error) {
	var block strings.Builder
	lines := 0
	ext := ""
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" || strings.ContainsRune(kv, 0) {
			return nil, fmt.Errorf("%w: environment entry %q", ErrLauncher, kv)
		}
		if name == ExtVar && lang != Python {
			// In the header: the launcher names the copy before it evaluates
			// the block.
			if !slices.Contains([]string{".sh", ".js", ".mjs", ".cjs"}, value) {
				return nil, fmt.Errorf("%w: %s %q", ErrLauncher, ExtVar, value)
			}
			ext = " " + value
		}
		switch lang {
		case Shell, Node:
			// Single quotes keep every byte; a quote closes, escapes, reopens.
			// One line per entry: the launcher reads the block with read, a
			// line at a time, and a newline comes back through its
			// $hookexec_nl.
			quoted := "'" + strings.ReplaceAll(value, "'", `'\''`) + "'"
			block.WriteString("export " + name + "=" + strings.ReplaceAll(quoted, "\n", `'"$hookexec_nl"'`) + "\n")
			lines++
		case Python:
			block.WriteString(kv + "\x00")
		default:
			return nil, fmt.Errorf("%q: %w", lang, ErrLang)
		}
	}
	m := block.Len() // the Python launcher's: bytes of NUL-ended entries
	if lang != Python {
		m = lines // the .sh launcher's: lines
	}
	header := strconv.Itoa(len(script)) + " " + strconv.Itoa(m) + ext + "\n"
	out := make([]byte, 0, len(header)+block.Len()+len(script)+len(event))
	out = append(out, header...)
	out = append(out, block.String()...)
	out = append(out, script...)
	return append(out, event...), nil
}

// AgentShell is the sh a reused sandbox's agent runs under: in the
// reference images, a copy of busybox that the sandbox's user can execute
// but not read, so the agent is not dumpable (see agent.sh).
const AgentShell = "/usr/lib/hook-exec/sh"

// AgentArgv is the fixed command line of a reused sandbox: agent.sh, which
// runs each run's pooled launcher for lang (PoolInput frames its input)
// and resets the sandbox between runs. The launcher's source is an
// argument, never a script of the hook's.
func AgentArgv(lang Lang) ([]string, error) {
	switch lang {
	case Shell, Node:
		return []string{AgentShell, "-c", agentSh, "hook-agent", "sh", launchSh}, nil
	case Python:
		return []string{AgentShell, "-c", agentSh, "hook-agent", "py", launchPy}, nil
	}
	return nil, fmt.Errorf("%q: %w", lang, ErrLang)
}
