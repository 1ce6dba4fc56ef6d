package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrDecision is the class of refused decisions (trace kind invalid_decision).
var ErrDecision = errors.New("invalid decision")

// MaxDecisionBytes bounds a decision document.
const MaxDecisionBytes = 64 << 10

// Decision is what a hook answers, and what hook-exec answers the host.
// Its JSON form is the holaryn decision; [Encode] writes it in any dialect.
type Decision struct {
	SchemaVersion int             `json:"schema_version"`
	Action        Action          `json:"action"`
	Reason        string          `json:"reason,omitempty"`
	Mutations     json.RawMessage `json:"mutations,omitempty"`
	Output        json.RawMessage `json:"output,omitempty"`
	// Extension is what the answering host's dialect says beyond the
	// above (*BernsteinAnswer, *ClaudeAnswer), passed on to that host's
	// Encode; nil when nothing. It is no part of the JSON form.
	Extension Extension `json:"-"`
}

// Extension is the part of an answer only one host has, as containerd's
// Container.Extensions carry what the core type does not know: one per
// decision, since a decision answers one host.
type Extension interface {
	// Redact returns the extension with what a hook wrote in it redacted,
	// as the executor redacts a decision before it leaves.
	Redact() Extension
}

// answerOf is the host's part of d (a *T extension), zero when it has none.
func answerOf[T any](d Decision) T {
	if a, ok := any(d.Extension).(*T); ok && a != nil {
		return *a
	}
	var zero T
	return zero
}

// withAnswer is d with a as its extension, none when a says nothing.
func withAnswer[T comparable, P interface {
	*T
	Extension
}](d *Decision, a T) *Decision {
	var zero T
	if a != zero {
		d.Extension = P(&a)
	} else {
		d.Extension = nil
	}
	return d
}

// holaryn is the wire form a holaryn hook may write: nothing else.
type holaryn struct {
	SchemaVersion int             `json:"schema_version"`
	Action        Action          `json:"action"`
	Reason        string          `json:"reason,omitempty"`
	Mutations     json.RawMessage `json:"mutations,omitempty"`
	Output        json.RawMessage `json:"output,omitempty"`
}

// Mutable says which member of the event's data a hook may change at a
// point: a tool call's args, and only at tool.before. Everywhere else a
// hook may allow, deny or request approval, never modify.
var Mutable = map[string][]string{
	"tool.before": {"args"},
}

// ParseDecision reads a blocking hook's stdout strictly: exactly one JSON
// object (surrounding whitespace allowed), no duplicate or unknown members,
// schema_version 1, a known action; modify carries mutations of only the
// members Mutable allows at point, each a JSON object; other actions carry
// no mutations.
func ParseDecision(stdout []byte, point string) (*Decision, error) {
	b := bytes.TrimSpace(stdout)
	if len(b) == 0 {
		return nil, fmt.Errorf("%w: the hook wrote no decision on stdout", ErrDecision)
	}
	if len(b) > MaxDecisionBytes {
		return nil, fmt.Errorf("%w: decision is %d bytes, more than %d", ErrDecision, len(b), MaxDecisionBytes)
	}
	var d holaryn
	if err := unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDecision, err)
	}
	if d.SchemaVersion != 1 {
		return nil, fmt.Errorf("%w: schema_version %d: want 1", ErrDecision, d.SchemaVersion)
	}
	hasMutations := len(d.Mutations) > 0 && string(d.Mutations) != "null"
	if d.Action == Deny && strings.TrimSpace(d.Reason) == "" {
		return nil, fmt.Errorf("%w: deny without a reason: a deny says why", ErrDecision)
	}
	switch d.Action {
	case Allow, Deny, RequestApproval:
		if hasMutations {
			return nil, fmt.Errorf("%w: action %s carries mutations: only modify may", ErrDecision, d.Action)
		}
	case Modify:
		if !hasMutations {
			return nil, fmt.Errorf("%w: modify without mutations", ErrDecision)
		}
		if err := checkMutations(d.Mutations, point); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%w: unknown action %q: use allow, deny, modify or request_approval", ErrDecision, d.Action)
	}
	return &Decision{SchemaVersion: 1, Action: d.Action, Reason: d.Reason, Mutations: d.Mutations, Output: d.Output}, nil
}

func checkMutations(raw json.RawMessage, point string) error {
	m, err := object(raw)
	if err != nil {
		return fmt.Errorf("%w: mutations must be an object: %w", ErrDecision, err)
	}
	allowed := Mutable[point]
	if len(allowed) == 0 {
		return fmt.Errorf("%w: a hook may not modify at %s: only tool.before allows it", ErrDecision, point)
	}
	for k, v := range m {
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			return fmt.Errorf("%w: mutation of %q at %s: only %v may change", ErrDecision, k, point, allowed)
		}
		if v.Kind() != '{' {
			return fmt.Errorf("%w: mutation of %q must be an object", ErrDecision, k)
		}
	}
	return nil
}
