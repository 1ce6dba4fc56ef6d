package executor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hookexec/hook-exec/hook"
	"github.com/hookexec/hook-exec/internal/shellsyntax"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/sandbox"
	"github.com/hookexec/hook-exec/scriptpin"
)

// runFiles are the run's own files beside the workspace: the env file's,
// the transcript's copy, and (filled by sandboxSpec, which knows the
// workspace) the --writable files' copies.
type runFiles struct {
	envFile        *envOut
	transcript     string
	writable       []*writableDir
	removeWritable func()
	// tmpData is the run's hold on the hook's kept /tmp (--tmp-data),
	// released after the run.
	tmpData *keptTmp
}

// sandboxSpec describes the run's sandbox: image, launcher argv, the
// environment, limits, labels and mounts.
func (e *Executor) sandboxSpec(ctx context.Context, h *hook.Hook, env *hook.Envelope, lang launcher.Lang, sh shell, argv []string, files *runFiles, tr *hook.Trace) (*sandbox.Spec, []string, *failure) {
	envFile, transcript := files.envFile, files.transcript
	mounts, ws, err := mountOptions(h, env)
	if err != nil {
		return nil, nil, fail(hook.FailRefusedRule, err)
	}
	// Seed 000: a plugin's script lies "inside the plugin's own installed
	// directory, never in the session workspace", which the session can
	// write.
	if script := filepath.Join(h.PluginDir, h.Script); h.Scope == hook.ScopePlugin && h.Script != "" && ws != "" && (within(ws, script) || within(realPath(ws), realPath(script))) {
		return nil, nil, fail(hook.FailRefusedRule, fmt.Errorf("%w: plugin script %s is in the session's workspace %s: a plugin's script runs from the plugin's own directory, never the workspace", hook.ErrInvalid, script, ws))
	}
	image, f := e.image(ctx, h, lang, sh)
	if f != nil {
		return nil, nil, f
	}
	tr.Image = image
	event := env.EnvVars(h.ID)
	rules := h.Dialect.Host().Sandbox()
	tr.Cwd = workingDir(h, env, ws)
	if tr.Cwd == "" && lang == "" && ws != "" && !e.opts.Backend.Isolating() {
		// Seed 000: a handler run on the host has the workspace for its
		// working directory (whose PATH entries it then loses).
		tr.Cwd = ws
	}
	if tr.Cwd != "" && lang != "" {
		event[launcher.CwdVar] = tr.Cwd // the launcher's to read (a command's working directory is the sandbox's)
	}
	if sh.name != "" && sh.name != "sh" {
		event[launcher.ShellVar], event[launcher.ShellFlagsVar] = sh.name, sh.flags
	}
	if rules.HomeDir != "" && lang != "" {
		event[launcher.HomeDirVar] = rules.HomeDir
	}
	if len(sh.needs) > 0 {
		event[launcher.NeedsVar] = strings.Join(sh.needs, " ")
		if sh.setsPath {
			event[launcher.NeedsNowVar] = "1" // a stand-in last on the PATH it was given could be lost
		}
	}
	if lang == launcher.Node {
		event[launcher.ExtVar] = launcher.NodeExt(h.Script)
	}
	if (lang == launcher.Shell || lang == launcher.Node) && e.opts.Backend.Isolating() && !h.TmpData {
		event[launcher.DisposableVar] = "1" // a container is removed after its run (and its /tmp with it)
	}
	trees, f := treeMounts(h, lang, ws, event, tr)
	if f != nil {
		return nil, nil, f
	}
	mounts = append(mounts, trees...)
	if transcript != "" {
		mounts = append(mounts, sandbox.WithMount(sandbox.Mount{Source: transcript, Target: env.TranscriptPath}))
	}
	writable := h.Writable
	if rel := editedInWorkspace(h, env, ws); rel != "" {
		writable = append(slices.Clone(writable), rel)
		tr.Loosenings = append(tr.Loosenings, "--writable-edited-file "+rel)
	}
	// On the host, a hook writes its files itself.
	if (len(writable) > 0 || h.PluginData != "" || h.TmpData) && e.opts.Backend.Isolating() {
		more, f := e.writableMounts(h, lang, ws, writable, event, files, tr)
		if f != nil {
			return nil, nil, f
		}
		mounts = append(mounts, more...)
	}
	if envFile != nil {
		mounts = append(mounts, sandbox.WithWritableMount(sandbox.Mount{Source: envFile.file, Target: EnvFileTarget}))
		event[rules.EnvFileVar] = EnvFileTarget
	}
	if len(h.Args) > 0 {
		tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--arg: %d script argument(s)", len(h.Args)))
	}
	for _, m := range h.Mounts {
		if m.ReadOnly {
			tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--mount %s:%s:ro", m.Source, m.Target))
		}
	}
	vars, err := sandbox.Env(h.Env, event, hook.VarPrefixes())
	if err != nil {
		return nil, nil, fail(hook.FailRefusedRule, err)
	}
	if ws != "" && e.opts.Backend.Isolating() {
		// git reads the mounted project as the user's own (on the host, a
		// hook runs as the user already, under their own configuration).
		if vars, err = sandbox.GitSafeDirectory(vars, ws); err != nil {
			return nil, nil, fail(hook.FailRefusedRule, err)
		}
	}
	opts := append([]sandbox.Option{sandbox.WithEnv(vars), sandbox.WithLimits(h.Memory, h.Pids, h.NanoCPUs),
		sandbox.WithLabels(map[string]string{sandbox.LabelExecution: tr.ExecutionID})}, mounts...)
	if lang == "" && tr.Cwd != "" {
		opts = append(opts, sandbox.WithWorkingDir(tr.Cwd)) // a command starts where its host would start it
	}
	spec, err := sandbox.New(image, argv, opts...)
	if err != nil {
		return nil, nil, fail(hook.FailRefusedRule, err)
	}
	if spec.TmpDir != "" {
		for _, m := range spec.Mounts {
			if strings.HasPrefix(filepath.Clean(m.Target), "/tmp/") {
				// The engine would make its mount point in the kept /tmp,
				// root's, where the runs that share it race to replace it.
				return nil, nil, fail(hook.FailRefusedRule, fmt.Errorf("%w: %s is mounted below /tmp, in the hook's kept /tmp: keep the project (and the host's home) out of /tmp", ErrTmpData, m.Target))
			}
		}
	}
	return spec, vars, nil
}

