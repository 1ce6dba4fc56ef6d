package install

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// approved is p with the owner's consent, as --yes gives it.
func approved(p *Plan) *Plan {
	if err := p.Approve(Consent{Yes: true}); err != nil {
		panic(err)
	}
	return p
}

// Nothing is written without consent; consent is to exactly the plan
// shown: a digest other than the one reviewed, a question answered no, or
// no one to ask approves nothing.
func TestApprove(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	config := filepath.Join(dir, ".claude/settings.json")
	os.WriteFile(config, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo done"}]}]}}`), 0o644)
	o := Options{Settings: Project, ProjectDir: dir, Home: dir, StateDir: filepath.Join(dir, "state"), Front: "/usr/bin/hook-exec"}
	p, err := Prepare(Hosts["claude"], o)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if err := p.Apply(); !errors.Is(err, ErrNotApproved) {
		t.Fatalf("Apply without consent: %v, want ErrNotApproved", err)
	}
	if err := p.Approve(Consent{Yes: true, Reviewed: "0000"}); !errors.Is(err, ErrNotApproved) || !strings.Contains(err.Error(), p.Digest) {
		t.Errorf("another digest: %v, want ErrNotApproved naming %s", err, p.Digest)
	}
	if err := p.Approve(Consent{}); !errors.Is(err, ErrNobodyToAsk) {
		t.Errorf("no one to ask: %v, want ErrNobodyToAsk", err)
	}
	var asked string
	if err := p.Approve(Consent{Ask: func(q string) bool { asked = q; return false }}); !errors.Is(err, ErrNotApproved) || !strings.Contains(asked, "claude") {
		t.Errorf("answered no: %v (asked %q), want ErrNotApproved", err, asked)
	}
	if b, _ := os.ReadFile(config); strings.Contains(string(b), "hook-exec") {
		t.Fatalf("written without consent: %s", b)
	}
	if err := p.Approve(Consent{Yes: true, Reviewed: p.Digest}); err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(config); !strings.Contains(string(b), "hook-exec") {
		t.Errorf("approved, not written: %s", b)
	}
}
