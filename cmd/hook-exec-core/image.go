package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/hookexec/hook-exec/backend/engine"
	"github.com/hookexec/hook-exec/executor"
	"github.com/hookexec/hook-exec/launcher"
	"github.com/hookexec/hook-exec/scriptpin"
)

func newImageCmd(g *globals, io stdio) *cobra.Command {
	c := &cobra.Command{
		Use:         "image COMMAND",
		Short:       "Check that an image provides the launcher's programs",
		Example:     `  hook-exec image check my/image:1 --lang py`,
		Annotations: map[string]string{annotEnv: envEngine, annotExit: exitCommand},
		RunE:        parent,
	}
	g.engineFlags(c, "docker or containerd")
	c.AddCommand(newImageCheckCmd(g, io))
	return c
}

func newImageCheckCmd(g *globals, io stdio) *cobra.Command {
	var lang, scriptFile string
	var asJSON bool
	c := &cobra.Command{
		Use:   "check IMAGE [--lang sh|py|js] [--script FILE] [--json]",
		Short: "Report which launcher programs IMAGE provides",
		Long: `Run a probe in IMAGE (in the same hardened sandbox hooks get) and report,
per language, which programs the launcher needs are present: python for .py;
sh, mktemp, dd, wc and rm for .sh; those and node for .js.

With --script, also the programs a shell script calls, read from the parsed
script (its shell from its #! line, then every command it names: jq, git,
node ...), that IMAGE lacks: a guard whose jq is missing would otherwise
fail at every call, and fail open where its host lets failures through.`,
		Example: `  hook-exec image check my/hooks:1
  hook-exec image check my/hooks:1 --lang sh --json
  hook-exec image check my/hooks:1 --script .claude/hooks/guard.sh`,
		Args: exactArgs(1, "exactly one IMAGE"),
		Annotations: map[string]string{annotEnv: envEngine, annotExit: `  0    every asked language is runnable in IMAGE
  1    a language is not runnable (stderr names what is missing), or another failure
  64   usage error
  125  the engine cannot be reached or refused the request`},
		RunE: func(c *cobra.Command, args []string) error {
			langs := []launcher.Lang{launcher.Shell, launcher.Python}
			var body []byte
			if scriptFile != "" {
				var err error
				if body, err = os.ReadFile(scriptFile); err != nil {
					return usageError("--script: %v", err)
				}
				if lang == "" {
					langs = []launcher.Lang{launcher.Shell}
					if l, err := scriptpin.CheckShebang(filepath.Base(scriptFile), body); err == nil && l == launcher.Node {
						langs = []launcher.Lang{launcher.Node}
					}
				}
			}
			switch lang {
			case "":
			case "sh", "py", "js":
				langs = []launcher.Lang{launcher.Lang(lang)}
			default:
				return usageError("--lang %q: use sh, py or js", lang)
			}
			var script *executor.ScriptReport
			if scriptFile != "" {
				var err error
				if script, err = executor.ReadScript(scriptFile, body, langs); err != nil {
					return failure(err)
				}
			}
			rep, err := checkImage(c.Context(), g.sandboxEngine(), args[0], langs, script)
			if err != nil {
				return engineCall(err)
			}
			if asJSON {
				b, err := json.Marshal(rep)
				if err != nil {
					return failure(err)
				}
				if err := writeJSON(io.out, b); err != nil {
					return err
				}
			} else {
				printImageReport(io, rep, langs)
			}
			if !rep.OK() {
				for _, l := range langs {
					if m := rep.Langs[l].Missing; len(m) > 0 {
						fmt.Fprintf(io.err, "hook-exec: image %s cannot run .%s hooks: it must provide %s\n", rep.Image, l, strings.Join(m, ", "))
					}
				}
				if rep.Script != nil && len(rep.Script.Missing) > 0 {
					fmt.Fprintf(io.err, "hook-exec: image %s lacks what %s calls: %s\n", esc(rep.Image), esc(rep.Script.File), esc(strings.Join(rep.Script.Missing, ", ")))
				}
				return &exitError{code: exitFail}
			}
			return nil
		},
	}
	c.Flags().StringVar(&lang, "lang", "", "check only this language: sh, py or js (default sh and py; with --script, the script's)")
	c.Flags().StringVar(&scriptFile, "script", "", "also check the programs this shell script `FILE` calls")
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	g.runtimeFlag(c)
	return c
}

func printImageReport(io stdio, rep *executor.ImageReport, langs []launcher.Lang) {
	for _, l := range langs {
		lr := rep.Langs[l]
		state := "runnable"
		if !lr.Runnable {
			state = "NOT runnable: missing " + strings.Join(lr.Missing, ", ")
		}
		fmt.Fprintf(io.out, "%s .%s: %s\n", rep.Image, l, state)
		for _, p := range launcher.Required(l) {
			mark := "ok"
			if present, checked := lr.Present[p]; !checked {
				mark = "not checked (no interpreter)"
			} else if !present {
				mark = "MISSING"
			}
			fmt.Fprintf(io.out, "  %-7s %s\n", p, mark)
		}
	}
	if sr := rep.Script; sr != nil {
		fmt.Fprintf(io.out, "%s calls (under %s):\n", esc(sr.File), sr.Shell)
		for _, p := range sr.Programs {
			mark := "ok"
			if slices.Contains(sr.Missing, p) {
				mark = "missing"
			}
			fmt.Fprintf(io.out, "  %-7s %s\n", esc(p), mark) // a word of the script
		}
	}
}

// checkImage opens the engine o names (checking that it answers, sweeping
// orphans) and probes image in the hardened sandbox hooks get.
func checkImage(ctx context.Context, o engine.Options, image string, langs []launcher.Lang, script *executor.ScriptReport) (*executor.ImageReport, error) {
	o.Ping, o.Sweep = true, true
	e, err := engine.Open(ctx, o)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	return executor.CheckImage(ctx, e.Backend(), image, langs, script)
}
