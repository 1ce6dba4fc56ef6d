package hook

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Character sets the planted secrets are drawn from.
const (
	upper   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower   = "abcdefghijklmnopqrstuvwxyz"
	digits  = "0123456789"
	letters = upper + lower
	alnum   = letters + digits
	hexLow  = "0123456789abcdef"
	b64     = alnum + "+/"
	b64url  = alnum + "_-"
)

// fake returns n characters of chars in a scrambled order. Planted secrets
// are assembled from a prefix and fake parts in the tests, so no whole
// secret-shaped literal sits in the source (and none is real).
func fake(chars string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteByte(chars[(i*37+11)%len(chars)])
	}
	return b.String()
}

// plantedKind is one secret of a kind, in a line as a hook would print it.
type plantedKind struct {
	kind   string
	secret string // what must go
	before string // the text before it, kept
	after  string // the text after it, kept
}

func (p plantedKind) line() string { return p.before + p.secret + p.after }

// plantedKinds holds a realistic sample of every kind the patterns name,
// in text where no other detector would catch it.
func plantedKinds() []plantedKind {
	azureAD := fake(alnum, 3) + "8Q~" + fake(alnum+"_~.-", 34)
	return []plantedKind{
		{"Slack webhook URL", "T" + fake(upper+digits, 10) + "/B" + fake(upper+digits, 10) + "/" + fake(alnum, 24), "curl -X POST https://hooks.slack.com/services/", " -d @msg.json"},
		{"Slack token", "xapp-1-A" + fake(upper+digits, 10) + "-" + fake(digits, 13) + "-" + fake(hexLow, 64), "socket mode with ", " connected"},
		{"Slack token", "xoxe-1-" + fake(upper+digits, 146), "refresh with ", ""},
		{"Hugging Face token", "hf_" + fake(letters, 34), "huggingface-cli login with ", " failed"},
		{"Hugging Face token", "api_org_" + fake(letters, 34), "org ", ","},
		{"npm token", "npm_" + fake(alnum, 36), "//registry.npmjs.org/ uses ", ""},
		{"PyPI upload token", "pypi-AgEIcHlwaS5vcmc" + fake(b64url, 160), "twine upload -u __token__ -p ", " dist/*"},
		{"Docker Hub access token", "dckr_pat_" + fake(b64url, 27), "echo ", " | docker login -u hookexec --password-stdin"},
		{"Docker Hub access token", "dckr_oat_" + fake(alnum, 32), "org ", ""},
		{"Azure storage account key", fake(b64, 86) + "==", "DefaultEndpointsProtocol=https;AccountName=hookexecdemo;AccountKey=", ";EndpointSuffix=core.windows.net"},
		{"Azure storage account key", fake(b64, 86) + "==", "az storage blob list --account-name hookexecdemo --account-key ", " -c logs"},
		{"Azure AD client secret", azureAD, "az login --service-principal -u 1f0c -p ", " --tenant t"},
		{"Azure AD client secret", azureAD, `"value": "`, `",`},
		{"Azure SAS signature", fake(alnum+"%", 43) + "%3D", "https://hookexecdemo.blob.core.windows.net/logs/a.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2030-01-01T00:00:00Z&spr=https&sig=", ""},
		{"Azure SAS signature", fake(b64, 43) + "=", "BlobEndpoint=https://hookexecdemo.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sig=", ""},
		{"Stripe key", "rk_live_" + fake(alnum, 24), "charge with ", ""},
		{"Stripe key", "rk_test_" + fake(alnum, 24), "charge with ", ""},
		{"Stripe key", "sk_test_" + fake(alnum, 24), "charge with ", ""},
		{"Stripe key", "sk_live_" + fake(alnum, 24), "charge with ", ""},
		{"OpenAI API key", "sk-proj-" + fake(b64url, 74) + "T3BlbkFJ" + fake(b64url, 74), "openai ", ""},
		{"OpenAI API key", "sk-" + fake(alnum, 20) + "T3BlbkFJ" + fake(alnum, 20), "openai ", ""},
		{"Anthropic API key", "sk-ant-api03-" + fake(b64url, 93) + "AA", "anthropic ", " 401"},
		{"Anthropic API key", "sk-ant-admin01-" + fake(b64url, 93) + "AA", "admin ", ""},
		{"sk- API key", "sk-" + fake(alnum, 32), "deepseek ", ""},
		{"Twilio API key", "SK" + fake(hexLow, 32), "twilio api:core:messages:list --api-key ", ""},
		{"SendGrid API key", "SG." + fake(b64url, 22) + "." + fake(b64url, 43), "mail via ", ""},
		{"Shopify token", "shpat_" + fake(hexLow, 32), "X-Shopify-Access: ", ""},
		{"Shopify token", "shpss_" + fake(hexLow, 32), "app ", ""},
		{"GitHub token", "ghp_" + fake(alnum, 36), "push with ", ""},
		{"GitLab token", "glpat-" + fake(b64url, 20), "gitlab ", ""},
		{"GitLab token", "glrt-t1_" + fake(b64url, 27) + "." + fake(lower+digits, 9), "gitlab-runner register ", " ok"},
		{"GitLab token", "gldt-" + fake(b64url, 20), "deploy ", ""},
		{"AWS access key id", "ABIA" + fake(upper+digits, 16), "aws ", ""},
		{"Amazon Bedrock API key", "ABSK" + fake(b64, 130) + "==", "bedrock ", ""},
		{"Google API key", "AIza" + fake(b64url, 35), "maps ", ""},
		{"Perplexity API key", "pplx-" + fake(alnum, 48), "perplexity ", ""},
		{"RubyGems API key", "rubygems_" + fake(hexLow, 48), "gem push with ", ""},
		{"Databricks token", "dapi" + fake(hexLow, 32), "databricks ", ""},
		{"DigitalOcean token", "dop_v1_" + fake(hexLow, 64), "doctl auth init -t ", ""},
		{"HashiCorp Vault token", "hvs." + fake(b64url, 95), "vault login ", ""},
		{"Grafana token", "glsa_" + fake(alnum, 32) + "_" + fake(hexLow, 8), "grafana ", ""},
		{"Grafana token", "glc_" + fake(b64, 60) + "==", "grafana cloud ", ""},
		{"age secret key", "AGE-SECRET-KEY-1" + fake("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58), "# created: 2026-01-01\n", "\n"},
		{"JSON web token", "eyJ" + fake(b64url, 20) + ".eyJ" + fake(b64url, 30) + "." + fake(b64url, 43), "session ", ""},
		{"private key block", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + fake(b64, 70) + "\n-----END OPENSSH PRIVATE KEY-----", "key:\n", "\ndone"},
		{"credentials in a URL", "deploy:" + fake(alnum, 16), "git clone https://", "@git.example.com/r.git"},
	}
}

// TestRedactKinds plants each kind and checks the exact redacted line (the
// secret replaced, its surroundings kept) and that FindSecrets names it.
func TestRedactKinds(t *testing.T) {
	t.Parallel()
	for _, p := range plantedKinds() {
		t.Run(p.kind, func(t *testing.T) {
			t.Parallel()
			line := p.line()
			if got, want := Redact(line), p.before+Redacted+p.after; got != want {
				t.Errorf("Redact(%q)\n = %q\nwant %q", line, got, want)
			}
			found := FindSecrets(line)
			if len(found) != 1 {
				t.Fatalf("FindSecrets(%q) = %+v, want one finding", line, found)
			}
			if f := found[0]; f.Kind != p.kind || line[f.Start:f.End] != p.secret {
				t.Errorf("FindSecrets found %q at %d:%d (%q), want %q at the secret", f.Kind, f.Start, f.End, line[f.Start:f.End], p.kind)
			}
		})
	}
}

// TestRedactAzureConnectionStrings: Service Bus and Event Hubs keys go as
// assignments; the key names and endpoints stay.
func TestRedactAzureConnectionStrings(t *testing.T) {
	t.Parallel()
	key := fake(b64, 43) + "="
	in := "Endpoint=sb://hookexec.servicebus.windows.net/;SharedAccessKeyName=Send;SharedAccessKey=" + key + ";EntityPath=events"
	want := "Endpoint=sb://hookexec.servicebus.windows.net/;SharedAccessKeyName=" + Redacted + ";SharedAccessKey=" + Redacted + ";EntityPath=events"
	if got := Redact(in); got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}

// TestRedactGCPServiceAccount: a service-account key file loses its key
// and key id and keeps the rest.
func TestRedactGCPServiceAccount(t *testing.T) {
	t.Parallel()
	keyID := fake(hexLow, 40)
	body := fake(b64, 64)
	in := `{"type": "service_account", "project_id": "hookexec", "private_key_id": "` + keyID +
		`", "private_key": "-----BEGIN PRIVATE KEY-----\n` + body + `\n-----END PRIVATE KEY-----\n", "client_email": "ci@hookexec.iam.gserviceaccount.com"}`
	want := `{"type": "service_account", "project_id": "hookexec", "private_key_id": ` + Redacted +
		`, "private_key": ` + Redacted + `, "client_email": "ci@hookexec.iam.gserviceaccount.com"}`
	if got := Redact(in); got != want {
		t.Errorf("Redact = %q\nwant %q", got, want)
	}
	for _, secret := range []string{keyID, body} {
		if got := string(RedactJSON([]byte(in))); strings.Contains(got, secret) {
			t.Errorf("RedactJSON kept %q: %s", secret, got)
		}
	}
}

// TestRedactKeepsLookalikes: what only looks like a secret stays: public
// keys, prefixes with too little after them, a tilde run longer than an
// Azure AD secret.
func TestRedactKeepsLookalikes(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"stripe.js loads pk_live_" + fake(alnum, 24) + " and pk_test_" + fake(alnum, 24),
		"npm_config_cache=/tmp/npm",
		"hf_hub_download(repo_id)",
		"see https://hooks.slack.com/services/ for the docs",
		"path a/b/" + fake(alnum, 3) + "8Q~" + fake(alnum, 40) + "/c", // 46 characters, no Azure AD secret
		"sig=short",
		"ASK" + fake(hexLow, 32), // no SK at a word's start
	} {
		if got := Redact(s); got != s {
			t.Errorf("Redact(%q) = %q: nothing here is secret", s, got)
		}
		if f := FindSecrets(s); len(f) != 0 {
			t.Errorf("FindSecrets(%q) = %+v, want none", s, f)
		}
	}
}

// TestRedactAdjacentSecrets: two Azure AD secrets one space apart both go
// (a regexp that consumed the delimiter after the first would miss the
// second).
func TestRedactAdjacentSecrets(t *testing.T) {
	t.Parallel()
	a := fake(alnum, 3) + "1Q~" + fake(alnum+"_~.-", 31)
	b := fake(lower, 3) + "2Q~" + fake(upper+".", 34)
	if got, want := Redact(a+" "+b), Redacted+" "+Redacted; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}

// TestRedactFindsOneKindPerSecret: a secret that two detectors see (a
// GitHub token in a TOKEN= assignment) is reported once, by the specific
// one, as redaction replaces it once.
func TestRedactFindsOneKindPerSecret(t *testing.T) {
	t.Parallel()
	tok := "ghp_" + fake(alnum, 36)
	got := FindSecrets("GITHUB_TOKEN=" + tok)
	if len(got) != 1 || got[0].Kind != "GitHub token" {
		t.Errorf("FindSecrets = %+v, want one GitHub token", got)
	}
}

// TestRedactFoldedS: (?i) matching reads ſ (U+017F) as s; the keyword
// prefilter must too, or it would skip text the regexp matches.
func TestRedactFoldedS(t *testing.T) {
	t.Parallel()
	if got, want := Redact("DB_PAſſWORD=hunter2hunter2"), "DB_PAſſWORD="+Redacted; got != want {
		t.Errorf("Redact = %q, want %q", got, want)
	}
}

// TestSecretPatternKeywords: every pattern has keywords, in lower case (the
// text they are looked for in is), and [Redacted] holds none of them
// (Redact looks them up once, in the text before any replacement).
func TestSecretPatternKeywords(t *testing.T) {
	t.Parallel()
	words := append(append([]string(nil), assignmentWords...), credentialWords...)
	for _, p := range secretPatterns {
		if len(p.keywords) == 0 {
			t.Errorf("%s: no keywords", p.kind)
		}
		words = append(words, p.keywords...)
	}
	for _, w := range words {
		if w != strings.ToLower(w) {
			t.Errorf("keyword %q is not in lower case", w)
		}
		if strings.Contains(strings.ToLower(Redacted), w) {
			t.Errorf("%q holds the keyword %q", Redacted, w)
		}
	}
}

// A trace keeps a reason redacted, then cut on a character at its bound:
// a secret past the cut is redacted before it could be half kept.
func TestTraceReason(t *testing.T) {
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	if got := TraceReason("denied: " + secret); got != "denied: "+Redacted {
		t.Errorf("TraceReason = %q, want the secret redacted", got)
	}
	long := strings.Repeat("é", MaxTraceReason) // two bytes each
	got := TraceReason(long)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > MaxTraceReason+len("…") || len(got) < MaxTraceReason-1 {
		t.Errorf("TraceReason of %d bytes = %d bytes, valid %v: want at most %d bytes cut on a character, then …", len(long), len(got), utf8.ValidString(got), MaxTraceReason)
	}
	edge := strings.Repeat("x", MaxTraceReason-len(secret)/2) + " " + secret
	if got := TraceReason(edge); strings.Contains(got, secret[:len(secret)/2]) {
		t.Errorf("a secret across the cut left %q", got[len(got)-40:])
	}
}
