package hook

import "encoding/json"

// Holaryn: the JSON event contract and strict JSON decisions.
const Holaryn Dialect = "holaryn"

// DefaultDialect is the dialect of a hook that names none: Holaryn's.
const DefaultDialect = Holaryn

// holarynHost runs a script by its extension (.sh under sh), in its
// private directory, and gives it its hook's id.
type holarynHost struct{}

var _ Host = holarynHost{}

func (holarynHost) Name() Dialect { return Holaryn }

func (holarynHost) Parse(b []byte) (*Envelope, error) {
	ev, err := ParseEvent(b)
	if err != nil {
		return nil, err
	}
	vars := ev.EnvVars("")
	delete(vars, "HOLARYN_HOOK_ID")
	schema, err := argsSchemaOf(ev.Data)
	if err != nil {
		return nil, err
	}
	return &Envelope{Dialect: Holaryn, Point: ev.Point, EventID: ev.EventID, SessionID: ev.SessionID, TraceID: ev.TraceID,
		Depth: ev.Depth, Workspace: ev.Workspace, CanBlock: true, vars: vars, argsSchema: schema}, nil
}

// CheckMatcher accepts anything: a holaryn hook has no matcher.
func (holarynHost) CheckMatcher(string) error { return nil }

func (holarynHost) Matches(string, *Envelope) bool { return true }

func (holarynHost) Interpret(e *Envelope, exitCode int, stdout, stderr []byte) (*Decision, error) {
	if exitCode != 0 {
		// A refusal the hook wrote before it failed still refuses;
		// an allow or a modify counts only on exit 0.
		if d, err := ParseDecision(stdout, e.Point); err == nil && d.refuses() {
			return d, nil
		}
		if err := missing(exitCode, stderr); err != nil {
			return nil, err
		}
		return nil, errExit(exitCode)
	}
	d, err := ParseDecision(stdout, e.Point)
	if err == nil && d.Action == Modify && e.argsSchema != nil {
		err = checkArgs(e.argsSchema, d.Mutations)
	}
	if err != nil {
		return nil, err
	}
	return d, nil
}

func (holarynHost) Encode(_ string, dec Decision, _ *Failure) ([]byte, error) {
	b, err := json.Marshal(holaryn{SchemaVersion: 1, Action: dec.Action, Reason: dec.Reason, Mutations: dec.Mutations, Output: dec.Output})
	return append(b, '\n'), err
}

func (holarynHost) DefaultFailurePolicy(m Mode, _ bool) FailurePolicy { return defaultFailurePolicy(m) }

func (holarynHost) HookVars(hookID string) map[string]string {
	return map[string]string{"HOLARYN_HOOK_ID": hookID}
}

// Answer implements Host: the decision on stdout; a deny also exits 2.
func (h holarynHost) Answer(point string, dec Decision, failure *Failure) (Answer, error) {
	a, err := encoded(h, point, dec, failure)
	if dec.Action == Deny {
		a.Exit = ExitBlock
	}
	return a, err
}

func (holarynHost) Sandbox() Sandbox {
	return Sandbox{PluginRootVar: pluginRootVar, EnvFileVar: envFileVar, VarPrefix: "HOLARYN_HOOK_", PluginDataVar: pluginDataVar, PluginDataDir: pluginDataDir}
}
