package lsp

import "github.com/aide-lsp/aide-lsp/clienttext"

// lspKind is the border kind of the string at path in an LSP message
// (clienttext.Classify; Stream.send applies it to every message the
// server writes). Exact: an edit's newText (the bytes the user reviews in
// the diff), and what the client sends back or opens: URIs, ids, tokens,
// command names and arguments, a diagnostic's or code action's data. A
// Markdown document: the plan document's text (aide/planDocument), the
// plan in a plan event, a hover's contents. One line: titles. Everything
// else — messages, change annotations' labels (which keep the task's
// lines), descriptions, the other fields of aide/sessionEvent — is text.
func lspKind(path []string) clienttext.Kind {
	for _, p := range path {
		if p == "arguments" || p == "data" {
			return clienttext.Exact
		}
	}
	switch path[len(path)-1] {
	case "newText", "jsonrpc", "method", "id", "uri", "oldUri", "newUri", "targetUri", "scopeUri", "token", "command",
		"annotationId", "languageId", "kind", "section", "globPattern", "session", "hunk", "event", "time":
		return clienttext.Exact
	case "text", "plan", "value":
		return clienttext.Document
	case "title":
		return clienttext.Title
	}
	return clienttext.Text
}
