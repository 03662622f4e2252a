package lsp

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// Document is one open buffer.
type Document struct {
	URI        string
	Path       string // absolute file path ("" for non-file URIs)
	LanguageID string
	Version    int32
	Text       string
}

// Documents is the store of open buffers, keyed by URI. It implements
// workspace.Buffers. Changes arrive in order (notifications are handled
// inline), so a version never goes backwards; the mutex guards against the
// concurrent readers (requests, background work).
type Documents struct {
	mu     sync.RWMutex
	byURI  map[string]*Document
	byPath map[string]*Document
}

func newDocuments() *Documents {
	return &Documents{byURI: map[string]*Document{}, byPath: map[string]*Document{}}
}

// uriPath returns the absolute file path of a file: URI, or "".
func uriPath(u string) string {
	if !strings.HasPrefix(u, "file:") {
		return ""
	}
	parsed, err := uri.Parse(u)
	if err != nil || !parsed.IsFile() {
		return ""
	}
	return filepath.Clean(parsed.FsPath())
}

// Open records a didOpen.
func (d *Documents) Open(u, languageID string, version int32, text string) *Document {
	doc := &Document{URI: u, Path: uriPath(u), LanguageID: languageID, Version: version, Text: text}
	d.mu.Lock()
	defer d.mu.Unlock()
	if old, ok := d.byURI[u]; ok && old.Path != "" {
		delete(d.byPath, old.Path)
	}
	d.byURI[u] = doc
	if doc.Path != "" {
		d.byPath[doc.Path] = doc
	}
	return doc
}

// Change applies didChange content changes in order: a change with a range
// is incremental (positions in enc), one without replaces the whole text.
func (d *Documents) Change(u string, version int32, changes []contentChange, enc editapply.Encoding) (*Document, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byURI[u]
	if !ok {
		return nil, fmt.Errorf("didChange for %s, which is not open", u)
	}
	text := doc.Text
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		start := editapply.PosToOffset(text, toPos(c.Range.Start), enc)
		end := editapply.PosToOffset(text, toPos(c.Range.End), enc)
		if end < start {
			start, end = end, start
		}
		text = text[:start] + c.Text + text[end:]
	}
	next := *doc
	next.Text, next.Version = text, version
	d.byURI[u] = &next
	if next.Path != "" {
		d.byPath[next.Path] = &next
	}
	return &next, nil
}

// Close forgets a document.
func (d *Documents) Close(u string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if doc, ok := d.byURI[u]; ok {
		delete(d.byURI, u)
		if doc.Path != "" && d.byPath[doc.Path] == doc {
			delete(d.byPath, doc.Path)
		}
	}
}

// Get returns a copy of the open document of a URI.
func (d *Documents) Get(u string) (Document, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	doc, ok := d.byURI[u]
	if !ok {
		return Document{}, false
	}
	return *doc, true
}

// Buffer implements workspace.Buffers: the open buffer of an absolute path.
func (d *Documents) Buffer(abs string) (text string, version int32, ok bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	doc, ok := d.byPath[filepath.Clean(abs)]
	if !ok {
		return "", 0, false
	}
	return doc.Text, doc.Version, true
}

func toPos(p protocol.Position) editapply.Pos {
	return editapply.Pos{Line: int(p.Line), Char: int(p.Character)}
}