// pluginRoot checks the plugin's tree (an absolute directory reached by no
// link), hashes its whole content into the trace and, pinned, refuses it
// changed.
func pluginRoot(h *hook.Hook, tr *hook.Trace) (string, *failure) {
	root, err := checkDir(h.PluginRoot)
	if err != nil {
		return "", fail(hook.FailRefusedRule, err)
	}
	d, err := scriptpin.TreeDigest(root)
	if err != nil {
		return "", fail(hook.FailRefusedRule, err)
	}
	tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--plugin-root %s (tree sha256 %s)", root, d))
	if h.PluginRootSHA256 != "" && h.PluginRootSHA256 != d.String() {
		return "", fail(hook.FailRefusedChanged, fmt.Errorf("%w: %s changed: its tree is sha256 %s, not the pinned %s", scriptpin.ErrTree, root, d, h.PluginRootSHA256))
	}
	return root, nil
}

// scriptRoot checks the script's tree (an absolute directory reached by no
// link, holding the script) and refuses it when it is not the pinned one:
// a file beside the script that changed is the script's change.
func scriptRoot(h *hook.Hook, tr *hook.Trace) (string, *failure) {
	root, err := checkDir(h.ScriptRoot)
	if err != nil {
		return "", fail(hook.FailRefusedRule, err)
	}
	if !within(root, filepath.Join(h.PluginDir, h.Script)) || root != h.ScriptRoot {
		return "", fail(hook.FailRefusedRule, fmt.Errorf("%w: --script-root %s does not hold the script %s", hook.ErrInvalid, h.ScriptRoot, h.Script))
	}
	d, err := scriptpin.ScriptTreeDigest(root, h.ScriptRootOthers...)
	if err != nil {
		return "", fail(hook.FailRefusedRule, err)
	}
	tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--script-root %s (tree sha256 %s)", root, d))
	if h.ScriptRootSHA256 != "" && h.ScriptRootSHA256 != d.String() {
		err := fmt.Errorf("%w: a file beside the script in %s changed: its tree is sha256 %s, not the pinned %s", scriptpin.ErrChanged, root, d, h.ScriptRootSHA256)
		if h.ApproveWith != "" {
			err = fmt.Errorf("%w; to approve it as it is now: %s", err, h.ApproveWith)
		}
		return "", fail(hook.FailRefusedChanged, err)
	}
	return root, nil
}

