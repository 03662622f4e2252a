package acp

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/aide-lsp/aide-lsp/estimate"
)

// What the client sends in a prompt (docs/contract.md §10): text blocks
// are the task; a resource link to a file under the root is the focus
// file (the first one; the others are named in the task). Nothing else
// was declared in initialize, so nothing else is read.

// maxTaskBytes bounds a prompt's task: it goes into every architect call.
const maxTaskBytes = 64 << 10

// promptInput is a prompt read.
type promptInput struct {
	task  string
	focus string // absolute path of the focus file, "" none
}

// readPrompt reads a prompt's blocks. root is the session's root; a link
// outside it, to a folder, or not a file: URI is named in the task, never
// read.
func readPrompt(blocks []sdk.ContentBlock, root string) (promptInput, error) {
	var in promptInput
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.ResourceLink != nil:
			path, ok := fileUnder(b.ResourceLink.Uri, root)
			switch {
			case ok && in.focus == "":
				in.focus = path
			case ok:
				rel, _ := filepath.Rel(root, path)
				parts = append(parts, "(see also "+filepath.ToSlash(rel)+")")
			}
		}
	}
	task := strings.TrimSpace(strings.ToValidUTF8(strings.Join(parts, "\n"), "\uFFFD"))
	if len(task) > maxTaskBytes {
		return promptInput{}, fmt.Errorf("the prompt is %d bytes; aide takes tasks of at most %d: say what to change and attach the file as a link", len(task), maxTaskBytes)
	}
	if task == "" {
		return promptInput{}, errors.New("the prompt has no text: write the task (a file attached as a link is the file to work on)")
	}
	in.task = task
	return in, nil
}

// fileUnder is the absolute path of a file: URI (or absolute path) that
// names a regular file inside root after resolving links.
func fileUnder(uri, root string) (string, bool) {
	path := uri
	if strings.Contains(uri, "://") || strings.HasPrefix(uri, "file:") {
		u, err := url.Parse(uri)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
			return "", false
		}
		path = u.Path
	}
	if !utf8.ValidString(path) || strings.ContainsRune(path, 0) || !filepath.IsAbs(path) {
		return "", false
	}
	real, err := filepath.EvalSymlinks(filepath.Clean(path))
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	st, err := os.Stat(real)
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return real, true
}

func fileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// estimateLine is an editor call's estimate as an approve option names it:
// "~1,234 prompt tokens, ~300 completion tokens, ~$0.0012".
func estimateLine(e estimate.Estimate) string {
	line := fmt.Sprintf("~%s prompt tokens", thousands(e.PromptTokens))
	if !e.Counted {
		line += " (estimated)"
	}
	if e.History > 0 {
		line += fmt.Sprintf(", ~%s completion tokens", thousands(e.CompletionTokens))
	}
	if e.Priced {
		line += fmt.Sprintf(", ~$%.4f", e.CostUSD) + e.PriceNote()
	}
	return line
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
