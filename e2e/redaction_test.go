package e2e

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hookexec/hook-exec/hook"
)

// randomText draws n characters of chars from r: the planted secrets
// below are assembled in the test, never written whole, and no two share a
// run of characters, so a leak is told apart from another secret's.
func randomText(r *rand.Rand, chars string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[r.IntN(len(chars))]
	}
	return string(b)
}

// plantedLine is a secret in the text a hook prints around it.
type plantedLine struct{ before, secret, after string }

// redactionKinds holds one secret of each kind redaction knows, with the
// context some need (a key's name, a URL).
func redactionKinds() []plantedLine {
	r := rand.New(rand.NewPCG(31, 2026))
	scrambled := func(chars string, n int) string { return randomText(r, chars, n) }
	const (
		up    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		low   = "abcdefghijklmnopqrstuvwxyz"
		dig   = "0123456789"
		alnum = up + low + dig
		hex   = "0123456789abcdef"
		b64   = alnum + "+/"
		url   = alnum + "_-"
	)
	return []plantedLine{
		{"slack: https://hooks.slack.com/services/", "T" + scrambled(up+dig, 10) + "/B" + scrambled(up+dig, 10) + "/" + scrambled(alnum, 24), ""},
		{"slack app: ", "xapp-1-A" + scrambled(up+dig, 10) + "-" + scrambled(dig, 13) + "-" + scrambled(hex, 64), ""},
		{"slack bot: ", "xoxb-" + scrambled(dig, 12) + "-" + scrambled(dig, 12) + "-" + scrambled(alnum, 24), ""},
		{"huggingface: ", "hf_" + scrambled(up+low, 34), ""},
		{"npm: ", "npm_" + scrambled(alnum, 36), ""},
		{"pypi: ", "pypi-AgEIcHlwaS5vcmc" + scrambled(url, 120), ""},
		{"docker: ", "dckr_pat_" + scrambled(url, 27), ""},
		{"azure storage: DefaultEndpointsProtocol=https;AccountName=hookexecdemo;AccountKey=", scrambled(b64, 86) + "==", ""},
		{"azure ad: ", scrambled(alnum, 3) + "8Q~" + scrambled(alnum+"_~.-", 34), ""},
		{"azure sas: https://hookexecdemo.blob.core.windows.net/logs/a.txt?sv=2022-11-02&sp=r&sig=", scrambled(alnum+"%", 43) + "%3D", ""},
		{"stripe restricted: ", "rk_live_" + scrambled(alnum, 24), ""},
		{"stripe test: ", "sk_test_" + scrambled(alnum, 24), ""},
		{"openai: ", "sk-proj-" + scrambled(url, 74) + "T3BlbkFJ" + scrambled(url, 74), ""},
		{"anthropic: ", "sk-ant-api03-" + scrambled(url, 93) + "AA", ""},
		{"twilio: ", "SK" + scrambled(hex, 32), ""},
		{"sendgrid: ", "SG." + scrambled(url, 22) + "." + scrambled(url, 43), ""},
		{"shopify: ", "shpat_" + scrambled(hex, 32), ""},
		{"github: ", "ghp_" + scrambled(alnum, 36), ""},
		{"gitlab runner: ", "glrt-" + scrambled(url, 20), ""},
		{"aws: ", "AKIA" + scrambled(up+dig, 16), ""},
		{"google: ", "AIza" + scrambled(url, 35), ""},
		{"vault: ", "hvs." + scrambled(url, 95), ""},
		{"jwt: ", "eyJ" + scrambled(url, 20) + ".eyJ" + scrambled(url, 30) + "." + scrambled(url, 43), ""},
		{"clone https://deploy:", scrambled(alnum, 16), "@git.example.com/r.git"},
	}
}

// leaked names the first piece of a secret that s still holds: every
// 16-byte window is looked for, so a secret cut or only partly redacted is
// caught too.
func leaked(s, secret string) string {
	for i := 0; i+16 <= len(secret); i += 8 {
		if w := secret[i : i+16]; strings.Contains(s, w) {
			return w
		}
	}
	if w := secret[max(0, len(secret)-16):]; strings.Contains(s, w) {
		return w
	}
	return ""
}

// lastTrace reads the trace --trace - wrote last on stderr (after any
// warning lines).
func lastTrace(t *testing.T, r cliResult) hook.Trace {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	var tr hook.Trace
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &tr); err != nil {
		t.Fatalf("trace on stderr %q: %v", r.stderr, err)
	}
	return tr
}

