package hook

import (
	"errors"
	"testing"
)

// windsurfPayload is a Cascade payload as its hooks page shows one.
func windsurfPayload(event, info string) []byte {
	return []byte(`{"agent_action_name":"` + event + `","trajectory_id":"6f1c","execution_id":"a2b9","timestamp":"2026-05-01T10:00:00Z","tool_info":` + info + `}`)
}

func TestWindsurfParse(t *testing.T) {
	t.Parallel()
	b := windsurfPayload("pre_run_command", `{"command_line":"npm install left-pad","cwd":"/home/u/project"}`)
	e, err := ParseEnvelope(Windsurf, b)
	if err != nil {
		t.Fatal(err)
	}
	// The command's cwd is not the hook's: Cascade runs hooks in the
	// workspace's root (Sandbox.WorkspaceCwd).
	if e.Dialect != Windsurf || e.Point != "pre_run_command" || !e.CanBlock || e.Workspace != "" || e.SessionID != "6f1c" {
		t.Errorf("envelope %+v", e)
	}
	if d, point := Sniff(b); d != Windsurf || point != "pre_run_command" {
		t.Errorf("Sniff = %s %s, want windsurf pre_run_command", d, point)
	}
	if e, err := ParseEnvelope(Windsurf, windsurfPayload("pre_new_tool", `{}`)); err != nil || !e.CanBlock {
		t.Errorf("a newer pre-hook: %+v %v, want one that blocks", e, err)
	}
	post, err := ParseEnvelope(Windsurf, windsurfPayload("post_write_code", `{"file_path":"/home/u/project/a.py","edits":[{"old_string":"a","new_string":"b"}]}`))
	if err != nil || post.CanBlock || post.EditedFile != "/home/u/project/a.py" {
		t.Errorf("post_write_code: %+v %v", post, err)
	}
	for name, bad := range map[string][]byte{
		"no tool_info":            []byte(`{"agent_action_name":"pre_run_command","trajectory_id":"t"}`),
		"no command_line":         windsurfPayload("pre_run_command", `{"cwd":"/p"}`),
		"command_line not a text": windsurfPayload("pre_run_command", `{"command_line":["rm"]}`),
		"Command_Line in a case":  windsurfPayload("pre_run_command", `{"command_line":"ls","Command_Line":"rm -rf /"}`),
		"no agent_action_name":    []byte(`{"tool_info":{}}`),
	} {
		if _, err := ParseEnvelope(Windsurf, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
}

func TestWindsurfAnswers(t *testing.T) {
	t.Parallel()
	pre, _ := ParseEnvelope(Windsurf, windsurfPayload("pre_run_command", `{"command_line":"rm -rf /","cwd":"/p"}`))
	post, _ := ParseEnvelope(Windsurf, windsurfPayload("post_run_command", `{"command_line":"rm -rf /","cwd":"/p"}`))
	h := windsurfHost{}
	for _, c := range []struct {
		name   string
		e      *Envelope
		exit   int
		stdout string
		stderr string
		action Action
		reason string
	}{
		{"exit 2 blocks a pre-hook", pre, 2, "", "no recursive rm\n", Deny, "no recursive rm"},
		{"exit 2 without a reason", pre, 2, "", "", Deny, "blocked by pre_run_command hook"},
		// Cascade reads no JSON: a deny printed on exit 0 lets it proceed.
		{"stdout is not an answer", pre, 0, `{"decision":"deny"}`, "", Allow, ""},
		{"exit 1 proceeds", pre, 1, "", "oops", Allow, ""},
		{"exit 2 cannot block a post-hook", post, 2, "", "no", Allow, ""},
	} {
		d, err := h.Interpret(c.e, c.exit, []byte(c.stdout), []byte(c.stderr))
		if err != nil || d.Action != c.action || d.Reason != c.reason {
			t.Errorf("%s: %+v %v, want %s %q", c.name, d, err, c.action, c.reason)
		}
	}
	if _, err := h.Interpret(pre, 127, nil, []byte("python3: not found")); !errors.Is(err, ErrMissing) {
		t.Errorf("exit 127: %v, want ErrMissing", err)
	}
	for _, c := range []struct {
		point string
		dec   Decision
		want  Answer
	}{
		{"pre_run_command", Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, Answer{Stderr: "no", Exit: ExitBlock}},
		{"pre_write_code", Decision{SchemaVersion: 1, Action: Deny}, Answer{Stderr: "blocked by pre_write_code hook", Exit: ExitBlock}},
		{"pre_user_prompt", Decision{SchemaVersion: 1, Action: RequestApproval, Reason: "sure?"}, Answer{Stderr: "sure?", Exit: ExitBlock}},
		{"pre_run_command", Decision{SchemaVersion: 1, Action: Allow}, Answer{}},
		{"post_run_command", Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, Answer{}},
		{"pre_new_event", Decision{SchemaVersion: 1, Action: Deny, Reason: "no"}, Answer{Stderr: "no", Exit: ExitBlock}},
	} {
		if got, err := h.Answer(c.point, c.dec, nil); err != nil || got.Exit != c.want.Exit || got.Stderr != c.want.Stderr || len(got.Stdout) != 0 {
			t.Errorf("answer at %s to %s: %+v %v, want %+v", c.point, c.dec.Action, got, err, c.want)
		}
	}
	if err := h.CheckMatcher("Bash"); !errors.Is(err, ErrInvalid) {
		t.Errorf("a matcher: %v, want ErrInvalid", err)
	}
}
