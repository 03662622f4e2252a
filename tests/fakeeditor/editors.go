package fakeeditor

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"go.lsp.dev/protocol"
)

// applyLikeNeovim is Neovim 0.7–0.11's util.apply_workspace_edit: change
// annotations are ignored, a TextDocumentEdit whose version is older than
// the buffer's is skipped silently, and the answer is applied:true anyway.
func (e *Editor) applyLikeNeovim(edit protocol.WorkspaceEdit) protocol.ApplyWorkspaceEditResult {
	for _, ch := range edit.DocumentChanges {
		switch c := ch.(type) {
		case *protocol.TextDocumentEdit:
			u := string(c.TextDocument.URI)
			if c.TextDocument.Version != nil {
				if _, version, open := e.docByURI(u); open && version != *c.TextDocument.Version {
					continue // "buffer newer than edits": skipped, not reported
				}
			}
			_ = e.applyTextEdits(u, plainEdits(c.Edits))
		case *protocol.CreateFile:
			_ = e.createFile(string(c.URI))
		case *protocol.RenameFile:
			_ = e.renameFile(string(c.OldURI), string(c.NewURI))
		case *protocol.DeleteFile:
			_ = os.RemoveAll(e.pathOf(string(c.URI)))
		}
	}
	for u, edits := range edit.Changes {
		_ = e.applyTextEdits(string(u), edits)
	}
	return protocol.ApplyWorkspaceEditResult{Applied: true}
}

// applyLikeHelix is Helix 25.x: document changes are applied in order; a
// stale version stops there with applied:false, and what was applied before
// it stays applied.
func (e *Editor) applyLikeHelix(edit protocol.WorkspaceEdit) protocol.ApplyWorkspaceEditResult {
	for i, ch := range edit.DocumentChanges {
		var err error
		switch c := ch.(type) {
		case *protocol.TextDocumentEdit:
			u := string(c.TextDocument.URI)
			if c.TextDocument.Version != nil {
				if _, version, open := e.docByURI(u); open && version != *c.TextDocument.Version {
					err = fmt.Errorf("stale version %d of %s", *c.TextDocument.Version, u)
					break
				}
			}
			err = e.applyTextEdits(u, plainEdits(c.Edits))
		case *protocol.CreateFile:
			err = e.createFile(string(c.URI))
		case *protocol.RenameFile:
			err = e.renameFile(string(c.OldURI), string(c.NewURI))
		case *protocol.DeleteFile:
			err = os.RemoveAll(e.pathOf(string(c.URI)))
		}
		if err != nil {
			reason, idx := err.Error(), uint32(i)
			return protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason, FailedChange: &idx}
		}
	}
	for u, edits := range edit.Changes {
		_ = e.applyTextEdits(string(u), edits)
	}
	return protocol.ApplyWorkspaceEditResult{Applied: true}
}

func plainEdits(els []protocol.TextDocumentEditElement) []protocol.TextEdit {
	var out []protocol.TextEdit
	for _, el := range els {
		switch x := el.(type) {
		case *protocol.TextEdit:
			out = append(out, *x)
		case *protocol.AnnotatedTextEdit:
			out = append(out, x.TextEdit)
		}
	}
	return out
}

// ApplyAnnotated is VS Code's Refactor Preview with some entries unticked:
// only the edits whose change annotation keep accepts are applied (edits
// without an annotation always are), then the edit is applied as VS Code
// applies it. Use it from Options.ApplyEdit.
func (e *Editor) ApplyAnnotated(edit protocol.WorkspaceEdit, keep func(annotationID string) bool) protocol.ApplyWorkspaceEditResult {
	var kept []protocol.DocumentChange
	for _, ch := range edit.DocumentChanges {
		c, ok := ch.(*protocol.TextDocumentEdit)
		if !ok {
			kept = append(kept, ch)
			continue
		}
		var els []protocol.TextDocumentEditElement
		for _, el := range c.Edits {
			if a, ok := el.(*protocol.AnnotatedTextEdit); ok && !keep(string(a.AnnotationID)) {
				continue
			}
			els = append(els, el)
		}
		if len(els) > 0 {
			cp := *c
			cp.Edits = els
			kept = append(kept, &cp)
		}
	}
	edit.DocumentChanges = kept
	return e.applyLikeVSCode(edit)
}

// Pick does what an editor does when the user picks a code action: apply
// its edit (as the profile's editor applies edits), then run its command.
// It returns the command's result (nil without a command).
func (e *Editor) Pick(a CodeAction) (json.RawMessage, error) {
	e.t.Helper()
	if len(a.Edit) > 0 && string(a.Edit) != "null" {
		var we protocol.WorkspaceEdit
		if err := protocol.Unmarshal(a.Edit, &we); err != nil {
			return nil, fmt.Errorf("fakeeditor: the edit of %q: %w", a.Title, err)
		}
		e.ApplyWorkspaceEdit(we)
	}
	if a.Command == nil {
		return nil, nil
	}
	var arg any
	if len(a.Command.Arguments) > 0 {
		arg = a.Command.Arguments[0]
	}
	res, _, err := e.ExecuteCommand(a.Command.Command, arg)
	return res, err
}

// FindAction returns the first action whose title starts with prefix.
func FindAction(actions []CodeAction, prefix string) (CodeAction, bool) {
	for _, a := range actions {
		if strings.HasPrefix(a.Title, prefix) {
			return a, true
		}
	}
	return CodeAction{}, false
}

// Diagnostic is a published diagnostic as the server sent it.
type Diagnostic struct {
	Range    protocol.Range  `json:"range"`
	Severity int             `json:"severity"`
	Source   string          `json:"source"`
	Code     string          `json:"code"`
	Message  string          `json:"message"`
	Data     json.RawMessage `json:"data"`
}

// Diagnostics returns the latest diagnostics published for a path (nil
// when none were ever published).
func (e *Editor) Diagnostics(path string) []Diagnostic {
	u := e.URI(path)
	var last []Diagnostic
	for _, m := range e.Notifications("textDocument/publishDiagnostics") {
		var p struct {
			URI         string       `json:"uri"`
			Diagnostics []Diagnostic `json:"diagnostics"`
		}
		if json.Unmarshal(m.Params, &p) == nil && p.URI == u {
			last = p.Diagnostics
			if last == nil {
				last = []Diagnostic{}
			}
		}
	}
	return last
}
