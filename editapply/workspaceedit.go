package editapply

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

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
	// LabelOf, when set, is each hunk's annotation label instead of Label.
	LabelOf func(Hunk) string
}

// NeedsResourceOps reports whether a hunk can only be delivered as a
// resource operation (create, rename, delete). BuildWorkspaceEdit leaves such
// hunks out when BuildOptions.ResourceOps is false: check first and refuse
// them (or apply them another way) rather than lose them silently.
func NeedsResourceOps(h Hunk) bool {
	return h.Kind == KindDelete || h.Kind == KindRename || h.Created
}

// BuildWorkspaceEdit builds versioned TextDocumentEdits (and resource
// operations) for hunks; doc gives each path's document.
//
// Shape: documentChanges only (never changes). Per path, in the order of the
// path's first hunk: a CreateFile {kind:"create"} for a created file, then
// one TextDocumentEdit (textDocument {uri, version}, version null when not
// open — and always for a created file) holding the minimal edits of all the
// path's text hunks, then a RenameFile {kind:"rename"} or DeleteFile
// {kind:"delete"}. With Annotated, every edit is an AnnotatedTextEdit and
// every resource operation carries an annotationId; the annotation id is the
// hunk id, with label opts.Label, the hunk's summary as description and
// needsConfirmation true. Without Annotated the edits are plain TextEdits.
// A hunk whose OldText no longer stands at its range in Doc.Content is left
// out (Rebase first).
func BuildWorkspaceEdit(hunks []Hunk, doc func(path string) Doc, opts BuildOptions) protocol.WorkspaceEdit {
	enc := opts.Encoding
	if enc == "" {
		enc = UTF16
	}
	var we protocol.WorkspaceEdit
	type group struct {
		path  string
		hunks []Hunk
	}
	var order []*group
	byPath := map[string]*group{}
	for _, h := range hunks {
		g := byPath[h.Path]
		if g == nil {
			g = &group{path: h.Path}
			byPath[h.Path] = g
			order = append(order, g)
		}
		g.hunks = append(g.hunks, h)
	}
	annotate := func(h Hunk) protocol.ChangeAnnotationIdentifier {
		if !opts.Annotated {
			return ""
		}
		if we.ChangeAnnotations == nil {
			we.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{}
		}
		yes := true
		desc := h.Summary
		label := opts.Label
		if opts.LabelOf != nil {
			label = opts.LabelOf(h)
		}
		if label == "" {
			label = "AIDE"
		}
		id := protocol.ChangeAnnotationIdentifier(h.ID)
		we.ChangeAnnotations[id] = protocol.ChangeAnnotation{Label: label, NeedsConfirmation: &yes, Description: &desc}
		return id
	}
	for _, g := range order {
		d := doc(g.path)
		idx := newLineIndex(d.Content)
		var edits []protocol.TextDocumentEditElement
		created := false
		var tail []protocol.DocumentChange
		for _, h := range g.hunks {
			switch {
			case h.Kind == KindDelete:
				if !opts.ResourceOps {
					continue
				}
				del := &protocol.DeleteFile{Kind: "delete", URI: d.URI}
				del.ResourceOperation.Kind = "delete"
				del.AnnotationID = annotate(h)
				tail = append(tail, del)
			case h.Kind == KindRename:
				if !opts.ResourceOps {
					continue
				}
				ren := &protocol.RenameFile{Kind: "rename", OldURI: d.URI, NewURI: doc(h.NewPath).URI}
				ren.ResourceOperation.Kind = "rename"
				ren.AnnotationID = annotate(h)
				tail = append(tail, ren)
			case h.Created:
				if !opts.ResourceOps {
					continue
				}
				if !created {
					no := false
					cr := &protocol.CreateFile{Kind: "create", URI: d.URI, Options: &protocol.CreateFileOptions{Overwrite: &no, IgnoreIfExists: &no}}
					cr.ResourceOperation.Kind = "create"
					cr.AnnotationID = annotate(h)
					we.DocumentChanges = append(we.DocumentChanges, cr)
					created = true
				}
				// The new document is empty: insert at its start.
				for _, te := range textEditsIndexed(Hunk{Kind: KindWrite, NewText: h.NewText}, "", enc, newLineIndex("")) {
					edits = append(edits, element(te, annotate(h)))
				}
			default:
				id := annotate(h)
				for _, te := range textEditsIndexed(h, d.Content, enc, idx) {
					edits = append(edits, element(te, id))
				}
			}
		}
		if len(edits) > 0 {
			version := d.Version
			if created {
				version = nil
			}
			we.DocumentChanges = append(we.DocumentChanges, &protocol.TextDocumentEdit{
				TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
					TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: d.URI},
					Version:                version,
				},
				Edits: edits,
			})
		}
		we.DocumentChanges = append(we.DocumentChanges, tail...)
	}
	return we
}

func element(te protocol.TextEdit, id protocol.ChangeAnnotationIdentifier) protocol.TextDocumentEditElement {
	if id == "" {
		t := te
		return &t
	}
	return &protocol.AnnotatedTextEdit{TextEdit: te, AnnotationID: id}
}
