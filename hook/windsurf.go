package hook

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Windsurf: Windsurf's Cascade hooks (.windsurf/hooks.json, the user's
// ~/.codeium/windsurf/hooks.json, the system's /etc/windsurf/hooks.json,
// all merged). The event arrives as {agent_action_name, trajectory_id,
// execution_id, timestamp, tool_info} on stdin; only the exit status
// answers: exit 2 blocks a pre-hook with stderr as the reason, and every
// other status, whatever the hook printed, lets the action proceed.
const Windsurf Dialect = "windsurf"

// windsurfEvent is what the dialect knows of one Cascade event: whether
// exit 2 blocks it (the five pre-hooks), and the members its tool_info
// must carry.
type windsurfEvent struct {
	blocks bool
	info   []string
}

// WindsurfEvents are Cascade's hook events (docs.windsurf.com
// cascade/hooks, its 12-event revision, read 2026-12-06). An event not
// listed (a newer Windsurf) runs; it can block when its name is a pre-hook's
// (pre_...).
var WindsurfEvents = map[string]windsurfEvent{
	"pre_read_code":                         {blocks: true, info: []string{"file_path"}},
	"post_read_code":                        {info: []string{"file_path"}},
	"pre_write_code":                        {blocks: true, info: []string{"file_path"}},
	"post_write_code":                       {info: []string{"file_path"}},
	"pre_run_command":                       {blocks: true, info: []string{"command_line"}},
	"post_run_command":                      {info: []string{"command_line"}},
	"pre_mcp_tool_use":                      {blocks: true, info: []string{"mcp_server_name", "mcp_tool_name"}},
	"post_mcp_tool_use":                     {info: []string{"mcp_server_name", "mcp_tool_name"}},
	"pre_user_prompt":                       {blocks: true, info: []string{"user_prompt"}},
	"post_cascade_response":                 {},
	"post_cascade_response_with_transcript": {info: []string{"transcript_path"}},
	"post_setup_worktree":                   {info: []string{"worktree_path"}},
}

var (
	windsurfCommon = map[string]jsontext.Kind{
		"agent_action_name": '"', "trajectory_id": '"', "execution_id": '"', "timestamp": '"', "tool_info": '{',
	}
	windsurfInfo = map[string]jsontext.Kind{
		"file_path": '"', "edits": '[', "command_line": '"', "cwd": '"', "mcp_server_name": '"', "mcp_tool_name": '"',
		"mcp_tool_arguments": '{', "user_prompt": '"', "response": '"', "transcript_path": '"', "worktree_path": '"',
		"root_workspace_path": '"',
	}
)

type windsurfHost struct{}

var _ Host = windsurfHost{}

func (windsurfHost) Name() Dialect { return Windsurf }

// Parse reads a Cascade event. The working directory is the new
// worktree's at post_setup_worktree; the other events name none.
func (windsurfHost) Parse(b []byte) (*Envelope, error) {
	m, err := typedObject(b, windsurfCommon)
	if err != nil {
		return nil, err
	}
	event, err := stringField(m, "agent_action_name", true)
	if err != nil {
		return nil, err
	}
	raw, ok := m["tool_info"]
	if !ok {
		return nil, fmt.Errorf("%w: windsurf %s event has no \"tool_info\"", ErrInvalid, event)
	}
	info, err := typedObject(raw, windsurfInfo)
	if err != nil {
		return nil, fmt.Errorf("%w: tool_info: %w", ErrInvalid, err)
	}
	ev, known := WindsurfEvents[event]
	for _, k := range ev.info {
		if _, ok := info[k]; !ok {
			return nil, fmt.Errorf("%w: windsurf %s event has no \"tool_info.%s\"", ErrInvalid, event, k)
		}
	}
	session, _ := stringField(m, "trajectory_id", false)
	// Cascade runs a hook in the workspace's root whatever the command's
	// cwd (Sandbox.WorkspaceCwd), and post_setup_worktree's in the new
	// worktree.
	cwd, _ := stringField(info, "worktree_path", false)
	tool, _ := stringField(info, "mcp_tool_name", false)
	transcript, _ := stringField(info, "transcript_path", false)
	var edited string
	if event == "post_write_code" {
		if p, _ := stringField(info, "file_path", false); filepath.IsAbs(p) {
			edited = filepath.Clean(p)
		}
	}
	// A pre-hook of a newer Cascade blocks by exit 2 as the five do.
	blocks := known && ev.blocks || !known && strings.HasPrefix(event, "pre_")
	return &Envelope{Dialect: Windsurf, Point: event, SessionID: session, Workspace: cwd, ToolName: tool,
		CanBlock: blocks, TranscriptPath: transcript, EditedFile: edited, vars: map[string]string{}}, nil
}

