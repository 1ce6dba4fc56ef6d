package dispatch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/backend/local"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/executor/handler/builtin"
	"github.com/hookexec/hook-exec/executor/handler/webhook"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/registry"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
	"github.com/hookexec/hook-exec/scriptpin"
)

// isolating runs processes locally but passes for an isolating backend, so
// that project and plugin hooks get past the executor's gate to the rules
// of their handlers.
type isolating struct{ backend.Backend }

func (isolating) Isolating() bool { return true }

// ruleCase is a definition that breaks one rule a run applies.
type ruleCase struct {
	name   string
	plugin bool // a plugin's hooks.json (no scope)
	doc    string
	member string // the JSON pointer the load error names
	rule   error  // the rule's sentinel, on both sides
}

// ruleCases are fed to the load paths (registry.Parse, ParsePlugin) and to
// a run of the same definition: whatever a run refuses, loading refuses.
// Webhook URLs are loopback or TEST-NET literals: nothing resolves a name,
// and nothing could leave the machine were a rule not applied.
var ruleCases = []ruleCase{
	{name: "absolute script path", doc: handler("global", `{"kind":"script","script":"/etc/hook.sh"}`), member: "/handler/script", rule: scriptpin.ErrAbsolute},
	{name: "script outside its directory", doc: handler("session", `{"kind":"script","script":"../hook.sh"}`), member: "/handler/script", rule: scriptpin.ErrEscape},
	{name: "NUL in a script path", doc: handler("project", `{"kind":"script","script":"a\u0000.sh"}`), member: "/handler/script", rule: scriptpin.ErrNotRegular},
	{name: "script language", doc: handler("global", `{"kind":"script","script":"hook.rb"}`), member: "/handler/script", rule: scriptpin.ErrExtension},
	{name: "malformed pin", doc: handler("global", `{"kind":"script","script":"hook.sh","sha256":"abc"}`), member: "/handler/sha256", rule: scriptpin.ErrDigest},
	{name: "code-loading env", doc: handler("global", `{"kind":"script","script":"hook.sh","env":{"LD_PRELOAD":"x"}}`), member: "/handler/env/LD_PRELOAD", rule: sandbox.ErrEnv},
	{name: "secret-like env", doc: handler("session", `{"kind":"command","command":["true"],"env":{"API_TOKEN":"x"}}`), member: "/handler/env/API_TOKEN", rule: sandbox.ErrEnv},
	{name: "NUL in an env value", doc: handler("global", `{"kind":"script","script":"hook.sh","env":{"MODE":"a\u0000b"}}`), member: "/handler/env/MODE", rule: sandbox.ErrEnv},
	{name: "plugin env", plugin: true, doc: handler("", `{"kind":"command","command":["true"],"env":{"MODE":"x"}}`), member: "/handler/env", rule: hook.ErrInvalid},
	{name: "plugin command naming a path", plugin: true, doc: handler("", `{"kind":"command","command":["/usr/bin/python3","-c","1"]}`), member: "/handler/command/0", rule: hook.ErrInvalid},
	{name: "NUL in a command argument", doc: handler("session", `{"kind":"command","command":["sh","-c","a\u0000b"]}`), member: "/handler/command/2", rule: hook.ErrInvalid},
	{name: "project webhook", doc: handler("project", `{"kind":"webhook","url":"https://127.0.0.1:1/h"}`), member: "/handler/kind", rule: hook.ErrInvalid},
	{name: "plugin webhook", plugin: true, doc: handler("", `{"kind":"webhook","url":"https://127.0.0.1:1/h"}`), member: "/handler/kind", rule: hook.ErrInvalid},
	{name: "webhook over plain http", doc: handler("global", `{"kind":"webhook","url":"http://192.0.2.1/h"}`), member: "/handler/url", rule: webhook.ErrURL},
	{name: "webhook credentials in the URL", doc: handler("global", `{"kind":"webhook","url":"https://u:p@127.0.0.1:1/h"}`), member: "/handler/url", rule: webhook.ErrURL},
	{name: "webhook credential header", doc: handler("global", `{"kind":"webhook","url":"https://127.0.0.1:1/h","headers":{"Cookie":"x"}}`), member: "/handler/headers", rule: webhook.ErrHeader},
	{name: "unknown builtin", doc: handler("global", `{"kind":"builtin","builtin":"firewall"}`), member: "/handler/builtin", rule: builtin.ErrUnknown},
	{name: "builtin option of another case", doc: handler("global", `{"kind":"builtin","builtin":"secret-scan","options":{"Action":"deny"}}`), member: "/handler/builtin", rule: builtin.ErrOptions},
	{name: "blocking notification", doc: handler("global", `{"kind":"builtin","builtin":"notification","options":{"message":"x"}}`), member: "/handler/builtin", rule: builtin.ErrOptions},
	{name: "project notification to a file", doc: observer("project", `{"kind":"builtin","builtin":"notification","options":{"message":"x","to":"file","path":"/tmp/hookexec-must-not-exist"}}`), member: "/handler/options", rule: builtin.ErrOptions},
	{name: "plugin notification to a webhook", plugin: true, doc: observer("", `{"kind":"builtin","builtin":"notification","options":{"message":"x","to":"webhook","url":"https://127.0.0.1:1/n"}}`), member: "/handler/options", rule: builtin.ErrOptions},
}

