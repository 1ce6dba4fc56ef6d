package builtin

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"go.uber.org/goleak"

	"github.com/hookexec/hook-exec/hook"
)

// TestMain fails the package when any test leaves a goroutine behind: a
// stopped template must have stopped, not been abandoned while it runs.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// rendered is what render answered, and how long it took.
type rendered struct {
	msg     string
	err     error
	elapsed time.Duration
}

// within runs f and fails the test when it has not returned by twice the
// timeout it runs under: without the bounds the templates here run for
// minutes (the goroutine running f then stays, and goleak says so too).
func within[T any](t *testing.T, timeout time.Duration, what string, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	start := time.Now()
	go func() { done <- f() }()
	select {
	case r := <-done:
		return r
	case <-time.After(2 * timeout):
		t.Fatalf("%s still runs %v past its %v timeout", what, time.Since(start)-timeout, timeout)
		var zero T
		return zero
	}
}

// renderWithin renders message over a write event under a context of
// timeout and a budget of steps, within twice the timeout.
func renderWithin(t *testing.T, message string, timeout time.Duration, steps int64) rendered {
	t.Helper()
	var ev eventView
	if err := json.Unmarshal(event(t, "/w", map[string]any{"path": "a.md", "content": strings.Repeat("x", 5000)}), &ev); err != nil {
		t.Fatal(err)
	}
	// The clock starts before the context's deadline does, so a render
	// stopped by that deadline never reads as shorter than it.
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return within(t, timeout, fmt.Sprintf("%q", message), func() rendered {
		msg, err := render(ctx, message, &ev, steps)
		return rendered{msg, err, time.Since(start)}
	})
}

// limitOf is the LimitError in err, failing the test without one.
func limitOf(t *testing.T, err error) *LimitError {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrMessageLimit) {
		t.Fatalf("err = %v, want a LimitError", err)
	}
	return le
}

