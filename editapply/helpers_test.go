package editapply

import "go.lsp.dev/protocol"

// mapFiles is Files over a map: path → content.
type mapFiles map[string]string

func (m mapFiles) Read(p string) (string, bool, error) {
	c, ok := m[p]
	return c, ok, nil
}

// Paths lets the case-clash guard see every file, as a directory listing
// does on disk.
func (m mapFiles) Paths() []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	return out
}

// TextEdits returns the minimal TextEdits of one KindEdit/KindWrite hunk
// against content, with positions in enc. It returns nil when content no
// longer holds the hunk's OldText at its range (Rebase the hunk first).
func TextEdits(h Hunk, content string, enc Encoding) []protocol.TextEdit {
	return textEditsIndexed(h, content, enc, newLineIndex(content))
}