// handler is a blocking tool.before definition of scope ("" for a plugin's).
func handler(scope, h string) string {
	s := ""
	if scope != "" {
		s = `"scope":"` + scope + `",`
	}
	return `{"schema_version":1,"id":"r","point":"tool.before",` + s + `"failure_policy":"deny","handler":` + h + `}`
}

// observer is an observational tool.before definition.
func observer(scope, h string) string {
	return strings.Replace(handler(scope, h), `"failure_policy":"deny"`, `"mode":"observational","failure_policy":"warn"`, 1)
}

// Issue 31: a definition the load paths accepted could break a rule every
// run applies (an owner's absolute script path: every dispatch failed with
// refused_rule). Each rule a run applies is refused by loading too.
func TestLoadRefusesWhatRunsRefuse(t *testing.T) {
	for _, tc := range ruleCases {
		t.Run(tc.name, func(t *testing.T) {
			parse := registry.Parse
			if tc.plugin {
				parse = registry.ParsePlugin
			}
			_, err := parse([]byte(tc.doc))
			if !errors.Is(err, registry.ErrDocument) || !errors.Is(err, tc.rule) {
				t.Errorf("load: err = %v, want ErrDocument and %q", err, tc.rule)
			} else if !strings.Contains(err.Error(), "member "+tc.member+":") {
				t.Errorf("load: %q does not name the member %s", err, tc.member)
			}
			if msg := runRefusal(t, tc); !strings.Contains(msg, tc.rule.Error()) {
				t.Errorf("run refused with %q, not for the rule %q", msg, tc.rule)
			}
		})
	}
}

// TestRunOfRuleCasesCanPass: the run side of the table refuses for the
// rule, not for the way the test runs it: the same definitions without the
// broken rule load and run.
func TestRunOfRuleCasesCanPass(t *testing.T) {
	for _, tc := range []ruleCase{
		{name: "script", doc: handler("global", `{"kind":"script","script":"hook.sh","env":{"MODE":"x"}}`)},
		{name: "command", doc: handler("session", `{"kind":"command","command":["sh","-c","cat >/dev/null; echo '{\"schema_version\":1,\"action\":\"allow\"}'"]}`)},
		{name: "plugin command", plugin: true, doc: handler("", `{"kind":"command","command":["sh","-c","cat >/dev/null; echo '{\"schema_version\":1,\"action\":\"allow\"}'"]}`)},
		{name: "builtin", doc: handler("project", `{"kind":"builtin","builtin":"forbidden-path"}`)},
		{name: "project notification", doc: observer("project", `{"kind":"builtin","builtin":"notification","options":{"message":"x"}}`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			parse := registry.Parse
			if tc.plugin {
				parse = registry.ParsePlugin
			}
			if _, err := parse([]byte(tc.doc)); err != nil {
				t.Fatalf("load: %v", err)
			}
			tr, err := runDefinition(t, tc, map[string]string{"hook.sh": allow})
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if tr.Failure != nil {
				t.Errorf("run: failure %+v, want none", tr.Failure)
			}
		})
	}
}

// runRefusal runs the case's definition as dispatch would and returns why
// the run refused: Run's error, or the message of a refused_rule trace.
func runRefusal(t *testing.T, tc ruleCase) string {
	t.Helper()
	tr, err := runDefinition(t, tc, map[string]string{"hook.sh": allow})
	if err != nil {
		if !errors.Is(err, tc.rule) {
			t.Errorf("run: err = %v, want %q", err, tc.rule)
		}
		return err.Error()
	}
	if f := tr.Failure; f == nil || f.Kind != hook.FailRefusedRule {
		t.Fatalf("run: failure %+v, want refused_rule", f)
	}
	return tr.Failure.Message
}

// runDefinition reads the case's definition without the registry's
// validation, runs it as dispatch would (scripts in a directory holding
// files) and returns its trace.
func runDefinition(t *testing.T, tc ruleCase, files map[string]string) (*hook.Trace, error) {
	t.Helper()
	var def registry.Definition
	if err := json.Unmarshal([]byte(tc.doc), &def); err != nil {
		t.Fatal(err)
	}
	e := &registry.Entry{Def: &def, ID: def.ID, Origin: def.Scope, BaseDir: scripts(t, files)}
	if tc.plugin {
		e.Origin = registry.Plugin
	}
	h := e.Hook()
	var trace *hook.Trace
	ex, err := executor.New(executor.Options{
		Backend:      isolating{local.New()},
		DefaultImage: func(context.Context, launcher.Lang) (string, error) { return "unused", nil },
		OnTrace:      func(tr hook.Trace) { trace = &tr },
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ex.Run(context.Background(), h, []byte(writeEvent))
	if serr := ex.Shutdown(context.Background()); serr != nil { // an observer's run ends here
		t.Fatal(serr)
	}
	if err != nil {
		return nil, err
	}
	if trace == nil {
		t.Fatal("run: no trace")
	}
	return trace, nil
}
