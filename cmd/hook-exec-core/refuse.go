package main

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/cmd/internal/termtext"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
)

// A host runs hook-exec as a hook command and reads its exit status in its
// own words: most hosts block on exit 2 and go on after any other failure.
// A command line that cannot run (a misspelt flag, a bad value, a help
// request) would then let the action through.
// The commands a host runs per event answer such a failure as a refusal
// in the host's words instead; a stop-type event is never held by one.

// hostCommands are the commands a host runs once per event, and the
// dialect each answers in ("" for run: its --dialect, else the payload's).
var hostCommands = map[string]hook.Dialect{
	"hook-exec run":                 "",
	"hook-exec dispatch":            hook.Holaryn,
	"hook-exec arcturn hooks run":   hook.Arcturn,
	"hook-exec bernstein hooks run": hook.Bernstein,
}

// nonBlockingPoints are dispatch's points where a refusal stops nothing and
// the session must go on ending.
var nonBlockingPoints = map[string]bool{"run.completed": true, "session.end": true}

// recorder keeps the bytes a host command reads from stdin (up to the
// largest event), so that a refusal can still name the event a failed
// command had read; for other commands (on false) it only passes them on.
type recorder struct {
	r    io.Reader
	on   bool
	buf  bytes.Buffer
	done bool
}

// IsTerminal reports whether what it records is a terminal.
func (r *recorder) IsTerminal() bool { return isTerminal(r.r) }

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if room := int(executor.DefaultMaxEventBytes) - r.buf.Len(); r.on && room > 0 {
		r.buf.Write(p[:min(n, room)])
	}
	return n, err
}

// payloadWait bounds the wait for the rest of an event a refusal reads: a
// host that leaves stdin open must not hold its own answer.
const payloadWait = 2 * time.Second

// payload is the event the command was given on stdin: what it read, and
// what it left unread (bounded in size and time, never from a terminal).
func (r *recorder) payload() []byte {
	if r.on && !r.done && !isTerminal(r.r) {
		r.done = true
		if f, ok := r.r.(interface{ SetReadDeadline(time.Time) error }); ok && f.SetReadDeadline(time.Now().Add(payloadWait)) == nil {
			defer f.SetReadDeadline(time.Time{})
		}
		io.Copy(&r.buf, io.LimitReader(r.r, executor.DefaultMaxEventBytes-int64(r.buf.Len())))
	}
	return r.buf.Bytes()
}

// flagArg is the value of the flag --name in args, and whether it was
// given: the last one, as the flag parser takes it; "" (given) when two
// differ.
func flagArg(args []string, name string) (v string, given bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		d, ok := strings.CutPrefix(a, "--"+name+"=")
		if !ok && a == "--"+name && i+1 < len(args) {
			d, ok = args[i+1], true
			i++
		}
		if ok {
			if given && d != v {
				return "", true // two hosts named: neither is known
			}
			v, given = d, true
		}
	}
	return v, given
}

// hostDialect is the dialect a host command answers in, from its command
// line alone: "" when it is run without a known --dialect.
func hostDialect(path string, args []string) hook.Dialect {
	if d := hostCommands[path]; d != "" {
		return d
	}
	if v, ok := flagArg(args, "dialect"); ok {
		if d, err := hook.ParseDialect(v); err == nil {
			return d
		}
	}
	return ""
}

// refuse answers a host command that could not run (err, already reported
// on stderr) in its host's words, and returns the exit status; code is the
// status the command would otherwise end with. Commands a host does not
// run per event keep code.
func refuse(cmd *cobra.Command, args []string, code int, err error, in *recorder, io stdio) int {
	if cmd == nil {
		return code
	}
	path := cmd.CommandPath()
	if _, ok := hostCommands[path]; !ok {
		return code
	}
	msg := fmt.Sprintf("hook-exec could not run the hook, so it refuses: %v", err)
	d := hostDialect(path, args)
	payload := in.payload()
	sniffed, point := hook.Sniff(payload)
	_, named := flagArg(args, "dialect")
	switch {
	case path == "hook-exec dispatch":
		if nonBlockingPoints[dispatchPoint(args)] {
			return code
		}
		b, _ := json.Marshal(map[string]any{
			"decision": hook.Decision{SchemaVersion: 1, Action: hook.Deny, Reason: termtext.Escape(msg)},
			"event":    nil, "traces": []hook.Trace{},
		}, json.Deterministic(true))
		io.out.Write(append(b, '\n'))
		return exitDeny
	case d == hook.Holaryn && named:
		// The person said holaryn: its usage status stands.
		return code
	case d == "" || d == hook.Holaryn:
		if sniffed == hook.Holaryn || (sniffed == "" && !named && len(bytes.TrimSpace(payload)) == 0) {
			// A Holaryn event, or none (a person at a terminal): the
			// usage status stands.
			return code
		}
		if sniffed == "" {
			// An unknown --dialect, or an event that cannot be read (too
			// large, invalid UTF-8): whose block is unknown, and exit 2 is
			// the block of most hosts.
			return exitDeny
		}
		d = sniffed
		fmt.Fprintf(io.err, "hook-exec: the event looks like a %s payload: name it with --dialect %s\n", d, d)
	}
	if sniffed != d {
		point = ""
	}
	if p, ok := flagArg(args, "point"); ok && point == "" {
		point = p // the event a payload that names none is of (Copilot's)
	}
	// The host's own answer to a deny: where it blocks by status (exit 2,
	// the reason on stderr, already written), the refusal exits 2, also
	// where the host's answer to such a failure would be its "the hook
	// failed" status, which some hosts let through.
	failure := &hook.Failure{Kind: hook.FailInvocation, Message: err.Error()}
	ans, ansErr := d.Host().Answer(point, hook.Decision{SchemaVersion: 1, Action: hook.Deny, Reason: msg}, failure)
	if ansErr != nil || ans.Exit != 0 {
		return exitDeny
	}
	io.out.Write(ans.Stdout)
	return exitOK
}

// dispatchPoint is the point dispatch's command line names: its first
// word that is one (the flags may come before it).
func dispatchPoint(args []string) string {
	for _, a := range args {
		if a == "--" {
			break
		}
		if slices.Contains(hook.Points, a) {
			return a
		}
	}
	return ""
}

// hostRun reports whether args run a command a host runs per event, in a
// host dialect other than holaryn (named, or the event on stdin's): its
// help goes to stderr (on stdout it would be read as the hook's answer)
// and is a refusal too.
func hostRun(path string, args []string, in *recorder) bool {
	_, ok := hostCommands[path]
	if !ok {
		return false
	}
	d := hostDialect(path, args)
	if d == "" {
		d, _ = hook.Sniff(in.payload())
	}
	return d != "" && d != hook.Holaryn
}

// wantsHelp reports whether args ask for help.
func wantsHelp(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "--help=true" {
			return true
		}
	}
	return false
}

// helpAsked reports whether cmd printed its help instead of running.
func helpAsked(cmd *cobra.Command) bool {
	if cmd == nil {
		return false
	}
	f := cmd.Flags().Lookup("help")
	return f != nil && f.Changed
}