// The ways to repeat work in a template: each ends at the step budget,
// long before the one-second timeout the plugin had.
func TestNotificationLoopsStopAtTheStepBudget(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, message string }{
		{"nested ranges over numbers", `{{range 100000}}{{range 100000}}{{end}}{{end}}`},
		{"a range over a variable", `{{$n := 100000000}}{{range $n}}{{end}}`},
		{"a range in an if in a range", `{{range 100000}}{{if true}}{{range 100000}}{{end}}{{end}}{{end}}`},
		{"a range in a range's else", `{{range 0}}{{else}}{{range 100000000}}{{end}}{{end}}`},
		{"recursion", `{{define "r"}}{{template "r"}}{{end}}{{template "r"}}`},
		{"doubling calls", `{{define "a"}}{{template "b"}}{{template "b"}}{{end}}{{define "b"}}{{template "c"}}{{template "c"}}{{end}}` +
			`{{define "c"}}{{range 100000}}{{end}}{{end}}{{range 100000}}{{template "a"}}{{end}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			timeout := time.Second
			r := renderWithin(t, tc.message, timeout, maxSteps)
			if le := limitOf(t, r.err); le.Bound != "steps" || le.Max != maxSteps {
				t.Errorf("bound %s of %d, want steps of %d", le.Bound, le.Max, maxSteps)
			}
			if r.elapsed >= timeout {
				t.Errorf("stopped after %v, not before its %v timeout", r.elapsed, timeout)
			}
			if !strings.Contains(r.err.Error(), "more than 1000 steps") {
				t.Errorf("error %q does not name the bound", r.err)
			}
		})
	}
}

// With no step budget to stop it first, the hook's context does: the
// step checks it between runs of the loop body.
func TestNotificationStopsAtItsContext(t *testing.T) {
	t.Parallel()
	timeout := time.Second
	r := renderWithin(t, `{{range 100000}}{{range 100000}}{{end}}{{end}}`, timeout, math.MaxInt64)
	if !errors.Is(r.err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", r.err)
	}
	if r.elapsed < timeout {
		t.Errorf("stopped after %v, before its %v timeout", r.elapsed, timeout)
	}
}

func TestNotificationPrintfWidths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, message, bound string
		got                  int64
	}{
		{"the issue's padding in a loop", `{{range 100000}}{{printf "%01000000d" 1}}{{end}}`, "width", 1000000},
		{"a width", `{{printf "%257s" "a"}}`, "width", 257},
		{"a precision", `{{printf "%.300f" 1.5}}`, "precision", 300},
		{"a width past fmt's own bound", `{{printf "%099999999d" 1}}`, "width", 9999999},
		{"a width from an argument", `{{printf "%0*d" 1000000 1}}`, "width", 1000000},
		{"a negative width from an argument", `{{printf "%*d" -100000 1}}`, "width", -100000},
		{"a precision from an argument", `{{printf "%.*f" 1000 1.5}}`, "precision", 1000},
		{"a width from an indexed argument", `{{printf "%[2]*[1]d" 1 5000}}`, "width", 5000},
		// %[1]2d is a bad index to fmt and takes no argument: the * after
		// it takes the first one, 5000, not the second.
		{"a width after a bad index", `{{printf "%[1]2d%*d" 5000 1}}`, "width", 5000},
		{"a width from the event", `{{printf "%0*d" (len .data.args.content) 0}}`, "width", 5000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := renderWithin(t, tc.message, time.Second, maxSteps)
			le := limitOf(t, r.err)
			if le.Bound != tc.bound || le.Func != "printf" || le.Got != tc.got || le.Max != maxWidth {
				t.Errorf("%+v, want printf's %s %d past %d", le, tc.bound, tc.got, maxWidth)
			}
		})
	}
	for message, want := range map[string]string{
		`{{printf "%05d|%*d|%-8s|%.3f" 42 3 7 "ab" 3.14159}}`: "00042|  7|ab      |3.142",
		`{{printf "%*d" 5 100000}}`:                           "100000", // a large value, a small width
		`{{printf "%256d" 1}}`:                                strings.Repeat(" ", 255) + "1",
		`{{printf "%[2]*[1]d" 7 2}}`:                          " 7",
		`{{printf "%d%%" 50}}`:                                "50%",
	} {
		if r := renderWithin(t, message, time.Second, maxSteps); r.err != nil || r.msg != want {
			t.Errorf("%s = %q, %v; want %q", message, r.msg, r.err, want)
		}
	}
}

// Values that double or grow in a loop stop at the bytes the functions
// may make in all, and the memory spent stays near that bound. Not
// parallel: it reads the allocation counter.
func TestNotificationGrowthStopsAtTheSizeBound(t *testing.T) {
	for _, tc := range []struct{ name, message, fn string }{
		{"printf", `{{$x := "ab"}}{{range 24}}{{$x = printf "%s%s" $x $x}}{{end}}{{len $x}}`, "printf"},
		{"print", `{{$x := "ab"}}{{range 24}}{{$x = print $x $x}}{{end}}{{len $x}}`, "print"},
		{"println", `{{$x := "ab"}}{{range 24}}{{$x = println $x $x}}{{end}}{{len $x}}`, "println"},
		{"html", `{{$x := "\""}}{{range 10}}{{$x = html $x $x}}{{end}}{{len $x}}`, "html"},
		{"js", `{{$x := "<"}}{{range 10}}{{$x = js $x $x}}{{end}}{{len $x}}`, "js"},
		{"urlquery", `{{$x := "<"}}{{range 16}}{{$x = urlquery $x $x}}{{end}}{{len $x}}`, "urlquery"},
		{"a wide value many times", `{{range 100000}}{{$x := printf "%0256d" 1}}{{end}}`, "printf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r := renderWithin(t, tc.message, time.Second, maxSteps)
			runtime.ReadMemStats(&after)
			if le := limitOf(t, r.err); le.Bound != "size" || le.Func != tc.fn || le.Max != maxMade {
				t.Errorf("%+v, want %s's size past %d", le, tc.fn, maxMade)
			}
			if spent := after.TotalAlloc - before.TotalAlloc; spent > 16<<20 {
				t.Errorf("spent %d MiB, want at most 16", spent>>20)
			}
		})
	}
}

// Output past what is delivered stops the template: the message is cut
// there (on a rune boundary) and delivered.
func TestNotificationOutputStopsAtTheCap(t *testing.T) {
	t.Parallel()
	for message, unit := range map[string]string{
		`{{range 100000}}{{range 100000}}0123456789{{end}}{{end}}`: "0123456789",
		`{{range 100000}}{{range 100000}}ééé{{end}}{{end}}`:        "é",
	} {
		r := renderWithin(t, message, time.Second, math.MaxInt64)
		if r.err != nil {
			t.Errorf("%s: %v", message, r.err)
			continue
		}
		if len(r.msg) > maxMessage || len(r.msg) < maxMessage-len(unit) || !utf8.ValidString(r.msg) || strings.Trim(r.msg, unit) != "" {
			t.Errorf("%s: %d bytes (valid UTF-8 %v), want %d of %q", message, len(r.msg), utf8.ValidString(r.msg), maxMessage, unit)
		}
	}
}

// Through Run as the executor calls it: the file gets the cut message; a
// bound met is an error that names it.
func TestNotificationRunBounded(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "n.log")
	ev := event(t, "/w", map[string]any{"path": "a.md"})
	run := func(ctx context.Context, message string) error {
		t.Helper()
		opts, _ := json.Marshal(map[string]string{"message": message, "to": "file", "path": out})
		return within(t, time.Second, message, func() error {
			_, err := Run(ctx, "notification", opts, ev, Env{})
			return err
		})
	}
	if err := run(context.Background(), `{{range 100000}}{{$.point}} {{end}}`); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(out)
	if len(got) != maxMessage+1 || !strings.HasPrefix(string(got), "file.before_write file.before_write") {
		t.Errorf("delivered %d bytes %.40q..., want %d of the points and a newline", len(got), got, maxMessage)
	}
	if le := limitOf(t, run(context.Background(), `{{range 100000}}{{range 100000}}{{end}}{{end}}`)); le.Bound != "steps" {
		t.Errorf("bound %s, want steps", le.Bound)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := run(ctx, `{{.point}}`); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run: err = %v, want context.Canceled", err)
	}
}

func TestNotificationMessageSize(t *testing.T) {
	t.Parallel()
	long, _ := json.Marshal(map[string]string{"message": strings.Repeat("x", maxTemplate+1)})
	err := Check("notification", long, hook.Observational)
	if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "4097 bytes, more than 4096") {
		t.Errorf("err = %v, want ErrOptions naming the size", err)
	}
}

func TestCheckUntrusted(t *testing.T) {
	t.Parallel()
	opts := func(message, to string) []byte {
		b, _ := json.Marshal(map[string]string{"message": message, "to": to})
		return b
	}
	for _, tc := range []struct{ name, message, to, rule string }{
		{"a file", "x", "file", "may only go to the error output"},
		{"a webhook", "x", "webhook", "may only go to the error output"},
		{"a range over a number", `{{range 100000}}{{end}}`, "", "m:1:8: range over 100000: a project or plugin message ranges only over a field of the event"},
		{"a range over a declared number", `{{range $i := 5}}{{$i}}{{end}}`, "", "range over $i := 5"},
		{"a range over a variable", `{{$n := 100000}}{{range $n}}{{end}}`, "", "range over $n"},
		{"a range over a function's result", `{{range len .data.args.content}}{{end}}`, "", "range over len .data.args.content"},
		{"a range over dot", `{{with 5}}{{range .}}{{end}}{{end}}`, "", "range over ."},
		{"a range in a range", `{{range .data.args}}{{range $.data.args}}{{end}}{{end}}`, "", "m:1:28: a range in a range"},
		{"a range in an if in a range", `{{range .data.args}}{{if .}}{{range $.data.args}}{{end}}{{end}}{{end}}`, "", "a range in a range"},
		{"a range in a defined template", `{{define "d"}}{{range 5}}{{end}}{{end}}`, "", "range over 5"},
		{"a template call", `{{define "r"}}x{{end}}{{template "r"}}`, "", `{{template "r"}}: a project or plugin message calls no template`},
		{"a block", `{{block "b" .}}x{{end}}`, "", "calls no template"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := CheckUntrusted("notification", opts(tc.message, tc.to))
			if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), tc.rule) {
				t.Errorf("err = %v, want ErrUntrusted naming %q", err, tc.rule)
			}
			// An owner's document may hold it: the runtime bounds apply.
			if tc.to == "" {
				if err := Check("notification", opts(tc.message, ""), hook.Observational); err != nil {
					t.Errorf("owner: %v", err)
				}
			}
		})
	}
	for _, message := range []string{
		"approval requested in session {{.session_id}} for {{.data.tool_name}}",
		`{{range $k, $v := .data.args}}{{$k}}={{$v}} {{end}}`,
		`{{with .data}}{{range .args}}{{.}}{{end}}{{end}}{{range .data.args}}again{{end}}`,
		`{{range .data.args}}{{else}}{{range .data.args}}{{end}}{{end}}`, // the else runs once
		`{{printf "%.40s" .data.args.content}}`,
	} {
		if err := CheckUntrusted("notification", opts(message, "stderr")); err != nil {
			t.Errorf("%s: %v", message, err)
		}
	}
	if err := CheckUntrusted("audit", nil); err != nil {
		t.Errorf("audit: %v", err)
	}
}

// FuzzCheckFormat: a format checkFormat lets through never pads or
// extends past maxWidth per verb, whatever fmt makes of it.
func FuzzCheckFormat(f *testing.F) {
	for _, s := range []string{"%01000000d", "%.300f", "%0*d", "%*d", "%.*f", "%[2]*[1]d", "%[1]2d%*d", "%05d|%*d|%-8s|%.3f",
		"%[3]*.[2]*[1]f", "%[1]*d", "%.[2]*d", "%-*[2]d", "%[0]*d", "%[99]*d", "%[1]2.*d", "%!", "%", "%.", "%*", "%[", "%[1", "%[]d"} {
		f.Add(s, 1000000, 5, "abc")
	}
	f.Fuzz(func(t *testing.T, format string, a, b int, s string) {
		args := []any{a, b, s, uint(b)}
		if checkFormat(format, args) != nil {
			return
		}
		out := fmt.Sprintf(format, args...)
		// Each verb: a width and a precision at most maxWidth each, a
		// value quoted (10 bytes a byte at worst), an error mark.
		verbs := strings.Count(format, "%") + 1
		if bound := len(format) + verbs*(2*maxWidth+10*len(s)+64) + 128 + 10*len(s); len(out) > bound {
			t.Fatalf("%q with %v let through: %d bytes, more than %d", format, args, len(out), bound)
		}
	})
}

// FuzzNotificationMessage: whatever the message, it answers within its
// context (plus as much again) and delivers at most maxMessage bytes.
func FuzzNotificationMessage(f *testing.F) {
	for _, s := range []string{
		`{{range 100000}}{{range 100000}}{{end}}{{end}}`, `{{range 100000}}{{printf "%01000000d" 1}}{{end}}`,
		`{{define "r"}}{{template "r"}}{{end}}{{template "r"}}`, `{{$x := "ab"}}{{range 24}}{{$x = printf "%s%s" $x $x}}{{end}}`,
		`{{range $k, $v := .data.args}}{{$k}}={{$v}} {{end}}`, `{{.point}} by {{.data.tool_name}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, message string) {
		if r := renderWithin(t, message, time.Second, maxSteps); len(r.msg) > maxMessage {
			t.Fatalf("%q delivered %d bytes", message, len(r.msg))
		}
	})
}
