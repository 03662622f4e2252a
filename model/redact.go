package model

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
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
	for _, f := range encodedForms(v) {
		if !slices.Contains(secrets, f) {
			secrets = append(secrets, f)
		}
	}
	slices.SortFunc(secrets, func(a, b string) int { return len(b) - len(a) })
	if len(v) >= minVariantLen {
		spread = append(spread, v, reverse(v))
	}
}

// minVariantLen: a key this long is also looked for in the forms a hostile
// program prints it in to get past a plain search (a verification's test
// reading the environment, contract §2): reversed, base64 or hex encoded,
// cut by spaces or line breaks. Shorter values would match too often.
const minVariantLen = 12

// spread are the keys (and their reversals) Redact also finds when
// separators were put between their characters (redactSpread).
var spread []string

// encodedForms are the ways v may be written whole: reversed, hex, and
// base64 in both alphabets, padded or not, at each of the three alignments
// it can have inside a longer encoded text (the characters that depend on
// v's bytes only).
func encodedForms(v string) []string {
	if len(v) < minVariantLen {
		return nil
	}
	forms := []string{reverse(v), hex.EncodeToString([]byte(v))}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for off := 0; off < 3; off++ {
			e := enc.EncodeToString(append(make([]byte, off), v...))
			// Character i covers bits [6i, 6i+6); v's are [8off, 8(off+len)).
			from := (8*off + 5) / 6
			to := (8 * (off + len(v))) / 6
			if to-from >= minVariantLen {
				forms = append(forms, e[from:to])
			}
		}
	}
	return forms
}

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// spreadSeparators are what a program may put between a key's characters
// to cut it: blanks, line breaks, quotes, commas, plus signs.
func spreadSeparator(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', ',', '+', '|', '\\':
		return true
	}
	return false
}

// redactSpread replaces each key (or its reversal) that appears in s once
// the separators are left out, from its first character to its last.
func redactSpread(s string) string {
	if len(spread) == 0 {
		return s
	}
	compact := make([]byte, 0, len(s))
	at := make([]int, 0, len(s)) // at[i]: the index in s of compact[i]
	for i := 0; i < len(s); i++ {
		if !spreadSeparator(s[i]) {
			compact = append(compact, s[i])
			at = append(at, i)
		}
	}
	if len(compact) == len(s) {
		return s
	}
	type span struct{ from, to int }
	var spans []span
	for _, k := range spread {
		for from := 0; ; {
			i := bytes.Index(compact[from:], []byte(k))
			if i < 0 {
				break
			}
			i += from
			spans = append(spans, span{at[i], at[i+len(k)-1] + 1})
			from = i + len(k)
		}
	}
	if len(spans) == 0 {
		return s
	}
	slices.SortFunc(spans, func(a, b span) int { return a.from - b.from })
	var b strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.from < last {
			sp.from = last
		}
		if sp.to <= last {
			continue
		}
		b.WriteString(s[last:sp.from])
		b.WriteString(redactedMark)
		last = sp.to
	}
	b.WriteString(s[last:])
	return b.String()
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

// Redact removes secrets from s: every remembered key value (also
// reversed, hex or base64 encoded, or cut by separators: encodedForms,
// redactSpread), bearer and api-key tokens, OpenAI/Anthropic-shaped keys
// and URL user-info.
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
	s = redactSpread(s)
	secretsMu.RUnlock()
	s = userInfoRE.ReplaceAllString(s, "${1}"+redactedMark+"@")
	s = bearerRE.ReplaceAllString(s, "${1}${2}"+redactedMark)
	s = apiKeyRE.ReplaceAllString(s, "${1}${2}"+redactedMark)
	s = skKeyRE.ReplaceAllString(s, redactedMark)
	return s
}
