package main

import (
	"io"
	"os"

	"github.com/aide-lsp/aide-lsp/clienttext"
)

// termSafe is the border's terminal text (clienttext.Terminal, contract
// §8): what a model or a repository could use to take over a terminal or
// hide text on it (escape sequences and other control characters but
// newlines and tabs, bidi overrides, zero-width characters) is shown as
// \u{...}, and keys are redacted.
func termSafe(s string) string { return clienttext.Terminal(s) }

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
