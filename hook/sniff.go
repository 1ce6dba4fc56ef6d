package hook

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

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

// ErrOtherHost is the class of an event given in one host's dialect that is
// plainly another host's payload (OtherHostError). It is an ErrInvalid too:
// the event is refused before anything runs, in the named host's words,
// never read as that host's (where a deny at an event it does not know
// would be let through as an allow).
var ErrOtherHost = errors.New("the event is another host's payload")

// OtherHostError says which host an event looks like, and why, when it was
// given in another host's dialect.
type OtherHostError struct {
	// Dialect is the dialect the event was given in; Looks the host whose
	// payload it resembles more.
	Dialect, Looks Dialect
	// Signs are what says so: the members only Looks sends, and the event's
	// name when it is one of Looks's.
	Signs []string
}

func (e *OtherHostError) Error() string {
	return fmt.Sprintf("event looks like a %s payload (%s), not a %s one: it is not read as %s's (give it the dialect %s)",
		e.Looks, strings.Join(e.Signs, ", "), e.Dialect, e.Dialect, e.Looks)
}

// Unwrap makes the error both ErrInvalid and ErrOtherHost.
func (e *OtherHostError) Unwrap() []error { return []error{ErrInvalid, ErrOtherHost} }

// hostSigns are the members of a payload that only one of the hosts whose
// events carry hook_event_name sends (docs/hosts.md): Claude Code's
// permission_mode, Cursor's conversation and generation ids, workspace
// roots and version, Gemini CLI's timestamp. The event's name is a sign too
// (hostEvents), for each host that has such an event.
var hostSigns = map[Dialect][]string{
	Claude: {"permission_mode"},
	Cursor: {"conversation_id", "generation_id", "workspace_roots", "cursor_version"},
	Gemini: {"timestamp"},
}

// hostEvents is whether a host has an event of that name.
func hostEvents(d Dialect, event string) bool {
	var ok bool
	switch d {
	case Claude:
		_, ok = ClaudeEvents[event]
	case Cursor:
		_, ok = CursorEvents[event]
	case Gemini:
		_, ok = GeminiEvents[event]
	}
	return ok
}

// signsOf lists what in m only d's payloads carry.
func signsOf(d Dialect, m map[string]jsontext.Value) []string {
	var signs []string
	for _, k := range hostSigns[d] {
		if _, ok := m[k]; ok {
			signs = append(signs, k)
		}
	}
	if raw, ok := m["hook_event_name"]; ok && raw.Kind() == '"' {
		var ev string
		if unmarshal(raw, &ev) == nil && hostEvents(d, ev) {
			signs = append(signs, "hook_event_name "+strconv.Quote(ev))
		}
	}
	return signs
}

// belongsTo refuses an event given in dialect d (Claude, Cursor or Gemini)
// that fits another of those hosts better: it carries more of what only
// that host sends than of what d sends (an event d does not know, from a
// host whose event it is). Such an event read as d's would have d's answer
// mean something else: a deny at an event d does not know is let through
// as an allow. An event that is not a JSON object is left to the dialect's
// own reader to refuse.
func belongsTo(d Dialect, b []byte) error {
	m, err := object(b)
	if err != nil {
		return nil
	}
	own := len(signsOf(d, m))
	var best *OtherHostError
	for _, other := range []Dialect{Claude, Cursor, Gemini} {
		if other == d {
			continue
		}
		signs := signsOf(other, m)
		switch {
		case len(signs) <= own:
			continue
		case best == nil, len(signs) > len(best.Signs):
		case len(signs) < len(best.Signs):
			continue
		default:
			// As many signs of two other hosts: the one Sniff names.
			if sniffed, _ := Sniff(b); sniffed != other {
				continue
			}
		}
		best = &OtherHostError{Dialect: d, Looks: other, Signs: signs}
	}
	if best == nil {
		return nil
	}
	return best
}
