package model

import (
	"strings"
	"testing"
)

// FuzzRedact: whatever text surrounds a remembered key, Redact removes it,
// and redacting twice changes nothing more.
func FuzzRedact(f *testing.F) {
	f.Add("error: key sk-abc is wrong", "fuzz-secret-value-1")
	f.Add("Bearer fuzz-secret-value-1fuzz-secret-value-1", "fuzz-secret-value-1")
	f.Add("https://u:p@h/x", "zzzzzzzz")
	f.Fuzz(func(t *testing.T, text, secret string) {
		// Keys are printable tokens; one inside the mark itself would
		// make any redaction look unfinished.
		if len(secret) < minSecretLen || strings.Contains(redactedMark, secret) || strings.ContainsFunc(secret, func(r rune) bool {
			return !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
		}) {
			return
		}
		RememberSecret(secret)
		out := Redact(text + secret + text)
		if strings.Contains(out, secret) {
			t.Fatalf("Redact(%q) kept the secret %q: %q", text+secret+text, secret, out)
		}
		if again := Redact(out); again != out {
			t.Fatalf("not idempotent: %q then %q", out, again)
		}
	})
}