// TestRedactionEndToEnd runs real hooks that print secrets of every kind
// in their decision's reason and output and on stderr: the decision a host
// reads and the trace hold none of them.
func TestRedactionEndToEnd(t *testing.T) {
	t.Parallel()
	engine(t)
	kinds := redactionKinds()
	t.Run("every kind in reason, output and stderr", func(t *testing.T) {
		t.Parallel()
		var lines []string
		for _, k := range kinds {
			lines = append(lines, k.before+k.secret+k.after)
		}
		decision, err := json.Marshal(map[string]any{"schema_version": 1, "action": "deny",
			"reason": strings.Join(lines, "; "), "output": map[string]any{"log": lines}})
		if err != nil {
			t.Fatal(err)
		}
		if reason := strings.Join(lines, "; "); len(reason) > hook.MaxTraceReason {
			t.Fatalf("a reason of %d bytes: the trace keeps only the first %d", len(reason), hook.MaxTraceReason)
		}
		stderr := strings.Join(lines, "\n")
		if len(stderr) > 2048 {
			t.Fatalf("stderr of %d bytes: the excerpt keeps only the last 2048", len(stderr))
		}
		script := scriptFile(t, "leaky.sh", "cat >/dev/null\ncat <<'HOOKEXEC_EOF'\n"+string(decision)+"\nHOOKEXEC_EOF\ncat >&2 <<'HOOKEXEC_EOF'\n"+stderr+"\nHOOKEXEC_EOF\n")
		r := hookExec(t, toolEvent("ls"), []string{"HOOKEXEC_STATE_DIR=" + t.TempDir()}, "run", "--script", script, "--trace", "-")
		r.wantCode(t, 2)
		d := decisionOf(t, r)
		tr := lastTrace(t, r)
		for _, k := range kinds {
			for what, s := range map[string]string{"reason": d.Reason, "output": string(d.Output), "stderr_excerpt": tr.StderrExcerpt, "trace's reason": tr.Reason, "decision": r.stdout, "trace": r.stderr} {
				if w := leaked(s, k.secret); w != "" {
					t.Errorf("%s holds %q of the secret after %q:\n%s", what, w, k.before, s)
				}
			}
		}
		// What is not secret stays, and the secrets went through redaction
		// rather than missing from the run.
		for what, s := range map[string]string{"reason": d.Reason, "output": string(d.Output), "stderr_excerpt": tr.StderrExcerpt, "trace's reason": tr.Reason} {
			wantIn(t, what, s, "hooks.slack.com/services/"+hook.Redacted)
			wantIn(t, what, s, "AccountKey="+hook.Redacted)
			wantIn(t, what, s, "docker: "+hook.Redacted)
		}
	})
	t.Run("a key block across the excerpt's cut", func(t *testing.T) {
		t.Parallel()
		rnd := rand.New(rand.NewPCG(32, 2026))
		var key strings.Builder
		key.WriteString("-----BEGIN OPENSSH PRIVATE KEY-----\n")
		for range 40 {
			key.WriteString(randomText(rnd, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 64) + "\n")
		}
		key.WriteString("-----END OPENSSH PRIVATE KEY-----\n")
		stderr := key.String() + "hook failed\n"
		if cut := len(stderr) - 2048; cut < 40 || cut > key.Len()-200 {
			t.Fatalf("stderr of %d bytes: the excerpt's cut at %d must fall inside the key", len(stderr), cut)
		}
		script := scriptFile(t, "leaky.sh", "cat >/dev/null\ncat >&2 <<'HOOKEXEC_EOF'\n"+stderr+"HOOKEXEC_EOF\nexit 1\n")
		r := hookExec(t, toolEvent("ls"), []string{"HOOKEXEC_STATE_DIR=" + t.TempDir()}, "run", "--script", script, "--trace", "-")
		r.wantCode(t, 2)
		tr := lastTrace(t, r)
		if tr.Failure == nil || tr.Failure.Kind != hook.FailExitNonzero {
			t.Fatalf("trace failure %+v, want %s", tr.Failure, hook.FailExitNonzero)
		}
		for _, line := range strings.Split(key.String(), "\n")[1:41] {
			if w := leaked(r.stdout+r.stderr, line); w != "" {
				t.Errorf("the output holds %q of the key: stderr_excerpt %q", w, tr.StderrExcerpt)
			}
		}
		if strings.Contains(tr.StderrExcerpt, "PRIVATE KEY") || !strings.HasSuffix(tr.StderrExcerpt, "hook failed\n") {
			t.Errorf("stderr_excerpt %q: want the end of stderr without the key", tr.StderrExcerpt)
		}
	})
}
