package hook

// Sniff says which host's payload b looks like, and the event it names,
// from the members only that host's payload carries: Claude Code's
// hook_event_name (Cursor's beside its conversation_id or workspace_roots,
// Gemini CLI's with its own event names or a timestamp), Holaryn's schema_version and point, Arcturn's toolName
// or bare {event, cwd}, Bernstein's envelope. It decides nothing about the
// payload's validity; it names the dialect a person forgot to give, and
// the event a refusal must answer. "" when nothing fits.
func Sniff(b []byte) (d Dialect, point string) {
	m, err := object(b)
	if err != nil {
		return "", ""
	}
	str := func(k string) (string, bool) {
		raw, ok := m[k]
		if !ok || raw.Kind() != '"' {
			return "", false
		}
		var s string
		if unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	has := func(k string) bool { _, ok := m[k]; return ok }
	if ev, ok := str("hook_event_name"); ok {
		_, gemini := GeminiEvents[ev]
		_, claude := ClaudeEvents[ev]
		switch {
		case has("conversation_id") || has("workspace_roots") || has("cursor_version"):
			return Cursor, ev
		case gemini && !claude, gemini && has("timestamp") && !has("permission_mode"):
			return Gemini, ev
		}
		return Claude, ev
	}
	if p, ok := str("point"); ok && has("schema_version") {
		return Holaryn, p
	}
	ev, ok := str("event")
	if !ok {
		return "", ""
	}
	switch {
	case has("task") || has("workdir") || has("timestamp") || has("data") || has("env"):
		return Bernstein, ev
	case has("toolName") || has("cwd"):
		return Arcturn, ev
	}
	return "", ""
}
