package hook

import (
	"regexp"
	"strings"

	"github.com/go-json-experiment/json"
)

// Redacted replaces a secret.
const Redacted = "[REDACTED]"

// secretPattern finds one kind of secret in free text.
type secretPattern struct {
	kind string
	// keywords, in lower case: the pattern is tried only on text that
	// holds one of them (gitleaks' keywords). Most text holds none, and a
	// regexp that begins with \b or an alternation scans every position.
	keywords []string
	re       *regexp.Regexp
	// group is the submatch that is secret (0: the whole match); the rest
	// of the match stays (a URL's scheme and host, a key's name).
	group int
	// alone, when set, holds the characters that may not touch the secret
	// on either side: RE2 has no lookaround to say "a whole token".
	alone string
}

// spans reports where p finds secrets in s, in order; lower is s (or the
// text s was redacted from) in lower case.
func (p secretPattern) spans(s, lower string) [][2]int {
	if !containsAny(lower, p.keywords) {
		return nil
	}
	var out [][2]int
	for _, m := range p.re.FindAllStringSubmatchIndex(s, -1) {
		i, j := m[2*p.group], m[2*p.group+1]
		if i >= 0 && !p.touched(s, i, j) {
			out = append(out, [2]int{i, j})
		}
	}
	return out
}

// touched reports whether a character of p.alone touches s[i:j].
func (p secretPattern) touched(s string, i, j int) bool {
	if p.alone == "" {
		return false
	}
	return i > 0 && strings.IndexByte(p.alone, s[i-1]) >= 0 || j < len(s) && strings.IndexByte(p.alone, s[j]) >= 0
}

// containsAny reports whether s holds one of the words.
func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// keywordCase is s in lower case as the (?i) patterns see it: there ſ
// (U+017F) is an s, which strings.ToLower keeps as it is.
func keywordCase(s string) string {
	return strings.ToLower(strings.ReplaceAll(s, "ſ", "s"))
}

// wordChars are \w; azureSecretChars those of an Azure AD client secret.
const (
	wordChars        = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"
	azureSecretChars = wordChars + "~.-"
)

