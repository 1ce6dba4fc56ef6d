package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHandlerRefusalsByName: each refusal of the handler kinds, through
// the CLI a user meets them with: the document is refused at load and the
// message names the rule.
func TestHandlerRefusalsByName(t *testing.T) {
	t.Parallel()
	requireEngines(t)
	def := func(handler string) string {
		return `{"schema_version":1,"id":"h","point":"tool.before","scope":"global","handler":` + handler + `}`
	}
	for _, tc := range []struct {
		name, doc, rule string
	}{
		{"webhook over plain http to a public host", def(`{"kind":"webhook","url":"http://example.com/h"}`), "plain http only to an explicit loopback URL"},
		{"webhook with an Authorization header", def(`{"kind":"webhook","url":"https://example.com/h","headers":{"Authorization":"Bearer abc"}}`), "carries credentials"},
		{"webhook with a Cookie header", def(`{"kind":"webhook","url":"https://example.com/h","headers":{"Cookie":"a=b"}}`), "carries credentials"},
		{"webhook with an API-key header", def(`{"kind":"webhook","url":"https://example.com/h","headers":{"X-Api-Key":"k"}}`), "API-key header"},
		{"webhook with a secret-like header", def(`{"kind":"webhook","url":"https://example.com/h","headers":{"X-Deploy-Token":"t"}}`), "secret-like name"},
		{"webhook with credentials in its URL", def(`{"kind":"webhook","url":"https://u:p@example.com/h"}`), "credentials in its URL"},
		{"webhook in a project document", `{"schema_version":1,"id":"h","point":"tool.before","scope":"project","handler":{"kind":"webhook","url":"https://example.com/h"}}`, "cannot post to a URL"},
		{"command as a shell string", def(`{"kind":"command","command":"jq . | tee x"}`), "/handler/command"},
		{"unknown builtin", def(`{"kind":"builtin","builtin":"firewall"}`), "unknown builtin"},
		{"blocking notification", def(`{"kind":"builtin","builtin":"notification","options":{"message":"x"}}`), "observational by nature"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "hook.json")
			files(t, filepath.Dir(file), map[string]string{"hook.json": tc.doc})
			r := hookExec(t, nil, nil, "hook", "validate", file)
			r.wantCode(t, 1)
			wantIn(t, "stderr", r.stderr, tc.rule)
		})
	}
	// Plugin documents: refused whole at install, the rule named.
	for _, tc := range []struct {
		name, handler, rule string
	}{
		{"plugin command naming a path", `{"kind":"command","command":["/usr/bin/jq","."]}`, "names a path: name a program on the isolated backend's PATH"},
		{"plugin webhook", `{"kind":"webhook","url":"https://example.com/h"}`, "runs on the host, outside the isolated backend"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			src := files(t, t.TempDir(), map[string]string{
				"holaryn-plugin.toml": "name = \"acme\"\n",
				"hooks.json":          `{"schema_version":1,"id":"h","point":"tool.before","handler":` + tc.handler + `}`,
			})
			r := hookExec(t, nil, nil, "plugin", "--state-dir="+t.TempDir(), "install", src)
			r.wantCode(t, 0)
			if !regexp.MustCompile(`(?m)^state: not-loaded$`).MatchString(r.stdout) || !strings.Contains(r.stdout, tc.rule) {
				t.Errorf("install: stdout %q, want not-loaded naming %q", r.stdout, tc.rule)
			}
		})
	}
}
