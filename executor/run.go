package executor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/hookexec/hook-exec/backend"
	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/spans"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
)

// run is one attempted run, traced.
func (e *Executor) run(ctx context.Context, h *hook.Hook, event []byte) *Result {
	tr := e.newTrace(h)
	res := &Result{}
	var env *hook.Envelope
	var handler *hook.Decision
	var f *failure
	env, f = e.envelope(h, event, &tr)
	if f == nil && !h.Dialect.Host().Matches(h.Matcher, env) {
		return &Result{Decision: hook.Decision{SchemaVersion: 1, Action: hook.Allow}, Skipped: true}
	}
	// Read after the event: a hook's ledger key may name its workspace.
	disabled := f == nil && e.isDisabled(h, env)
	if f == nil && !disabled {
		f = e.gate(h, env)
		if f == nil {
			handler, f = e.attempt(ctx, h, env, event, &tr)
			e.recordCircuit(h, env, f)
		}
	}
	switch {
	case disabled:
		// Turned off by failure_policy disable: not run, the boundary goes on.
		res.Decision = hook.Decision{SchemaVersion: 1, Action: hook.Allow}
		tr.PolicyApplied = "disabled"
	case f == nil:
		res.Decision = *handler
		if handler.Action == hook.Deny && !env.CanBlock {
			// The event cannot be stopped: a deny there is observability.
			res.Decision = hook.Decision{SchemaVersion: 1, Action: hook.Allow}
			res.Warning = fmt.Sprintf("hook %s denied at %s, which cannot block: %s", h.ID, env.Point, handler.Reason)
		}
	default:
		tr.Failure = &hook.Failure{Kind: f.kind, Message: f.err.Error()}
		policy := h.FailurePolicy
		if policy == "" {
			policy = h.Dialect.Host().DefaultFailurePolicy(h.Mode, f.own)
		}
		if f.kind == hook.FailInvalidEvent && h.Mode == hook.Blocking {
			// An event hook-exec cannot read is no failure of the hook: no
			// policy lets it through, or the guard would be skipped.
			policy = hook.PolicyDeny
		}
		res.Decision, res.Warning = e.applyPolicy(h, env, policy, f)
		tr.PolicyApplied = string(policy)
	}
	if handler != nil {
		tr.HandlerAction = handler.Action
		if handler.Action == hook.Modify && env != nil {
			tr.MutationCheck = env.MutationCheck()
		}
	}
	tr.FinalAction = res.Decision.Action
	tr.DurationMS = time.Since(tr.StartedAt).Milliseconds()
	tr.Redact()
	res.Decision.Reason = hook.Redact(res.Decision.Reason)
	tr.Reason = hook.TraceReason(res.Decision.Reason)
	// What a hook wrote leaves redacted, wherever it goes next.
	if len(res.Decision.Output) > 0 {
		res.Decision.Output = hook.RedactJSON(res.Decision.Output)
	}
	if res.Decision.Extension != nil {
		res.Decision.Extension = res.Decision.Extension.Redact()
	}
	res.Warning = hook.Redact(res.Warning)
	res.Trace = tr
	if res.Warning != "" {
		e.log.WarnContext(ctx, res.Warning, "hook", h.ID, "execution", tr.ExecutionID)
	}
	if e.opts.OnTrace != nil {
		e.opts.OnTrace(tr)
	}
	spans.Run(ctx, &tr)
	return res
}

// envelope checks the event in the hook's dialect.
func (e *Executor) envelope(h *hook.Hook, event []byte, tr *hook.Trace) (*hook.Envelope, *failure) {
	if int64(len(event)) > e.opts.MaxEventBytes {
		return nil, fail(hook.FailInvalidEvent, fmt.Errorf("event is %d bytes, over the %d-byte limit", len(event), e.opts.MaxEventBytes))
	}
	env, err := hook.ParseAt(h.Dialect, h.Point, event)
	if err != nil {
		return nil, fail(hook.FailInvalidEvent, err)
	}
	tr.EventID, tr.SessionID, tr.Point, tr.TraceID = env.EventID, env.SessionID, env.Point, env.TraceID
	return env, nil
}

