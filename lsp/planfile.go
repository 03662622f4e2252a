package lsp

import (
	"context"
	"path/filepath"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/editapply"
)

// planFiles keeps an open plan file (.aide/plans/<session>.md, the file
// form of contract §5) following the file while the engine rewrites it:
// Helix and Neovim do not reload a buffer whose file changed on disk, so
// the new content is delivered as a workspace/applyEdit replacing the whole
// buffer at its version. A buffer the user has edited is never touched.
type planFiles struct {
	mu    sync.Mutex // guards files
	files map[string]*planFile
}

// planFile is the sync state of one plan file.
type planFile struct {
	// known are the texts the buffer holds when the user has not edited
	// it: the text last written or applied, and the one before it while
	// an applyEdit of ours may not have reached the buffer yet.
	known   [2]string
	next    string // the newest text, not delivered yet
	pending bool   // next is set
	running bool   // a goroutine is delivering
}

// syncPlanFile delivers doc's text to the plan file's open buffer; the
// delivery runs in the background (the engine calls this while the plan
// streams in and must not wait for the editor), newest text wins.
func (s *Server) syncPlanFile(doc commands.PlanDoc) {
	p := s.Profile()
	if p.PlanDocument || doc.Path == "" {
		return // the virtual form follows by aide/planDocumentChanged
	}
	path := filepath.Clean(doc.Path)
	s.plans.mu.Lock()
	if s.plans.files == nil {
		s.plans.files = map[string]*planFile{}
	}
	f := s.plans.files[path]
	if f == nil {
		f = &planFile{}
		s.plans.files[path] = f
	}
	f.next, f.pending = doc.Text, true
	if f.running {
		s.plans.mu.Unlock()
		return
	}
	f.running = true
	s.plans.mu.Unlock()
	s.Go(func(ctx context.Context) {
		for {
			s.plans.mu.Lock()
			if !f.pending || ctx.Err() != nil {
				f.running = false
				s.plans.mu.Unlock()
				return
			}
			text := f.next
			f.pending = false
			known := f.known
			s.plans.mu.Unlock()
			if s.deliverPlanText(ctx, path, text, known) {
				s.plans.mu.Lock()
				f.known = [2]string{text, known[0]}
				s.plans.mu.Unlock()
			}
		}
	})
}

// deliverPlanText brings the open buffer of path to text when the user has
// not edited it; it reports whether the buffer (or the file, when it is not
// open) now holds text.
func (s *Server) deliverPlanText(ctx context.Context, path, text string, known [2]string) bool {
	buffer, version, open := s.docs.Buffer(path)
	switch {
	case !open:
		return true // the editor reads the file, which holds text, when it opens it
	case buffer == text:
		return true
	case buffer != known[0] && buffer != known[1]:
		s.log.Debug("the plan file buffer was edited; not replacing it", "path", path)
		return false
	case !s.Profile().ApplyEdit:
		return false
	}
	enc := s.encoding()
	end := editapply.OffsetToPos(buffer, len(buffer), enc)
	label := "AIDE: plan updated"
	edit := protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.TextDocumentEdit{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(path)},
			Version:                &version,
		},
		Edits: []protocol.TextDocumentEditElement{&protocol.TextEdit{
			Range:   protocol.Range{End: protocol.Position{Line: uint32(end.Line), Character: uint32(end.Char)}},
			NewText: text,
		}},
	}}}
	var res protocol.ApplyWorkspaceEditResult
	if err := s.call(ctx, "workspace/applyEdit", protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit}, &res); err != nil {
		s.log.Debug("the plan file buffer was not updated", "path", path, "err", err)
		return false
	}
	return res.Applied
}
