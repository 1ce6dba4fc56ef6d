package hook

import (
	"regexp"
	"strings"

	"github.com/go-json-experiment/json"
)

// Redacted replaces a secret.
const Redacted = "[REDACTED]"

// secretPatterns find secrets in free text. A pattern's replacement keeps
// what is not secret (the name of an assignment, a URL's scheme and host).
var secretPatterns = []struct {
	kind string
	re   *regexp.Regexp
	repl string
}{
	// PEM private key blocks, whole (and a truncated one up to the end).
	{"private key block", regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`), Redacted},
	// URLs with credentials: scheme://user:password@host.
	{"credentials in a URL", regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s:@]*:[^/\s@]*@`), "${1}" + Redacted + "@"},
	// AWS access key ids and secret access key assignments.
	{"AWS access key id", regexp.MustCompile(`\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b`), Redacted},
	// GitHub tokens (classic and fine-grained) and GitLab tokens.
	{"GitHub or GitLab token", regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,})`), Redacted},
	// Slack, Stripe, OpenAI-style and Google API keys.
	{"API key", regexp.MustCompile(`\b(?:xox[abposr]-[A-Za-z0-9-]{10,}|sk_live_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35})`), Redacted},
	// JSON web tokens.
	{"JSON web token", regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`), Redacted},
}

// SecretFinding is a secret [FindSecrets] found: its kind and where, never
// the secret itself.
type SecretFinding struct {
	Kind       string
	Start, End int // byte offsets
}

// FindSecrets reports the secrets redaction would replace in s.
func FindSecrets(s string) []SecretFinding {
	var out []SecretFinding
	for _, p := range secretPatterns {
		for _, m := range p.re.FindAllStringIndex(s, -1) {
			out = append(out, SecretFinding{Kind: p.kind, Start: m[0], End: m[1]})
		}
	}
	for _, m := range credential.FindAllStringSubmatchIndex(s, -1) {
		if credentialValue(s[m[2]:m[3]], s[m[4]:m[5]]) {
			out = append(out, SecretFinding{Kind: "authorization credentials", Start: m[4], End: m[5]})
		}
	}
	for _, m := range assignment.FindAllStringSubmatchIndex(s, -1) {
		name, value := s[m[4]:m[5]], s[m[8]:m[9]]
		if !notSecret[strings.ToUpper(name)] && !strings.HasPrefix(value, "=") {
			out = append(out, SecretFinding{Kind: "secret assignment (" + name + ")", Start: m[8], End: m[9]})
		}
	}
	return out
}

// assignment is name=value or name: value (also "name": "value") whose
// name says secret. The name starts a word (after a space, a quote, a
// brace, a comma, a URL query's ? or & ...), so a path such as
// /etc/passwd is no name.
var assignment = regexp.MustCompile(`(?i)(^|[\s"'{,;(\[?&])([A-Za-z0-9_-]*?(?:password|passwd|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credentials?|auth)[A-Za-z0-9_-]*)(["']?\s*[:=]\s*)("[^"]*"|'[^']*'|[^\s,;&"']+)`)

// credential is an Authorization scheme and its credentials. After the
// word token they hold a digit (prose such as "token delimited" does not);
// after bearer or basic they are anything but a lowercase word.
var credential = regexp.MustCompile(`(?i)\b((?:bearer|basic|token)\s+)([A-Za-z0-9._~+/=-]{8,})`)

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
	for _, p := range secretPatterns {
		s = p.re.ReplaceAllString(s, p.repl)
	}
	s = credential.ReplaceAllStringFunc(s, func(m string) string {
		g := credential.FindStringSubmatch(m)
		if !credentialValue(g[1], g[2]) {
			return m
		}
		return g[1] + Redacted
	})
	return assignment.ReplaceAllStringFunc(s, func(m string) string {
		g := assignment.FindStringSubmatch(m)
		// A Go short variable declaration (nextToken := ...) assigns no secret.
		if notSecret[strings.ToUpper(g[2])] || strings.HasPrefix(g[4], "=") {
			return m
		}
		return g[1] + g[2] + g[3] + Redacted
	})
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
