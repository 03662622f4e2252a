package model

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Redaction (contract §8): a provider that quotes the key back in its error,
// a base URL with user:pass@, a "Bearer <key>" in an echoed header — none
// of it may reach stderr, a log, an event, a plan document or a session
// file. Every key the Router reads is remembered here, and Redact replaces
// each remembered value, any bearer token and any URL user-info. Errors of
// this package are redacted when they are formatted (Error.Error), which is
// what every writer of messages uses.

// redactedMark replaces a secret.
const redactedMark = "[redacted]"

// minSecretLen: shorter values ("x", "1") are not keys, and replacing them
// would garble every message.
const minSecretLen = 6

var (
	secretsMu sync.RWMutex
	secrets   []string // longest first, so a key that contains another goes whole
)

// RememberSecret adds a value Redact removes from every text from now on.
func RememberSecret(v string) {
	v = strings.TrimSpace(v)
	if len(v) < minSecretLen {
		return
	}
	secretsMu.Lock()
	defer secretsMu.Unlock()
	if slices.Contains(secrets, v) {
		return
	}
	secrets = append(secrets, v)
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
}

var (
	// bearerRE: "Bearer <token>" (also "Basic", "x-api-key: <token>").
	bearerRE = regexp.MustCompile(`(?i)\b(bearer|basic|token)(\s+)[A-Za-z0-9._~+/=:-]{6,}`)
	apiKeyRE = regexp.MustCompile(`(?i)\b(x-api-key|api[_-]?key|authorization)(["']?\s*[:=]\s*["']?)[A-Za-z0-9._~+/=-]{6,}`)
	// userInfoRE: scheme://user:pass@host or scheme://token@host.
	userInfoRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/\s@"'<>]+@`)
	// skKeyRE: the well-known key shapes (sk-..., sk-ant-...), even from a
	// variable the Router did not read.
	skKeyRE = regexp.MustCompile(`\bsk-[A-Za-z0-9_-]{16,}`)
)

// Redact removes secrets from s: every remembered key value, bearer and
// api-key tokens, OpenAI/Anthropic-shaped keys and URL user-info.
func Redact(s string) string {
	if s == "" {
		return s
	}
	secretsMu.RLock()
	for _, v := range secrets {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, redactedMark)
		}
	}
	secretsMu.RUnlock()
	s = userInfoRE.ReplaceAllString(s, "${1}"+redactedMark+"@")
	s = bearerRE.ReplaceAllString(s, "${1}${2}"+redactedMark)
	s = apiKeyRE.ReplaceAllString(s, "${1}${2}"+redactedMark)
	s = skKeyRE.ReplaceAllString(s, redactedMark)
	return s
}
