package editapply

import (
	"errors"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// ToolSchema describes one editor tool of contract §9 (JSON Schema parameters).
type ToolSchema struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// Tools returns edit_file, write_file, delete_file and rename_file.
func Tools() []ToolSchema { return nil }

// FromToolCall parses one tool call of contract §9 into an Edit.
func FromToolCall(name, arguments string) (Edit, error) {
	return Edit{}, errors.New("editapply: not implemented yet")
}

// ParseText finds the edits written in a text answer: SEARCH/REPLACE blocks
// and unified diffs in ```diff fences.
func ParseText(text string) ([]Edit, error) { return nil, errors.New("editapply: not implemented yet") }

// Resolve matches each edit against the current content, in order, with the
// matching ladder of design.md.
func Resolve(edits []Edit, files Files, opts Options) Result { return Result{} }

// Apply applies hunks of one file (expressed against content) and returns
// the new content.
func Apply(content string, hunks []Hunk) (string, error) {
	return "", errors.New("editapply: not implemented yet")
}

// Rebase re-locates a pending hunk in its document's new content.
func Rebase(h Hunk, newContent string) (Hunk, RebaseStatus) { return h, RebaseStale }

// TextEdits returns the minimal TextEdits of one KindEdit/KindWrite hunk
// against content, with positions in enc.
func TextEdits(h Hunk, content string, enc Encoding) []protocol.TextEdit { return nil }

// Doc describes the target document of a path for BuildWorkspaceEdit.
type Doc struct {
	URI     uri.URI
	Content string
	Version *int32 // the open document's version, nil when not open
}

// BuildOptions choose the form of the WorkspaceEdit.
type BuildOptions struct {
	Label     string // change annotation label, "AIDE: <task>"
	Annotated bool   // AnnotatedTextEdits with one needsConfirmation annotation per hunk
	Encoding  Encoding
	// ResourceOps: the client supports create/rename/delete in documentChanges.
	ResourceOps bool
}

// BuildWorkspaceEdit builds versioned TextDocumentEdits (and resource
// operations) for hunks; doc gives each path's document.
func BuildWorkspaceEdit(hunks []Hunk, doc func(path string) Doc, opts BuildOptions) protocol.WorkspaceEdit {
	return protocol.WorkspaceEdit{}
}

// RenderDiff renders unified diffs per file, each hunk labelled with its id,
// for the plan document. files gives the current content.
func RenderDiff(hunks []Hunk, files Files) string { return "" }