// realPath is path with its links resolved, itself when it does not
// resolve.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// within reports whether path is dir or below it (both clean and absolute).
func within(dir, path string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}

// shell is the shell that runs a .sh script, its option word, the
// programs the script cannot run without (shellsyntax.Needs), and whether
// it sets a PATH of its own (shellsyntax.SetsPath): then those its image
// lacks are judged before it starts, not when it calls them.
type shell struct {
	name, flags string
	needs       []string
	setsPath    bool
}

// shellOf is the shell a .sh script runs under: for a host that runs a
// script by its #! line (Sandbox.Shebang), the shell that line names;
// for the others sh, whatever the #! line says. The
// script must parse as that shell's language: syntax it lacks is refused
// here, naming the line, not left to a syntax error at run time.
func shellOf(h *hook.Hook, script []byte) (shell, *failure) {
	sh := shell{name: "sh"}
	if h.Dialect.Host().Sandbox().Shebang {
		name, flags, err := launcher.HostShell(h.Script, script)
		if err != nil {
			return shell{}, fail(hook.FailRefusedRule, err)
		}
		if name != "" {
			sh = shell{name: name, flags: flags}
		}
	}
	f, err := shellsyntax.Parse(script, sh.name)
	if err != nil {
		return shell{}, fail(hook.FailRefusedRule, err)
	}
	sh.needs, _ = shellsyntax.NeedsOf(f)
	sh.setsPath = len(sh.needs) > 0 && shellsyntax.SetsPath(f)
	return sh, nil
}

// loadScript re-reads the pinned script. With a pin, bytes that no longer
// pass (changed, swapped for a link, grown, gone) mean the approved script
// changed; a path that could never pass breaks a rule.
func loadScript(h *hook.Hook) (*scriptpin.Script, *failure) {
	if h.SHA256 == "" {
		read := scriptpin.Read
		if h.Dialect.Host().Sandbox().Shebang {
			read = scriptpin.ReadShebang // any file, run by its #! line
		}
		s, err := read(h.PluginDir, h.Script)
		if err != nil {
			return nil, fail(hook.FailRefusedRule, err)
		}
		return s, nil
	}
	pin, err := scriptpin.ParseDigest(h.SHA256)
	if err != nil {
		return nil, fail(hook.FailRefusedRule, err)
	}
	load := scriptpin.Load
	if h.Dialect.Host().Sandbox().Shebang {
		load = scriptpin.LoadShebang
	}
	s, err := load(h.PluginDir, h.Script, pin)
	switch {
	case err == nil:
		return s, nil
	case errors.Is(err, scriptpin.ErrAbsolute), errors.Is(err, scriptpin.ErrEscape), errors.Is(err, scriptpin.ErrExtension):
		return nil, fail(hook.FailRefusedRule, err)
	case h.ApproveWith != "" && errors.Is(err, scriptpin.ErrChanged):
		return nil, fail(hook.FailRefusedChanged, fmt.Errorf("%w; to approve it as it is now: %s", err, h.ApproveWith))
	default:
		return nil, fail(hook.FailRefusedChanged, err)
	}
}

// bashImageHas reports whether a program a shell script needs is one the
// bash reference image has beyond busybox's applets (images.Bash): a
// #!/bin/sh guard that calls git, jq, python3 or perl runs there, under
// the same busybox sh.
func bashImageHas(program string) bool {
	switch program {
	case "bash", "jq", "git", "gawk", "python3", "python", "perl":
		return true
	}
	return false
}

// maxTranscriptBytes bounds the transcript a hook is given.
const maxTranscriptBytes = 64 << 20

