package shellsyntax

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, shell, script string
		wantIn              string // "" for accepted; else in the refusal
	}{
		{"POSIX under sh", "sh", "x=$(cat)\ncase $x in *rm*) exit 2;; esac\n", ""},
		{"[[ under bash", "bash", "x=$(cat)\nif [[ $x == *\"rm -rf\"* ]]; then exit 2; fi\n", ""},
		{"[[ under sh, named with its line", "sh", "x=$(cat)\n\nif [[ $x == *\"rm -rf\"* ]]; then exit 2; fi\n", "line 3"},
		{"arrays under sh", "sh", "a=(1 2)\n", "line 1"},
		{"a here-string under dash", "dash", "read x <<< \"$y\"\n", "line 1"},
		{"an unclosed quote", "bash", "echo 'oops\n", "line 1"},
		{"fish is not a shell here", "fish", "echo\n", "no parser"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check([]byte(tc.script), tc.shell)
			if tc.wantIn == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tc.wantIn) {
				t.Fatalf("err %v, want ErrSyntax naming %q", err, tc.wantIn)
			}
		})
	}
}

func TestPrograms(t *testing.T) {
	t.Parallel()
	script := `#!/usr/bin/env bash
set -euo pipefail
log() { printf '%s\n' "$*" >>"$CLAUDE_PROJECT_DIR/.claude/hook.log"; }
input=$(cat)
cmd=$(echo "$input" | jq -r '.tool_input.command')
if [[ "$cmd" =~ rm\ -rf ]]; then
  log "blocked $cmd"
  echo "blocked" >&2
  exit 2
fi
branch=$(git rev-parse --abbrev-ref HEAD 2>/dev/null || true)
env LC_ALL=C sort -u /dev/null | xargs -r grep -l x
command -v node >/dev/null && exec node check.js
"$HOME/bin/dynamic" || :
`
	got, err := Programs([]byte(script), "bash")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"cat", "env", "git", "grep", "jq", "node", "sort", "xargs"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("programs (-want +got):\n%s", diff)
	}
}

// The parser meets untrusted scripts: it must answer, never panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"echo hi\n", "if [[ $x == y ]]; then :; fi\n", "f() { g | h; }\nf\n", "cat <<EOF\n$(x)\nEOF\n"} {
		f.Add([]byte(s), "sh")
		f.Add([]byte(s), "bash")
	}
	f.Fuzz(func(t *testing.T, script []byte, shell string) {
		progs, err := Programs(script, shell)
		if err != nil && !errors.Is(err, ErrSyntax) {
			t.Fatalf("error outside ErrSyntax: %v", err)
		}
		for _, p := range progs {
			if p == "" {
				t.Fatal("an empty program name")
			}
		}
	})
}

