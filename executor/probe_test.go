package executor

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/launcher"
)

func TestCheckImageNeedsIsolation(t *testing.T) {
	t.Parallel()
	b := &fakeBackend{local: true}
	if _, err := CheckImage(context.Background(), b, "img:1", []launcher.Lang{launcher.Shell}, nil); !errors.Is(err, backend.ErrNotIsolated) {
		t.Errorf("CheckImage on a backend that isolates nothing: %v, want ErrNotIsolated", err)
	}
	if len(b.runs) != 0 {
		t.Errorf("%d probes ran, want none", len(b.runs))
	}
}

func TestReadScript(t *testing.T) {
	t.Parallel()
	rep, err := ReadScript("guard.sh", []byte("#!/bin/bash\nset -e\njq -r .tool_name | grep -q Bash && bash -c 'x'\n"), []launcher.Lang{launcher.Shell})
	if err != nil {
		t.Fatal(err)
	}
	if rep.File != "guard.sh" || rep.Shell != "bash" {
		t.Errorf("file %q shell %q, want guard.sh bash", rep.File, rep.Shell)
	}
	if want := []string{"bash", "grep", "jq", "x"}; !slices.Equal(rep.Programs, want) {
		t.Errorf("programs = %q, want %q (the shell first, once; then what it names, bash -c text too)", rep.Programs, want)
	}
	js, err := ReadScript("guard.js", []byte("console.log(1)\n"), []launcher.Lang{launcher.Node})
	if err != nil {
		t.Fatal(err)
	}
	if js.Shell != "node" || !slices.Equal(js.Programs, []string{"node"}) {
		t.Errorf("js: shell %q programs %q, want node [node]", js.Shell, js.Programs)
	}
	if _, err := ReadScript("bad.sh", []byte("echo 'unterminated\n"), []launcher.Lang{launcher.Shell}); err == nil {
		t.Error("an unparsable script: no error")
	}
}