// attempt runs the hook and classifies what happened: the handler's valid
// decision, or the failure.
func (e *Executor) attempt(ctx context.Context, h *hook.Hook, env *hook.Envelope, event []byte, tr *hook.Trace) (_ *hook.Decision, failed *failure) {
	if err := checkHandler(h); err != nil {
		return nil, fail(hook.FailRefusedRule, err)
	}
	if h.Webhook != nil {
		return e.post(ctx, h, env, event, tr)
	}
	if h.Builtin != nil {
		return e.builtin(ctx, h, env, event, tr)
	}
	hd, f := prepareHandler(h, tr)
	if f != nil {
		return nil, f
	}
	lang, script, sh, argv := hd.lang, hd.script, hd.sh, hd.argv

	// One timeout covers everything from here: the slots, the image, the run.
	rctx, cancel := context.WithTimeout(ctx, h.Timeout)
	defer cancel()
	tr.Phases = &hook.Phases{}
	queued := time.Now()
	release, err := e.acquire(rctx, h)
	if err != nil {
		tr.Phases.Queued = time.Since(queued).Milliseconds()
		tr.TimedOut = true
		return nil, failBeforeStart(hook.FailTimeout, err)
	}
	defer release()
	files, done, f := e.openRunFiles(ctx, h, env, tr)
	if f != nil {
		return nil, f
	}
	defer done()
	envFile := files.envFile
	spec, vars, f := e.sandboxSpec(rctx, h, env, lang, sh, argv, files, tr)
	if files.removeWritable != nil {
		defer files.removeWritable()
	}
	if f != nil {
		if files.tmpData != nil {
			files.tmpData.release(true) // no sandbox was made
		}
		return nil, f
	}
	launched := time.Now()
	if envFile != nil {
		envFile.watch()
	}
	stopWatch := func() *watched { return nil }
	ws := files.watched()
	if len(ws) > 0 {
		stopWatch = watchGrowth(ws, cancel)
	}
	var out *backend.Outcome
	if e.reuse != nil && reusable(h, lang, spec, backend.RuntimeOf(e.opts.Backend)) {
		var reuseDone func(ok bool)
		if out, reuseDone, f = e.runReused(rctx, h, env, lang, spec, vars, script, event, queued, tr); reuseDone != nil {
			// Judged below; the sandbox serves again only after a run
			// without any failure.
			defer func() { reuseDone(failed == nil) }()
		}
	}
	if out == nil && f == nil {
		out, f = e.launch(rctx, h, lang, spec, vars, script, event, queued, tr)
	}
	asRoot := spec.User == sandbox.RootUser
	stillRunning := false
	if (asRoot || len(ws) > 0) && out != nil && out.Unconfirmed {
		// A process of the sandbox may still run until its removal: the
		// sweep must come after it, or a chmod 4755 could follow the scan,
		// and so must the copy back, or a file could turn into a link.
		af := e.awaitRemoval(ctx)
		stillRunning = af != nil
		f = cmp.Or(f, af)
	}
	f = e.leave(ctx, h, spec, files, launched, stillRunning, stopWatch(), f, tr)
	if f != nil {
		return nil, f
	}
	if envFile != nil {
		n, refused, err := envFile.collect(h.EnvFileOut, h.EnvFileAllow, h.Dialect.Host().Sandbox().EnvFileVar)
		if err != nil {
			return nil, fail(hook.FailEngineError, fmt.Errorf("--env-file-out %s: %w", h.EnvFileOut, err))
		}
		tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--env-file-out: %d line(s) taken", n))
		for _, r := range refused {
			tr.Loosenings = append(tr.Loosenings, "--env-file-out refused "+r)
		}
	}
	for _, n := range out.Notes {
		e.log.WarnContext(ctx, n, "hook", h.ID, "execution", tr.ExecutionID)
	}
	recordOutcome(out, tr)
	return judge(h, env, out)
}