// secretPatterns find secrets in free text, the specific before the
// generic (redaction applies them in order). Most are anchored on a
// vendor's own prefix; each names the rule it comes from: a gitleaks rule
// id (config/gitleaks.toml) unless it says otherwise. gitleaks' trailing
// terminators ([\x60'"\s;] ...) become \b or an open length: RE2 has no
// lookahead and would consume the terminator, missing a secret that starts
// right after it.
var secretPatterns = []secretPattern{
	// private-key; a truncated block is redacted up to the end.
	{kind: "private key block", keywords: []string{"-----begin"}, re: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`)},
	// scheme://user:password@host (not gitleaks: Microsoft security-utilities SEC101/127).
	{kind: "credentials in a URL", keywords: []string{"://"}, re: regexp.MustCompile(`[a-zA-Z][a-zA-Z0-9+.-]*://([^/\s:@]*:[^/\s@]*)@`), group: 1},
	// slack-webhook-url: the path is the secret.
	{kind: "Slack webhook URL", keywords: []string{"hooks.slack.com"}, re: regexp.MustCompile(`hooks\.slack\.com/(?:services|workflows|triggers)/([A-Za-z0-9+/]{43,})`), group: 1},
	// aws-access-token (with the other unique-id prefixes of IAM).
	{kind: "AWS access key id", keywords: []string{"akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "anpa", "anva", "aipa"}, re: regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`)},
	// aws-amazon-bedrock-api-key-long-lived.
	{kind: "Amazon Bedrock API key", keywords: []string{"absk"}, re: regexp.MustCompile(`\bABSK[A-Za-z0-9+/]{109,}={0,2}`)},
	// github-pat, github-oauth, github-app-token, github-refresh-token,
	// github-fine-grained-pat.
	{kind: "GitHub token", keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, re: regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})`)},
	// gitlab-pat, gitlab-pat-routable and the other gitlab-* tokens.
	{kind: "GitLab token", keywords: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glft-", "gloas-", "glimt-", "glagent-", "glffct-", "glcbt-"}, re: regexp.MustCompile(`\bgl(?:pat|dt|rt|ptt|soat|ft|oas|imt|agent|ffct|cbt)-[A-Za-z0-9_.-]{20,}`)},
	// slack-bot-token, slack-user-token, slack-app-token, slack-legacy-*,
	// slack-config-refresh-token.
	{kind: "Slack token", keywords: []string{"xox", "xapp-"}, re: regexp.MustCompile(`\b(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}`)},
	// stripe-access-token: secret and restricted keys. Publishable keys
	// (pk_live_, pk_test_) are public by design and stay.
	{kind: "Stripe key", keywords: []string{"k_live_", "k_test_", "k_prod_"}, re: regexp.MustCompile(`\b[rs]k_(?:live|test|prod)_[A-Za-z0-9]{10,}`)},
	// anthropic-api-key, anthropic-admin-api-key.
	{kind: "Anthropic API key", keywords: []string{"sk-ant-"}, re: regexp.MustCompile(`\bsk-ant-(?:api|admin)\d\d-[A-Za-z0-9_-]{20,}`)},
	// openai-api-key: project, service-account, admin and legacy keys.
	{kind: "OpenAI API key", keywords: []string{"sk-"}, re: regexp.MustCompile(`\bsk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})`)},
	// Other sk- keys (not a gitleaks rule: older OpenAI keys, DeepSeek ...).
	{kind: "sk- API key", keywords: []string{"sk-"}, re: regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{20,}`)},
	// gcp-api-key.
	{kind: "Google API key", keywords: []string{"aiza"}, re: regexp.MustCompile(`\bAIza[0-9A-Za-z_-]{35}`)},
	// huggingface-access-token, huggingface-organization-api-token.
	{kind: "Hugging Face token", keywords: []string{"hf_", "api_org_"}, re: regexp.MustCompile(`\b(?:hf|api_org)_[A-Za-z]{34}\b`)},
	// perplexity-api-key.
	{kind: "Perplexity API key", keywords: []string{"pplx-"}, re: regexp.MustCompile(`\bpplx-[A-Za-z0-9]{48}\b`)},
	// npm-access-token.
	{kind: "npm token", keywords: []string{"npm_"}, re: regexp.MustCompile(`(?i)\bnpm_[a-z0-9]{36}\b`)},
	// pypi-upload-token: a macaroon whose location is pypi.org.
	{kind: "PyPI upload token", keywords: []string{"pypi-ageichlwas5vcmc"}, re: regexp.MustCompile(`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`)},
	// rubygems-api-token.
	{kind: "RubyGems API key", keywords: []string{"rubygems_"}, re: regexp.MustCompile(`\brubygems_[a-f0-9]{48}\b`)},
	// Docker Hub personal and organization access tokens: gitleaks has no
	// rule; TruffleHog's dockerhub v2 detector.
	{kind: "Docker Hub access token", keywords: []string{"dckr_"}, re: regexp.MustCompile(`\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}`)},
	// azure-ad-client-secret: its delimiters, as a whole token.
	{kind: "Azure AD client secret", keywords: []string{"q~"}, re: regexp.MustCompile(`[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}`), alone: azureSecretChars},
	// Azure storage and Cosmos DB account keys (64 bytes in base64) after
	// an account or storage key name: AccountKey= in a connection string,
	// AZURE_STORAGE_KEY=, --account-key. gitleaks has no merged rule
	// (azure-storage-connection-string is proposed in its PR 2106);
	// Microsoft security-utilities SEC101/106 without its AccountName.
	{kind: "Azure storage account key", keywords: []string{"accountkey", "account_key", "account-key", "account.key", "storagekey", "storage_key", "storage-key", "storage.key"}, re: regexp.MustCompile(`(?i)(?:account|storage)[_.-]?key\b["']?\s*[:=]?\s*["']?([A-Za-z0-9+/]{86}==)`), group: 1},
	// Azure shared access signatures, in a SAS URL or a connection
	// string's SharedAccessSignature (not gitleaks: Microsoft
	// security-utilities SEC101/060 LooseSasSecret). Service Bus and Event
	// Hubs SharedAccessKey= values go as assignments (below).
	{kind: "Azure SAS signature", keywords: []string{"sig="}, re: regexp.MustCompile(`(?i)(?:^|[?;&])sig=([0-9a-z/+%]{43,129}(?:=|%3d))`), group: 1},
	// databricks-api-token.
	{kind: "Databricks token", keywords: []string{"dapi"}, re: regexp.MustCompile(`\bdapi[a-f0-9]{32}(?:-\d)?\b`)},
	// digitalocean-pat, digitalocean-access-token, digitalocean-refresh-token.
	{kind: "DigitalOcean token", keywords: []string{"doo_v1_", "dop_v1_", "dor_v1_"}, re: regexp.MustCompile(`\bdo[opr]_v1_[a-f0-9]{64}\b`)},
	// vault-service-token, vault-batch-token (the hvs. and hvb. forms).
	{kind: "HashiCorp Vault token", keywords: []string{"hvs.", "hvb."}, re: regexp.MustCompile(`\bhv[sb]\.[A-Za-z0-9_-]{90,}`)},
	// grafana-cloud-api-token, grafana-service-account-token.
	{kind: "Grafana token", keywords: []string{"glc_", "glsa_"}, re: regexp.MustCompile(`\b(?:glc_[A-Za-z0-9+/]{32,}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b)`)},
	// twilio-api-key. Its keyword sk is in many words: the literal SK
	// starts the regexp so that it scans fast, alone stands for \b.
	{kind: "Twilio API key", keywords: []string{"sk"}, re: regexp.MustCompile(`SK[0-9a-fA-F]{32}`), alone: wordChars},
	// sendgrid-api-token.
	{kind: "SendGrid API key", keywords: []string{"sg."}, re: regexp.MustCompile(`\bSG\.[A-Za-z0-9_=.-]{66}`)},
	// shopify-access-token, shopify-custom-access-token,
	// shopify-private-app-access-token, shopify-shared-secret.
	{kind: "Shopify token", keywords: []string{"shpat_", "shpca_", "shppa_", "shpss_"}, re: regexp.MustCompile(`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b`)},
	// age-secret-key.
	{kind: "age secret key", keywords: []string{"age-secret-key-1"}, re: regexp.MustCompile(`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`)},
	// jwt.
	{kind: "JSON web token", keywords: []string{"eyj"}, re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
}