// The check runs before every .sh hook: its cost beside a sandbox's
// (tens to hundreds of milliseconds) is what matters.
func BenchmarkCheck(b *testing.B) {
	script := []byte(strings.Repeat("x=$(cat | jq -r '.tool_input.command')\nif [ -n \"$x\" ]; then echo \"$x\" >&2; fi\n", 30))
	for b.Loop() {
		if err := Check(script, "sh"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestNeeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, script string
		want         []string
		ok           bool
	}{
		{"the usual jq guard", "#!/bin/sh\ncmd=$(jq -r .tool_input.command)\ncase $cmd in *rm*) exit 2;; esac\n", []string{"jq"}, true},
		{"a program it looks for first", "if command -v jq >/dev/null; then jq .; else cat; fi\n", []string{"cat"}, true},
		{"which and hash count as looking", "which node && node x.js\nhash git 2>/dev/null && git status\n", []string{"which"}, true},
		{"paths are files, not the image's programs", "/tmp/true\n./local-tool\nbin/tool\njq .\n", []string{"jq"}, true},
		{"functions and builtins are not programs", "f() { echo hi; }\nf\nprintf x\n", nil, true},
		// Attack round 2: programs run through a wrapper, or a function
		// of the same name, and a look whose failure ends the script.
		{"through timeout", "cmd=$(timeout 5 jq -r .c)\n", []string{"jq", "timeout"}, true},
		{"through nice, stdbuf, ionice, setsid, flock", "nice -n 10 a1\nstdbuf -oL a2\nionice -c 3 a3\nsetsid a4\nflock -w 3 /tmp/l a5\n",
			[]string{"a1", "a2", "a3", "a4", "a5", "flock", "ionice", "nice", "setsid", "stdbuf"}, true},
		{"xargs with an option's value", "echo x | xargs -n 1 jq\n", []string{"jq", "xargs"}, true},
		{"busybox's applet", "busybox wget -q x\n", []string{"busybox", "wget"}, true},
		{"sh -c's script", "sh -c 'jq . | grep x'\n", []string{"grep", "jq", "sh"}, true},
		{"a function named as the program it wraps", "jq() { command jq \"$@\"; }\njq .\n", []string{"jq"}, true},
		{"a look whose failure exits", "command -v jq >/dev/null || { echo need jq >&2; exit 1; }\njq .\n", []string{"jq"}, true},
		{"a look whose failure calls a function that exits", "die() { echo \"$1\" >&2; exit 1; }\nwhich jq || die 'need jq'\njq .\n", []string{"jq", "which"}, true},
		{"if ! look; then exit", "if ! command -v jq >/dev/null; then\n  exit 1\nfi\njq .\n", []string{"jq"}, true},
		{"a look with a way on", "if command -v jq >/dev/null; then jq .; else cat; fi\n", []string{"cat"}, true},
		{"a sourced file may define functions", ". ./lib.sh\nguard_check\n", nil, false},
		{"source too", "source \"$CLAUDE_PLUGIN_ROOT/lib.sh\"\njq .\n", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := Needs([]byte(tc.script), "bash")
			if err != nil {
				t.Fatal(err)
			}
			if ok != tc.ok {
				t.Errorf("ok %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("needs (-want +got):\n%s", diff)
			}
		})
	}
	if _, _, err := Needs([]byte("if [[ x ]]; then :; fi\n"), "sh"); !errors.Is(err, ErrSyntax) {
		t.Errorf("err %v, want ErrSyntax: Needs checks the syntax too", err)
	}
}

func TestSetsPath(t *testing.T) {
	t.Parallel()
	for script, want := range map[string]bool{
		"jq .\n": false,
		"export PATH=\"$HOME/.local/bin:$PATH\"\n":  false,
		"PATH=$PATH:/opt/bin jq .\n":                false,
		"PATH+=:/opt/bin\n":                         false,
		"export PATH\n":                             false,
		"env FOO=1 jq .\n":                          false,
		"env -u FOO jq .\n":                         false,
		"PATH=/usr/local/bin:/usr/bin:/bin\n":       true,
		"export PATH=/usr/bin:/bin\n":               true,
		"f() { local PATH=/bin; jq .; }\n":          true,
		"PATH=/bin jq .\n":                          true,
		"PATH=\n":                                   true,
		"unset PATH\n":                              true,
		"env -i jq .\n":                             true,
		"env - jq .\n":                              true,
		"env PATH=/bin jq .\n":                      true,
		"env -u PATH jq .\n":                        true,
		"x=$(PATH=/bin; jq .)\n":                    true,
		"readonly PATH=\"/usr/bin:${PATH}\"\n":      false,
		"declare -x PATH=/usr/bin\n":                true,
		"if true; then PATH=/usr/bin; fi\njq .\n":   true,
		"echo PATH=/bin\n":                          false,
		"env --ignore-environment HOME=/tmp jq .\n": true,
	} {
		f, err := Parse([]byte(script), "bash")
		if err != nil {
			t.Fatalf("%q: %v", script, err)
		}
		if got := SetsPath(f); got != want {
			t.Errorf("SetsPath(%q) = %v, want %v", script, got, want)
		}
	}
}