// awaitRemoval waits, bounded, for the background removals of the
// backend's sandboxes: a failure when they do not end.
func (e *Executor) awaitRemoval(ctx context.Context) *failure {
	c, ok := e.opts.Backend.(backend.Cleaner)
	if !ok {
		return fail(hook.FailWorkspaceUnsafe, errors.New("the run was killed without a confirmed exit, and the backend cannot say when its sandbox is gone"))
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	if err := c.WaitCleanup(wctx); err != nil {
		return fail(hook.FailWorkspaceUnsafe, fmt.Errorf("the run was killed without a confirmed exit, and its sandbox's removal did not finish: %w", err))
	}
	return nil
}

// handler is what a script or command hook runs: the script's launcher
// language ("" for a command), its bytes and shell, and the sandbox's argv.
type handler struct {
	lang   launcher.Lang
	script []byte
	sh     shell
	argv   []string
}

// prepareHandler reads and checks the hook's script (its pin, its
// language, its shell's syntax) and the launcher's argv; a command is the
// sandbox's process itself, with the event alone on stdin.
func prepareHandler(h *hook.Hook, tr *hook.Trace) (handler, *failure) {
	hd := handler{argv: h.Command}
	if len(h.Command) > 0 {
		return hd, nil
	}
	s, f := loadScript(h)
	if f != nil {
		return hd, f
	}
	tr.ScriptSHA256 = s.SHA256.String()
	hd.lang, hd.script = launcher.Lang(s.Lang), s.Bytes
	var err error
	if hd.argv, err = launcher.Argv(hd.lang, len(hd.script), h.Args...); err != nil {
		return hd, fail(hook.FailRefusedRule, err)
	}
	switch hd.lang {
	case launcher.Shell:
		if hd.sh, f = shellOf(h, hd.script); f != nil {
			return hd, f
		}
		tr.Interpreter = hd.sh.name
	case launcher.Node:
		if err := launcher.NodeShebang(hd.script); err != nil {
			return hd, fail(hook.FailRefusedRule, err)
		}
		hd.sh = shell{name: "node"}
		tr.Interpreter = hd.sh.name
	}
	return hd, nil
}

// leave settles what the run leaves behind, after its sandbox (stillRunning:
// its removal was not confirmed; overflowed: what the watch ended it for,
// nil when it did not; f: the run's failure so far, which it returns,
// joined by its own): the --writable copies go back, the writable mounts
// are swept for hazards, the kept /tmp is released.
func (e *Executor) leave(ctx context.Context, h *hook.Hook, spec *sandbox.Spec, files *runFiles, launched time.Time, stillRunning bool, overflowed *watched, f *failure, tr *hook.Trace) *failure {
	// What the hook left of its --writable files goes back, whatever it
	// answered: on the host, its writes would have stayed too; but not
	// after it wrote past the bound, which ended it, nor while it may
	// still write.
	if overflowed != nil {
		f = fail(hook.FailOutputLimit, errors.New(overflowed.overflowFailed))
	}
	switch {
	case overflowed != nil && len(files.writable) > 0:
		// Nothing goes back: the copies may hold what grew past the bound.
	case stillRunning:
		for _, d := range files.writable {
			tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--writable in %s (a copy of it, read-write): nothing copied back: the sandbox's removal was not confirmed", d.rel))
		}
	default:
		for _, d := range files.writable {
			tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--writable in %s (a copy of it, read-write): %s", d.rel, strings.Join(d.copyBack(), "; ")))
		}
	}
	scanned := spec.Mounts
	if spec.TmpDir != "" {
		scanned = append(slices.Clone(scanned), sandbox.Mount{Source: spec.TmpDir, Target: "/tmp"})
	}
	for _, m := range scanned {
		if !m.ReadOnly && !m.Volume && (files.envFile == nil || m.Source != files.envFile.file) {
			// Bounded as a run is: a tree too large to scan in time fails
			// a run as root, and is listed as incomplete after any other.
			src := m.Source
			if fi, err := os.Lstat(src); err == nil && !fi.IsDir() {
				src = filepath.Dir(src) // a single file's copy: its private directory
			}
			found, err := hazards(src, launched, spec.User == sandbox.RootUser, time.Now().Add(max(h.Timeout, 30*time.Second)))
			tr.WorkspaceHazards = append(tr.WorkspaceHazards, found...)
			if err != nil && f == nil {
				// A setuid file the run left as root may be there still:
				// the run fails, loudly, whatever it answered.
				f = fail(hook.FailWorkspaceUnsafe, fmt.Errorf("%s: %w", m.Source, err))
			}
		}
	}
	// Released after the sweep: it reads the kept /tmp as this run left it.
	if files.tmpData != nil {
		emptied, err := files.tmpData.release(!stillRunning)
		files.tmpData = nil
		if err != nil {
			e.log.WarnContext(ctx, "remove the launcher's directory from the kept /tmp", "err", err)
		}
		if emptied {
			tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--tmp-data: past %d bytes or %d files, the kept /tmp was emptied after the run, as a reboot empties /tmp", maxWritableGrowBytes, maxWritableGrowEntries))
		}
	}
	return f
}

// openRunFiles makes the run's own files beside the workspace: the env
// file the hook hands variables back through, the transcript's copy; done
// removes them.
func (e *Executor) openRunFiles(ctx context.Context, h *hook.Hook, env *hook.Envelope, tr *hook.Trace) (_ *runFiles, done func(), _ *failure) {
	files := &runFiles{}
	var cleanups []func()
	done = func() {
		for _, c := range slices.Backward(cleanups) {
			c()
		}
	}
	if h.EnvFileOut != "" {
		envFile, err := newEnvOut()
		if err != nil {
			return nil, done, fail(hook.FailEngineError, err)
		}
		files.envFile = envFile
		cleanups = append(cleanups, func() {
			if err := envFile.remove(); err != nil {
				e.log.WarnContext(ctx, "remove the env file's directory", "err", err)
			}
		})
	}
	if h.Transcript {
		copied, remove, err := copyTranscript(env.TranscriptPath)
		if err != nil {
			tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--transcript: not mounted: %v", err))
		} else {
			cleanups = append(cleanups, remove)
			files.transcript = copied
			tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--transcript %s (read-only, a copy as it was at the call)", env.TranscriptPath))
		}
	}
	return files, done, nil
}

// watched are the run's directories the watch measures while it lasts:
// the --writable copies, the kept /tmp.
func (files *runFiles) watched() []watched {
	var ws []watched
	for _, d := range files.writable {
		ws = append(ws, watched{dir: d.scratch, overflowFailed: fmt.Sprintf("--writable: the hook wrote more than %d bytes or %d files in the copy of its file's directory (or made one the watch cannot read): ended, nothing copied back", maxWritableGrowBytes, maxWritableGrowEntries)})
	}
	if files.tmpData != nil {
		ws = append(ws, files.tmpData.start)
	}
	return ws
}
