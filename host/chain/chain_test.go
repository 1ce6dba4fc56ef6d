package chain

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
)

// answers answers a command hook by its program's name, without a
// process, and records the stdin each run read.
type answers struct {
	mu    sync.Mutex
	stdin []string
}

var answerOf = map[string]string{
	"allow":  `{"schema_version":1,"action":"allow"}`,
	"deny":   `{"schema_version":1,"action":"deny","reason":"no"}`,
	"modify": `{"schema_version":1,"action":"modify","mutations":{"args":{"n":2}}}`,
}

func (*answers) Name() string    { return "fake" }
func (*answers) Isolating() bool { return false }
func (*answers) Close() error    { return nil }
func (a *answers) Run(_ context.Context, r *backend.Run) (*backend.Outcome, error) {
	a.mu.Lock()
	a.stdin = append(a.stdin, string(r.Stdin))
	a.mu.Unlock()
	return &backend.Outcome{Stdout: []byte(answerOf[r.Spec.Argv[0]])}, nil
}

const event = `{"schema_version":1,"point":"tool.before","depth":0,"data":{"args":{"n":1}}}`

// rewrite replaces the event with what a modify's args say, as a host
// applies its rewrite.
func rewrite(_ int, _ string, ev []byte, d hook.Decision) ([]byte, error) {
	if d.Action != hook.Modify {
		return ev, nil
	}
	return []byte(strings.Replace(string(ev), `{"n":1}`, `{"n":2}`, 1)), nil
}

func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		links []string
		// skip and stop name the links the host's rules pass over or end at.
		skip, stop string
		ran        []string // what each run read: "1" the event as given, "2" rewritten
		final      string
	}{
		{"each link sees the rewrite before it", []string{"modify", "allow"}, "", "", []string{"1", "2"}, "2"},
		{"the first deny ends the chain", []string{"allow", "deny", "modify"}, "", "", []string{"1", "1"}, "1"},
		{"a skipped link does not run", []string{"skipme", "modify"}, "skipme", "", []string{"1"}, "2"},
		{"the host's stop ends the chain before the link", []string{"modify", "stopme", "allow"}, "", "stopme", []string{"1"}, "2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &answers{}
			ex, err := executor.New(executor.Options{Backend: b})
			if err != nil {
				t.Fatal(err)
			}
			var after []string
			final, err := Run(context.Background(), ex, tc.links, []byte(event), Options[string]{
				Hook: func(_ int, l string, _ []byte) (hook.Hook, Step) {
					switch l {
					case tc.skip:
						return hook.Hook{}, Skip
					case tc.stop:
						return hook.Hook{}, Stop
					}
					return hook.Hook{ID: l, Command: []string{l}}, Next
				},
				After: func(_ int, l string, r *executor.Result) (Step, error) {
					after = append(after, l+":"+string(r.Decision.Action))
					return Next, nil
				},
				Rewrite: rewrite,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(b.stdin) != len(tc.ran) {
				t.Fatalf("ran %d hooks (%v), want %d", len(b.stdin), after, len(tc.ran))
			}
			for i, want := range tc.ran {
				if !strings.Contains(b.stdin[i], `{"n":`+want+`}`) {
					t.Errorf("run %d read %s, want n %s", i, b.stdin[i], want)
				}
			}
			if !strings.Contains(string(final), `{"n":`+tc.final+`}`) {
				t.Errorf("final event %s, want n %s", final, tc.final)
			}
		})
	}
}

// A hook the executor cannot run ends the chain with a RunError naming
// the link and the event as it stood.
func TestRunError(t *testing.T) {
	t.Parallel()
	ex, err := executor.New(executor.Options{Backend: &answers{}})
	if err != nil {
		t.Fatal(err)
	}
	links := []string{"modify", "broken", "allow"}
	_, err = Run(context.Background(), ex, links, []byte(event), Options[string]{
		Hook: func(_ int, l string, _ []byte) (hook.Hook, Step) {
			if l == "broken" {
				return hook.Hook{ID: l, Scope: "nobody", Command: []string{l}}, Next
			}
			return hook.Hook{ID: l, Command: []string{l}}, Next
		},
		Rewrite: rewrite,
	})
	var re *RunError
	if !errors.As(err, &re) || re.Index != 1 || !strings.Contains(string(re.Event), `{"n":2}`) || !errors.Is(err, hook.ErrInvalid) {
		t.Fatalf("err %v (%+v), want a RunError at link 1 on the rewritten event, of class ErrInvalid", err, re)
	}
}