// copyTranscript checks the event's transcript_path (an absolute path to
// a regular file of the calling user in their home directory, where the
// hosts keep their conversations: never a file the payload points
// anywhere else, through a link or not) and copies it, as it is now,
// into a private directory, readable by the sandbox's user (the host's
// file is usually its owner's alone). The copy is what is mounted, at the
// host's path; remove deletes it.
func copyTranscript(path string) (copied string, remove func(), _ error) {
	if path == "" {
		return "", nil, errors.New("the event names no transcript_path")
	}
	if !filepath.IsAbs(path) || filepath.Clean(path) != path {
		return "", nil, fmt.Errorf("transcript_path %q is not a clean absolute path", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", nil, fmt.Errorf("transcript_path: %w", err)
	}
	defer f.Close()
	// The file opened is the one checked and copied, whatever the path
	// names by then.
	fi, err := f.Stat()
	if err != nil {
		return "", nil, err
	}
	if st, err := ownerOfInfo(fi); err != nil || !fi.Mode().IsRegular() || int(st.Uid) != os.Getuid() {
		return "", nil, fmt.Errorf("transcript_path %q is not a regular file of uid %d", path, os.Getuid())
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", nil, err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, err
	}
	if rel, err := filepath.Rel(home, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", nil, fmt.Errorf("transcript_path %q is not in the home directory %s, where the hosts keep transcripts", path, home)
	}
	if rs, err := os.Stat(real); err != nil || !os.SameFile(fi, rs) {
		return "", nil, fmt.Errorf("transcript_path %q changed while it was checked", path)
	}
	if fi.Size() > maxTranscriptBytes {
		return "", nil, fmt.Errorf("transcript_path %q is %d bytes, more than %d", path, fi.Size(), maxTranscriptBytes)
	}
	dir, err := os.MkdirTemp("", transcriptPrefix)
	if err != nil {
		return "", nil, err
	}
	remove = func() { os.RemoveAll(dir) }
	copied = filepath.Join(dir, "transcript")
	out, err := os.OpenFile(copied, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err == nil {
		_, err = io.Copy(out, io.LimitReader(f, maxTranscriptBytes))
		err = errors.Join(err, out.Chmod(0o444), out.Close())
	}
	if err != nil {
		remove()
		return "", nil, err
	}
	return copied, remove, nil
}

// writableMounts are the mounts of what a hook writes itself on the host
// (--writable copies, a plugin's data directory, a kept /tmp) and the user
// the run is then: the caller's. ws is the workspace, writable its files
// the hook may rewrite; event gets the variables that name them.
func (e *Executor) writableMounts(h *hook.Hook, lang launcher.Lang, ws string, writable []string, event map[string]string, files *runFiles, tr *hook.Trace) ([]sandbox.Option, *failure) {
	rules := h.Dialect.Host().Sandbox()
	var mounts []sandbox.Option
	if h.WorkspaceRW {
		return nil, fail(hook.FailRefusedRule, errors.New("--writable, --plugin-data and --tmp-data go without --workspace-rw: the run is the caller's, not the workspace owner's"))
	}
	// The run is the caller's: what it writes stays theirs to read
	// back and remove. Root's own directory needs root; root's copies
	// alone go to uid 65534.
	asRoot := os.Getuid() == 0 && h.PluginData != ""
	switch {
	case os.Getuid() != 0:
		mounts = append(mounts, sandbox.WithUser(uint32(os.Getuid()), uint32(os.Getgid())))
	case asRoot:
		mounts = append(mounts, sandbox.WithRootOwner())
	}
	if h.PluginData != "" {
		dir, err := pluginData(h.PluginData, rules.PluginDataDir)
		if err != nil {
			return nil, fail(hook.FailRefusedRule, err)
		}
		mounts = append(mounts, sandbox.WithWritableMount(sandbox.Mount{Source: dir, Target: dir}))
		event[rules.PluginDataVar] = dir
		tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--plugin-data %s (read-write)", dir))
	}
	var runner *owner
	if os.Getuid() == 0 {
		runner = &owner{}
		if !asRoot {
			uid, gid, _ := (&sandbox.Spec{User: sandbox.DefaultUser}).IDs()
			runner = &owner{uid, gid}
		}
	}
	if h.TmpData {
		k, err := openTmpData(e.opts.StateDir, h, ws, runner, asRoot)
		if err != nil {
			return nil, fail(hook.FailRefusedRule, err)
		}
		files.tmpData = k
		mounts = append(mounts, sandbox.WithTmpDir(files.tmpData.dir))
		if lang != "" {
			files.tmpData.private = launcherPrefix + tr.ExecutionID
			event[launcher.PrivateDirVar] = "/tmp/" + files.tmpData.private
		}
		tr.Loosenings = append(tr.Loosenings, fmt.Sprintf("--tmp-data %s (read-write at /tmp, kept between its runs)", files.tmpData.dir))
	}
	wr, remove, err := prepareWritable(ws, writable, runner)
	if err != nil {
		return nil, fail(hook.FailRefusedRule, err)
	}
	files.writable, files.removeWritable = wr, remove
	for _, d := range wr {
		mounts = append(mounts, sandbox.WithWritableMount(sandbox.Mount{Source: d.source(), Target: d.path()}))
	}
	return mounts, nil
}

// image is the run's image: the hook's own, else, on an isolating
// backend, the reference image for its language (bash's for a bash script,
// or one that calls what only that image has; the shell's for a command,
// whose programs come from its PATH).
func (e *Executor) image(ctx context.Context, h *hook.Hook, lang launcher.Lang, sh shell) (string, *failure) {
	if h.Image != "" || !e.opts.Backend.Isolating() {
		return h.Image, nil
	}
	if e.opts.DefaultImage == nil {
		return "", fail(hook.FailEngineError, errors.New("no image given and no reference image configured"))
	}
	imageLang := lang
	switch {
	case imageLang == "" && len(h.Command) > 0 && h.Command[0] == "bash":
		imageLang = "bash" // a command run with bash -c (Arcturn's $SHELL)
	case imageLang == "":
		imageLang = launcher.Shell
	case lang == launcher.Shell && slices.Contains(sh.needs, "node") && !slices.ContainsFunc(sh.needs, func(p string) bool { return bashImageHas(p) && p != "bash" && p != "git" }):
		// A shell hook that calls node and nothing only the bash image
		// has (Arcturn's guard-bash.sh): the node image, which has bash
		// and git too.
		imageLang = launcher.Node
	case sh.name == "bash", lang == launcher.Shell && slices.ContainsFunc(sh.needs, bashImageHas):
		// The image for bash hooks: bash and what shell hooks call,
		// which the sh image (busybox alone) lacks.
		imageLang = "bash"
	}
	image, err := e.opts.DefaultImage(ctx, imageLang)
	if err != nil {
		return "", fail(hook.FailEngineError, err)
	}
	return image, nil
}

// treeMounts are the read-only mounts of the trees the hook comes from:
// its script's pinned tree (unless the workspace holds it), its plugin's
// root; each checked against its pin, and the script run from there.
func treeMounts(h *hook.Hook, lang launcher.Lang, ws string, event map[string]string, tr *hook.Trace) ([]sandbox.Option, *failure) {
	var mounts []sandbox.Option
	if h.ScriptRoot != "" && lang != "" {
		root, f := scriptRoot(h, tr)
		if f != nil {
			return nil, f
		}
		if !within(ws, root) {
			mounts = append(mounts, sandbox.WithMount(sandbox.Mount{Source: root, Target: root}))
		}
		event[launcher.ScriptPathVar] = filepath.Join(h.PluginDir, h.Script)
	}
	if h.PluginRoot != "" {
		root, f := pluginRoot(h, tr)
		if f != nil {
			return nil, f
		}
		mounts = append(mounts, sandbox.WithMount(sandbox.Mount{Source: root, Target: root}))
		event[h.Dialect.Host().Sandbox().PluginRootVar] = root
		if path := filepath.Join(h.PluginDir, h.Script); lang != "" && within(root, path) {
			// The plugin's script runs from its tree, beside its files.
			event[launcher.ScriptPathVar] = path
		}
	}
	return mounts, nil
}