// shape: only Cascade names its event agent_action_name, beside its
// tool_info.
func (windsurfHost) shape() []string { return []string{"agent_action_name", "tool_info"} }

func (windsurfHost) recognize(m map[string]jsontext.Value) (string, bool) {
	raw, ok := m["agent_action_name"]
	if _, info := m["tool_info"]; !ok || !info || raw.Kind() != '"' {
		return "", false
	}
	var ev string
	return ev, unmarshal(raw, &ev) == nil
}

// CheckMatcher refuses every matcher: Cascade's hooks have none, and run
// at every call of their event.
func (windsurfHost) CheckMatcher(matcher string) error {
	if matcher == "" || matcher == "*" {
		return nil
	}
	return fmt.Errorf("%w: matcher %q: windsurf hooks have no matcher", ErrInvalid, matcher)
}

func (windsurfHost) Matches(string, *Envelope) bool { return true }

// Interpret reads the exit status as Cascade does: 2 blocks a pre-hook
// with stderr as the reason, anything else lets the action proceed; 126
// and 127 (a program the hook's shell could not run) are a failure of the
// hook as written, where Cascade would let the action through.
func (windsurfHost) Interpret(e *Envelope, exitCode int, _, stderr []byte) (*Decision, error) {
	if exitCode == 2 && e.CanBlock {
		return &Decision{SchemaVersion: 1, Action: Deny, Reason: reasonFrom(stderr, "blocked by "+e.Point+" hook")}, nil
	}
	if err := missing(exitCode, stderr); err != nil {
		return nil, err
	}
	return &Decision{SchemaVersion: 1, Action: Allow}, nil
}

// Encode: Cascade reads nothing on stdout (it shows it, with show_output).
// The decision is the exit status (Answer); the line is empty.
func (windsurfHost) Encode(string, Decision, *Failure) ([]byte, error) { return nil, nil }

func (windsurfHost) DefaultFailurePolicy(m Mode, _ bool) FailurePolicy {
	return defaultFailurePolicy(m)
}

func (windsurfHost) HookVars(string) map[string]string { return nil }

// Answer: a refusal at a pre-hook is exit 2 with the reason on stderr (a
// request for approval too: Cascade cannot ask); nothing else reaches
// Cascade.
func (windsurfHost) Answer(point string, dec Decision, _ *Failure) (Answer, error) {
	if dec.Action == Deny || dec.Action == RequestApproval {
		if ev, known := WindsurfEvents[point]; known && ev.blocks || !known {
			return Answer{Stderr: nonEmptyReason(dec.Reason, point), Exit: ExitBlock}, nil
		}
	}
	return Answer{}, nil
}

// Sandbox: Cascade runs a hook's command in the workspace's root (or its
// working_directory), and names no variable of its own.
func (windsurfHost) Sandbox() Sandbox {
	return Sandbox{Shebang: true, EventCwd: true, WorkspaceCwd: true, PluginRootVar: pluginRootVar, EnvFileVar: envFileVar, HomeDir: ".codeium",
		PluginDataVar: pluginDataVar, PluginDataDir: pluginDataDir}
}
