package model

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

// A key printed to get past a plain search — reversed, cut, encoded — is
// still redacted (a verification's output is text a model's code wrote,
// contract §2). Each form is asserted on its own.
func TestRedactEncodedForms(t *testing.T) {
	const key = "zq-test-Rv7hW2kLp9QxT4mB"
	RememberSecret(key)
	rev := reverse(key)
	forms := map[string]string{
		"plain":            "key=" + key,
		"reversed":         "yek: " + rev + " done",
		"split by spaces":  "key: " + strings.Join(strings.Split(key, ""), " "),
		"split in two":     "first half: " + key[:10] + "\n" + key[10:] + "\n",
		"split in quotes":  `"` + key[:8] + `" + "` + key[8:16] + `" + "` + key[16:] + `"`,
		"reversed split":   rev[:9] + "\n" + rev[9:],
		"base64":           base64.StdEncoding.EncodeToString([]byte(key)),
		"base64 url":       base64.URLEncoding.EncodeToString([]byte(key)),
		"base64 raw":       base64.RawStdEncoding.EncodeToString([]byte(key)),
		"base64 embedded":  base64.StdEncoding.EncodeToString([]byte("OPENAI_API_KEY=" + key + "\nHOME=/root\n")),
		"base64 offset 1":  base64.StdEncoding.EncodeToString([]byte("K=" + key)),
		"base64 of offset": base64.StdEncoding.EncodeToString([]byte("x" + key + "y")),
		"hex":              hex.EncodeToString([]byte(key)),
	}
	secrets := []string{key, rev}
	for _, f := range encodedForms(key) {
		secrets = append(secrets, f)
	}
	for name, text := range forms {
		got := Redact(text)
		if !strings.Contains(got, redactedMark) {
			t.Errorf("%s: not redacted: %q", name, got)
		}
		for _, s := range secrets {
			if strings.Contains(got, s) {
				t.Errorf("%s: %q still holds %q", name, got, s)
			}
		}
		if strings.Contains(strings.Map(func(r rune) rune {
			if strings.ContainsRune(" \n\"+", r) {
				return -1
			}
			return r
		}, got), key[2:len(key)-2]) {
			t.Errorf("%s: the key is still readable in %q", name, got)
		}
	}
	// Ordinary text is left alone.
	if got := Redact("the build passed in 1.2 s\nok  \texample.com/w\n"); got != "the build passed in 1.2 s\nok  \texample.com/w\n" {
		t.Errorf("ordinary text changed: %q", got)
	}
}
