package secretname

import "testing"

func TestMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, word string
		secret     bool
	}{
		{"GITHUB_TOKEN", "TOKEN", true},
		{"github_token", "TOKEN", true},
		{"DB_PASSWORD", "PASSWORD", true},
		{"AWS_SECRET_ACCESS_KEY", "SECRET", true},
		{"OPENAI_API_KEY", "API_KEY", true},
		{"X_AUTHORIZATION", "AUTH", true},
		{"LOG_LEVEL", "", false},
		{"PATH", "", false},
		{"", "", false},
	}
	for _, tc := range tests {
		w, secret := Match(tc.name)
		if secret != tc.secret {
			t.Errorf("Match(%q) secret = %v, want %v", tc.name, secret, tc.secret)
		}
		if w != tc.word {
			t.Errorf("Match(%q) word = %q, want %q", tc.name, w, tc.word)
		}
	}
}
