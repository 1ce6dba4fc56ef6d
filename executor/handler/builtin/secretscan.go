package builtin

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/hookexec/hook-exec/hook"
)

type scanOptions struct {
	// Action answers a finding: request_approval (default) or deny.
	Action hook.Action `json:"action,omitzero"`
	// Entropy turns the high-entropy token detector off when false.
	Entropy *bool `json:"entropy,omitzero"`
}

func (o scanOptions) check() error {
	switch o.Action {
	case "", hook.RequestApproval, hook.Deny:
		return nil
	}
	return fmt.Errorf("%w: action %q: use request_approval or deny", ErrOptions, o.Action)
}

// Finding is a proposed secret: its kind and where, never the secret.
type Finding struct {
	Kind  string
	Where string // args.<name>, line N
}

// secretScan looks at every string a call's args hold.
func secretScan(ev *eventView, o scanOptions) (*hook.Decision, error) {
	entropy := o.Entropy == nil || *o.Entropy
	found := Scan(ev.Data["args"], entropy)
	if len(found) == 0 {
		return allow(), nil
	}
	action := o.Action
	if action == "" {
		action = hook.RequestApproval
	}
	var parts []string
	for _, f := range found {
		parts = append(parts, f.Kind+" in "+f.Where)
	}
	return &hook.Decision{SchemaVersion: 1, Action: action, Reason: "proposed secret: " + strings.Join(parts, "; ")}, nil
}

// Scan reports the secrets in every string of a JSON value, with the
// member path and line where each was found.
func Scan(v jsontext.Value, entropy bool) []Finding {
	var out []Finding
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch t := v.(type) {
		case string:
			for _, f := range hook.FindSecrets(t) {
				if strings.HasPrefix(f.Kind, "secret assignment") && !secretValue(t[f.Start:f.End]) {
					continue // code such as tokens = scan(x) assigns no secret
				}
				out = append(out, Finding{Kind: f.Kind, Where: fmt.Sprintf("%s, line %d", where, 1+strings.Count(t[:f.Start], "\n"))})
			}
			if entropy {
				for _, m := range tokenRE.FindAllStringIndex(t, -1) {
					if tok := t[m[0]:m[1]]; highEntropy(tok) && !covered(out, where) {
						out = append(out, Finding{Kind: "high-entropy token", Where: fmt.Sprintf("%s, line %d", where, 1+strings.Count(t[:m[0]], "\n"))})
					}
				}
			}
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(where+"."+k, t[k])
			}
		case []any:
			for i, e := range t {
				walk(fmt.Sprintf("%s[%d]", where, i), e)
			}
		}
	}
	var root any
	if json.Unmarshal(v, &root) == nil {
		walk("args", root)
	}
	return out
}

// secretValue says whether an assigned value looks like a secret rather
// than code: at least 6 characters, no spaces or call syntax, and a digit
// or a symbol among letters.
func secretValue(v string) bool {
	v = strings.Trim(v, `"'`)
	if len(v) < 6 || strings.ContainsAny(v, " ()[]{}<>,") {
		return false
	}
	for _, r := range v {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && r != '_' && r != '.' {
			return true
		}
	}
	return false
}

// covered: a pattern already reported a secret at this place.
func covered(found []Finding, where string) bool {
	for _, f := range found {
		if strings.HasPrefix(f.Where, where+",") {
			return true
		}
	}
	return false
}

// tokenRE finds long runs of token characters.
var tokenRE = regexp.MustCompile(`[A-Za-z0-9+/=_-]{32,}`)

// highEntropy: a token of letters and digits (upper and lower case) whose
// characters carry at least 4.8 bits each: random keys, not identifiers,
// paths or words. The bound's false-positive rate on ordinary source is
// measured in the tests.
func highEntropy(tok string) bool {
	var upper, lower, digit bool
	counts := map[rune]int{}
	for _, r := range tok {
		counts[r]++
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	if !(upper && lower && digit) {
		return false
	}
	h := 0.0
	n := float64(len(tok))
	for _, c := range counts {
		p := float64(c) / n
		h -= p * math.Log2(p)
	}
	return h >= 4.8
}