// SecretFinding is a secret [FindSecrets] found: its kind and where, never
// the secret itself.
type SecretFinding struct {
	Kind       string
	Start, End int // byte offsets
}

// FindSecrets reports the secrets redaction would replace in s. A finding
// that overlaps an earlier one (a GitHub token in a TOKEN= assignment) is
// left out: redaction has replaced that text already.
func FindSecrets(s string) []SecretFinding {
	var out []SecretFinding
	add := func(kind string, i, j int) {
		for _, f := range out {
			if i < f.End && f.Start < j {
				return
			}
		}
		out = append(out, SecretFinding{Kind: kind, Start: i, End: j})
	}
	lower := keywordCase(s)
	for _, p := range secretPatterns {
		for _, sp := range p.spans(s, lower) {
			add(p.kind, sp[0], sp[1])
		}
	}
	if containsAny(lower, credentialWords) {
		for _, m := range credential.FindAllStringSubmatchIndex(s, -1) {
			if credentialValue(s[m[2]:m[3]], s[m[4]:m[5]]) {
				add("authorization credentials", m[4], m[5])
			}
		}
	}
	if containsAny(lower, assignmentWords) {
		for _, m := range assignment.FindAllStringSubmatchIndex(s, -1) {
			name, value := s[m[4]:m[5]], s[m[8]:m[9]]
			if !notSecret[strings.ToUpper(name)] && !strings.HasPrefix(value, "=") {
				add("secret assignment ("+name+")", m[8], m[9])
			}
		}
	}
	return out
}

