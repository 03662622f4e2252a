package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
)

// termSafe escapes what a model or a repository could use to take over a
// terminal or hide text on it (contract §8): escape sequences and other
// control characters (newlines and tabs stay), bidi overrides, zero-width
// characters. They are shown as \u{...}.
func termSafe(s string) string {
	if strings.IndexFunc(s, hidden) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hidden(r) {
			fmt.Fprintf(&b, `\u{%x}`, r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func hidden(r rune) bool {
	if r == '\n' || r == '\t' {
		return false
	}
	return unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 ||
		r == 0x200E || r == 0x200F || r == 0x061C || r >= 0x200B && r <= 0x200D || r == 0x2060 || r == 0xFEFF
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// safeWriter escapes everything written to it with termSafe.
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, termSafe(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
