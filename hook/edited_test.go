package hook

import "testing"

// The file an edit event names, read exactly from each host's payload: a
// formatter hook may rewrite it (Hook.WritableEditedFile).
func TestEditedFile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		d       Dialect
		payload string
		want    string
	}{
		{"claude write", Claude, `{"hook_event_name":"PostToolUse","session_id":"s","transcript_path":"/t","cwd":"/p","permission_mode":"default","tool_name":"Write","tool_input":{"file_path":"/p/a.go","content":"x"},"tool_response":{}}`, "/p/a.go"},
		{"claude relative", Claude, `{"hook_event_name":"PostToolUse","session_id":"s","transcript_path":"/t","cwd":"/p","permission_mode":"default","tool_name":"Edit","tool_input":{"file_path":"src/b.go"},"tool_response":{}}`, "/p/src/b.go"},
		{"claude bash", Claude, `{"hook_event_name":"PostToolUse","session_id":"s","transcript_path":"/t","cwd":"/p","permission_mode":"default","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":{}}`, ""},
		{"claude another case", Claude, `{"hook_event_name":"PostToolUse","session_id":"s","transcript_path":"/t","cwd":"/p","permission_mode":"default","tool_name":"Write","tool_input":{"File_Path":"/p/a.go"},"tool_response":{}}`, ""},
		{"cursor", Cursor, `{"conversation_id":"c","generation_id":"g","hook_event_name":"afterFileEdit","workspace_roots":["/p"],"file_path":"/p/c.ts","edits":[]}`, "/p/c.ts"},
		{"gemini", Gemini, `{"session_id":"s","transcript_path":"","cwd":"/p","hook_event_name":"AfterTool","timestamp":"2026-12-05T10:00:00Z","tool_name":"write_file","tool_input":{"file_path":"/p/d.py","content":"x"},"tool_response":{}}`, "/p/d.py"},
	} {
		e, err := ParseEnvelope(tc.d, []byte(tc.payload))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if e.EditedFile != tc.want {
			t.Errorf("%s: EditedFile %q, want %q", tc.name, e.EditedFile, tc.want)
		}
	}
}