// assignment is name=value or name: value (also "name": "value") whose
// name says secret. The name starts a word (after a space, a quote, a
// brace, a comma, a URL query's ? or & ...), so a path such as
// /etc/passwd is no name.
var assignment = regexp.MustCompile(`(?i)(^|[\s"'{,;(\[?&])([A-Za-z0-9_-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|auth)[A-Za-z0-9_-]*)(["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)`)

// assignmentWords are the keywords of assignment's names.
var assignmentWords = []string{"pass", "pwd", "secret", "token", "key", "credential", "auth"}

// credential is an Authorization scheme and its credentials. After the
// word token they hold a digit (prose such as "token delimited" does not);
// after bearer or basic they are anything but a lowercase word.
var credential = regexp.MustCompile(`(?i)\b((?:bearer|basic|token)\s+)([A-Za-z0-9._~+/=-]{8,})`)

// credentialWords are the keywords of credential's schemes.
var credentialWords = []string{"bearer", "basic", "token"}

// credentialValue: after "token" a value with a digit; after bearer or
// basic anything but a plain lowercase word (prose: "basic functionality").
func credentialValue(scheme, value string) bool {
	if strings.HasPrefix(strings.ToLower(scheme), "token") {
		return strings.ContainsAny(value, "0123456789")
	}
	return strings.ToLower(value) != value || strings.ContainsAny(value, "0123456789._~+/=-")
}

// notSecret are names the assignment pattern matches that hold no secret:
// the shell's working directories.
var notSecret = map[string]bool{"PWD": true, "OLDPWD": true}

// Redact replaces every secret the patterns find in s.
func Redact(s string) string {
	// One lower-case copy serves every pattern: redaction only takes text
	// away and puts [REDACTED] in its place, which holds no keyword.
	lower := keywordCase(s)
	for _, p := range secretPatterns {
		s = replaceSpans(s, p.spans(s, lower))
	}
	if containsAny(lower, credentialWords) {
		s = credential.ReplaceAllStringFunc(s, func(m string) string {
			g := credential.FindStringSubmatch(m)
			if !credentialValue(g[1], g[2]) {
				return m
			}
			return g[1] + Redacted
		})
	}
	if !containsAny(lower, assignmentWords) {
		return s
	}
	return assignment.ReplaceAllStringFunc(s, func(m string) string {
		g := assignment.FindStringSubmatch(m)
		// A Go short variable declaration (nextToken := ...) assigns no secret.
		if notSecret[strings.ToUpper(g[2])] || strings.HasPrefix(g[4], "=") {
			return m
		}
		return g[1] + g[2] + g[3] + Redacted
	})
}

// replaceSpans replaces each of the ordered, disjoint spans of s with
// [Redacted].
func replaceSpans(s string, spans [][2]int) string {
	if len(spans) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		b.WriteString(s[last:sp[0]])
		b.WriteString(Redacted)
		last = sp[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// secretName reports whether a JSON member's name says its value is secret.
var secretName = regexp.MustCompile(`(?i)(password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?)`)

// RedactJSON redacts a JSON value a hook wrote (a decision's output,
// annotations, a raw record): every string through [Redact], and the whole
// string value of a member whose name says secret. What does not decode is
// redacted as text.
func RedactJSON(raw []byte) []byte {
	if len(raw) == 0 {
		return raw
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return []byte(Redact(string(raw)))
	}
	var walk func(v any, secret bool) any
	walk = func(v any, secret bool) any {
		switch t := v.(type) {
		case string:
			if secret {
				return Redacted
			}
			return Redact(t)
		case map[string]any:
			for k, e := range t {
				t[k] = walk(e, secretName.MatchString(k) && !notSecret[strings.ToUpper(k)])
			}
		case []any:
			for i, e := range t {
				t[i] = walk(e, secret)
			}
		}
		return v
	}
	b, err := json.Marshal(walk(v, false), json.Deterministic(true))
	if err != nil {
		return []byte(Redact(string(raw)))
	}
	return b
}
