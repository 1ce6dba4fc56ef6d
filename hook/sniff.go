package hook

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// Sniff says which host's payload b looks like, and the event it names,
// from the members only that host's payload carries: with hook_event_name,
// the Claude Code family's host with the most of its signs (likeliest);
// Holaryn's schema_version and point, Arcturn's toolName or bare {event,
// cwd}, Bernstein's envelope. It decides nothing about the
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
		return likeliest(m), ev
	}
	if r := recognized(m); r != nil {
		ev, _ := r.recognize(m)
		return r.Name(), ev
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

// recognizer is a host whose payload has a shape only it sends (the
// members shape names): recognize names its event when m is one.
type recognizer interface {
	Host
	shape() []string
	recognize(m map[string]jsontext.Value) (event string, ok bool)
}

// recognized is the recognizer host whose payload m is, nil when none.
func recognized(m map[string]jsontext.Value) recognizer {
	for _, d := range Dialects() {
		if r, ok := hosts[Dialect(d)].(recognizer); ok {
			if _, ok := r.recognize(m); ok {
				return r
			}
		}
	}
	return nil
}

// signedHost is a host whose events carry hook_event_name (Claude Code's
// family): what only its payloads carry (docs/hosts.md), and whether an
// event's name is one of its own. The event's name is a sign too, for each
// host that has such an event.
type signedHost interface {
	Host
	signs() []string
	hasEvent(name string) bool
}

// signedHosts are the hosts that implement signedHost, the default's
// family first (Claude Code), then by name: ties go to the first.
func signedHosts() []signedHost {
	var out []signedHost
	for _, d := range append([]string{string(Claude)}, Dialects()...) {
		if s, ok := hosts[Dialect(d)].(signedHost); ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// likeliest is the host whose payload m (with hook_event_name) most looks
// like: the most of its signs, Claude Code's when none has more.
func likeliest(m map[string]jsontext.Value) Dialect {
	best, most := Claude, -1
	for _, h := range signedHosts() {
		if n := len(signsOf(h, m)); n > most {
			best, most = h.Name(), n
		}
	}
	return best
}

// signsOf lists what in m only h's payloads carry.
func signsOf(h signedHost, m map[string]jsontext.Value) []string {
	var signs []string
	for _, k := range h.signs() {
		if _, ok := m[k]; ok {
			signs = append(signs, k)
		}
	}
	if raw, ok := m["hook_event_name"]; ok && raw.Kind() == '"' {
		var ev string
		if unmarshal(raw, &ev) == nil && h.hasEvent(ev) {
			signs = append(signs, "hook_event_name "+strconv.Quote(ev))
		}
	}
	return signs
}

// belongsTo refuses an event given in dialect d (a signedHost)
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
	if r := recognized(m); r != nil && r.Name() != d {
		return &OtherHostError{Dialect: d, Looks: r.Name(), Signs: r.shape()}
	}
	self, ok := hosts[d].(signedHost)
	if !ok {
		return nil
	}
	own := len(signsOf(self, m))
	var best *OtherHostError
	for _, h := range signedHosts() {
		other := h.Name()
		if other == d {
			continue
		}
		signs := signsOf(h, m)
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
