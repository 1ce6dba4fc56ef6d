package dispatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

	"github.com/hookexec/hook-exec/backend/local"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/host/registry"
)

// These tests run owner hooks (session documents) on the local backend:
// real processes, the chain's logic; the e2e suites run the same on the
// container engines with plugin hooks.

const writeEvent = `{"schema_version":1,"event_id":"e1","point":"tool.before","session_id":"s1","depth":0,
"data":{"tool_name":"write_file","category":"fs.write","args":{"path":"notes.md","content":"hi"}}}`

// scripts writes name -> body into a new directory.
func scripts(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func hookDoc(id string, order int, mode, script, extra string) string {
	return fmt.Sprintf(`{"schema_version":1,"id":%q,"point":"tool.before","scope":"session","order":%d,"mode":%q,"handler":{"kind":"script","script":%q%s}}`,
		id, order, mode, script, extra)
}

func newDispatcher(t *testing.T, ledger executor.Ledger) (*Dispatcher, *executor.Executor) {
	t.Helper()
	ex, err := executor.New(executor.Options{Backend: local.New(), Ledger: ledger})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ex.Shutdown(context.Background()) })
	d, err := New(Options{Executor: ex})
	if err != nil {
		t.Fatal(err)
	}
	return d, ex
}

func snapshotOf(t *testing.T, dir string, defs ...string) *registry.Snapshot {
	t.Helper()
	snap, err := registry.Take(registry.Sources{Session: []byte("[" + strings.Join(defs, ",") + "]"), SessionDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func argsOf(t *testing.T, event []byte) map[string]any {
	t.Helper()
	var ev struct {
		Data struct {
			Args map[string]any `json:"args"`
		} `json:"data"`
	}
	if err := json.Unmarshal(event, &ev); err != nil {
		t.Fatal(err)
	}
	return ev.Data.Args
}

const (
	rewrite = `cat >/dev/null; echo '{"schema_version":1,"action":"modify","reason":"move","mutations":{"args":{"path":"protected/notes.md","content":"hi"}}}'`
	allow   = `cat >/dev/null; echo '{"schema_version":1,"action":"allow"}'`
	deny    = `cat >/dev/null; echo '{"schema_version":1,"action":"deny","reason":"protected"}'`
	approve = `cat >/dev/null; echo '{"schema_version":1,"action":"request_approval","reason":"ask"}'`
)

func TestRewriteThenGuard(t *testing.T) {
	dir := scripts(t, map[string]string{"rewrite.sh": rewrite, "guard.sh": deny, "after.sh": allow})
	snap := snapshotOf(t, dir,
		hookDoc("rewrite", 1, "blocking", "rewrite.sh", ""),
		// Filtered to protected/**: the event as given does not match it.
		`{"schema_version":1,"id":"guard","point":"tool.before","scope":"session","order":2,"filters":{"paths":["protected/**"]},"handler":{"kind":"script","script":"guard.sh"}}`,
		hookDoc("after", 3, "blocking", "after.sh", ""))
	d, _ := newDispatcher(t, nil)
	res, err := d.Dispatch(context.Background(), snap, "tool.before", []byte(writeEvent))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Action != hook.Deny {
		t.Errorf("action = %s, want deny (the guard saw the rewritten path)", res.Decision.Action)
	}
	if res.Decision.Reason != "protected" {
		t.Errorf("reason = %q", res.Decision.Reason)
	}
	var ran []string
	for _, tr := range res.Traces {
		ran = append(ran, tr.HookID)
	}
	if diff := cmp.Diff([]string{"rewrite", "guard"}, ran); diff != "" {
		t.Errorf("hooks run (-want +got):\n%s", diff)
	}
	if got := argsOf(t, res.Event)["path"]; got != "protected/notes.md" {
		t.Errorf("final event path = %v, want the rewritten one", got)
	}
}

func TestModifyIsTheFinalDecision(t *testing.T) {
	dir := scripts(t, map[string]string{"rewrite.sh": rewrite, "after.sh": allow})
	snap := snapshotOf(t, dir, hookDoc("rewrite", 1, "blocking", "rewrite.sh", ""), hookDoc("after", 2, "blocking", "after.sh", ""))
	d, _ := newDispatcher(t, nil)
	res, err := d.Dispatch(context.Background(), snap, "tool.before", []byte(writeEvent))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Action != hook.Modify {
		t.Fatalf("action = %s, want modify", res.Decision.Action)
	}
	var muts map[string]map[string]any
	if err := json.Unmarshal(res.Decision.Mutations, &muts); err != nil {
		t.Fatal(err)
	}
	if got := muts["args"]["path"]; got != "protected/notes.md" {
		t.Errorf("mutations args.path = %v", got)
	}
	if len(res.Traces) != 2 {
		t.Errorf("%d traces, want 2: a modify does not end the chain", len(res.Traces))
	}
}

func TestApprovalEndsTheChain(t *testing.T) {
	dir := scripts(t, map[string]string{"ask.sh": approve, "never.sh": deny})
	snap := snapshotOf(t, dir, hookDoc("ask", 1, "blocking", "ask.sh", ""), hookDoc("never", 2, "blocking", "never.sh", ""))
	d, _ := newDispatcher(t, nil)
	res, err := d.Dispatch(context.Background(), snap, "tool.before", []byte(writeEvent))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Action != hook.RequestApproval {
		t.Errorf("action = %s, want request_approval", res.Decision.Action)
	}
	if len(res.Traces) != 1 {
		t.Errorf("%d traces, want 1: nothing runs after request_approval", len(res.Traces))
	}
}

func TestObserverSeesFinalEventAndCannotDeny(t *testing.T) {
	out := filepath.Join(t.TempDir(), "seen.json")
	dir := scripts(t, map[string]string{
		"rewrite.sh": rewrite,
		"observe.sh": `cat > "$OUT"; echo '{"schema_version":1,"action":"deny","reason":"observers cannot"}'`,
	})
	snap := snapshotOf(t, dir,
		hookDoc("observe", 0, "observational", "observe.sh", `,"env":{"OUT":"`+out+`"}`),
		hookDoc("rewrite", 5, "blocking", "rewrite.sh", ""))
	var traces = make(chan hook.Trace, 4)
	ex, err := executor.New(executor.Options{Backend: local.New(), OnTrace: func(tr hook.Trace) { traces <- tr }})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := New(Options{Executor: ex})
	res, err := d.Dispatch(context.Background(), snap, "tool.before", []byte(writeEvent))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Action != hook.Modify {
		t.Errorf("action = %s, want modify: an observer cannot deny", res.Decision.Action)
	}
	if res.Observers != 1 {
		t.Errorf("observers = %d, want 1", res.Observers)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := ex.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	seen, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := argsOf(t, seen)["path"]; got != "protected/notes.md" {
		t.Errorf("observer saw path %v, want the final (rewritten) one", got)
	}
	var observed *hook.Trace
	for len(traces) > 0 {
		tr := <-traces
		if tr.HookID == "observe" {
			observed = &tr
		}
	}
	if observed == nil {
		t.Fatal("no trace of the observer")
	}
	if observed.Failure == nil || observed.Failure.Kind != hook.FailInvalidDecision {
		t.Errorf("observer's deny traced as %+v, want an invalid_decision failure", observed.Failure)
	}
}

func TestCircuitAcrossExecutors(t *testing.T) {
	state := t.TempDir()
	dir := scripts(t, map[string]string{"fail.sh": `cat >/dev/null; exit 1`})
	snap := snapshotOf(t, dir, `{"schema_version":1,"id":"flaky","point":"tool.before","scope":"session","failure_policy":"continue","handler":{"kind":"script","script":"fail.sh"}}`)
	var kinds []hook.FailureKind
	for i := 0; i < 4; i++ {
		// A new executor each time, as each `hook-exec dispatch` process has.
		d, _ := newDispatcher(t, StateLedger(state))
		res, err := d.Dispatch(context.Background(), snap, "tool.before", []byte(writeEvent))
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Traces) != 1 || res.Traces[0].Failure == nil {
			t.Fatalf("dispatch %d: traces %+v, want one failure", i+1, res.Traces)
		}
		kinds = append(kinds, res.Traces[0].Failure.Kind)
	}
	want := []hook.FailureKind{hook.FailExitNonzero, hook.FailExitNonzero, hook.FailExitNonzero, hook.FailCircuitOpen}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("failure kinds across four executors (-want +got):\n%s", diff)
	}
}

func TestEventRefusals(t *testing.T) {
	d, _ := newDispatcher(t, nil)
	dir := scripts(t, map[string]string{"guard.sh": deny})
	snap := snapshotOf(t, dir, hookDoc("guard", 1, "blocking", "guard.sh", ""))
	if _, err := d.Dispatch(context.Background(), snap, "file.before_write", []byte(writeEvent)); !errors.Is(err, ErrEvent) {
		t.Errorf("an event of another point: err = %v, want ErrEvent", err)
	}
	if _, err := d.Dispatch(context.Background(), snap, "tool.during", []byte(writeEvent)); !errors.Is(err, hook.ErrInvalid) {
		t.Errorf("an unknown point: err = %v, want hook.ErrInvalid", err)
	}
	if _, err := d.Dispatch(context.Background(), snap, "tool.before", []byte(`{"schema_version":1`)); !errors.Is(err, ErrEvent) {
		t.Errorf("a broken event: err = %v, want ErrEvent", err)
	}
}

func TestCommandHandlerNoShell(t *testing.T) {
	// The argument holds shell syntax: with no shell it reaches echo as is.
	literal := "$(id) ; `uname` | x && y > /tmp/z"
	doc := fmt.Sprintf(`{"schema_version":1,"id":"cmd","point":"tool.before","scope":"session","handler":{"kind":"command","command":["echo",%q]}}`,
		`{"schema_version":1,"action":"deny","reason":"`+literal+`"}`)
	snap := snapshotOf(t, t.TempDir(), doc)
	d, _ := newDispatcher(t, nil)
	res, err := d.Dispatch(context.Background(), snap, "tool.before", []byte(writeEvent))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Action != hook.Deny {
		t.Fatalf("action = %s (traces %+v), want deny", res.Decision.Action, res.Traces)
	}
	if res.Decision.Reason != literal {
		t.Errorf("reason = %q, want the argument verbatim %q", res.Decision.Reason, literal)
	}
	if res.Traces[0].ScriptSHA256 != "" {
		t.Errorf("a command's trace carries a script digest %q", res.Traces[0].ScriptSHA256)
	}
}

func TestCommandHandlerReadsTheEvent(t *testing.T) {
	doc := `{"schema_version":1,"id":"cmd","point":"tool.before","scope":"session","handler":{"kind":"command","command":["sh","-c","grep -q notes.md && echo '{\"schema_version\":1,\"action\":\"deny\",\"reason\":\"saw it\"}'"]}}`
	d, _ := newDispatcher(t, nil)
	res, err := d.Dispatch(context.Background(), snapshotOf(t, t.TempDir(), doc), "tool.before", []byte(writeEvent))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Reason != "saw it" {
		t.Errorf("decision %+v, want the deny of a command that read the event on stdin", res.Decision)
	}
}

func TestCommandHandlerMissingProgram(t *testing.T) {
	doc := `{"schema_version":1,"id":"cmd","point":"tool.before","scope":"session","failure_policy":"continue","handler":{"kind":"command","command":["no-such-program-hookexec"]}}`
	d, _ := newDispatcher(t, nil)
	res, err := d.Dispatch(context.Background(), snapshotOf(t, t.TempDir(), doc), "tool.before", []byte(writeEvent))
	if err != nil {
		t.Fatal(err)
	}
	f := res.Traces[0].Failure
	if f == nil || f.Kind != hook.FailMissingProgram || !strings.Contains(f.Message, "no-such-program-hookexec") {
		t.Errorf("failure %+v, want missing_program naming the program", f)
	}
}

func TestWebhookHandler(t *testing.T) {
	var posted []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posted, _ = io.ReadAll(r.Body)
		io.WriteString(w, `{"schema_version":1,"action":"deny","reason":"remote policy"}`)
	}))
	defer srv.Close()
	moved := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, srv.URL, http.StatusFound)
	}))
	defer moved.Close()
	dir := scripts(t, map[string]string{"rewrite.sh": rewrite})
	doc := func(url, extra string) string {
		return fmt.Sprintf(`{"schema_version":1,"id":"remote","point":"tool.before","scope":"session","order":5%s,"handler":{"kind":"webhook","url":%q,"headers":{"X-Hook":"guard"}}}`, extra, url)
	}
	d, _ := newDispatcher(t, nil)
	res, err := d.Dispatch(context.Background(), snapshotOf(t, dir, hookDoc("rewrite", 1, "blocking", "rewrite.sh", ""), doc(srv.URL, "")), "tool.before", []byte(writeEvent))
	if err != nil {
		t.Fatal(err)
	}
	if res.Decision.Reason != "remote policy" {
		t.Errorf("decision %+v (traces %+v), want the webhook's deny", res.Decision, res.Traces)
	}
	if got := argsOf(t, posted)["path"]; got != "protected/notes.md" {
		t.Errorf("the webhook got path %v, want the event as the hook before it left it", got)
	}
	res, err = d.Dispatch(context.Background(), snapshotOf(t, dir, doc(moved.URL, `,"failure_policy":"continue"`)), "tool.before", []byte(writeEvent))
	if err != nil {
		t.Fatal(err)
	}
	f := res.Traces[0].Failure
	if f == nil || f.Kind != hook.FailWebhook || !strings.Contains(f.Message, "not followed") {
		t.Errorf("redirect: failure %+v, want webhook_error saying it was not followed", f)
	}
	if res.Decision.Action != hook.Allow {
		t.Errorf("redirect with failure_policy continue: action %s", res.Decision.Action)
	}
}
