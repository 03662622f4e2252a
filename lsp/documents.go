package lsp

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/editapply"
)

// Document is one open buffer, as Get returns it.
type Document struct {
	URI        string
	Path       string // absolute file path ("" for non-file URIs)
	LanguageID string
	Version    int32
	Text       string
}

// openDoc is the store's record of one open buffer; its text is edited in
// place (textBuffer), so it never leaves the store: readers get strings.
type openDoc struct {
	uri, path, languageID string
	version               int32
	text                  *textBuffer
	held                  map[int32][]contentChange // ChangeConsecutive: changes that came before their predecessor
}

// Documents is the store of open buffers, keyed by URI. It implements
// workspace.Buffers. Changes arrive in order (notifications are handled
// inline), so a version never goes backwards; the mutex guards against the
// concurrent readers (requests, background work). A reader gets the text
// and version of one moment: Buffer's string is a snapshot that later
// changes do not touch.
type Documents struct {
	mu     sync.Mutex // guards the maps, total and every openDoc in them
	byURI  map[string]*openDoc
	byPath map[string]*openDoc
	// dropped are the URIs opened but not kept (Open's limits): their
	// changes are ignored, not errors.
	dropped map[string]bool
	total   int // bytes of text held, over every document
	// limitDocs and limitBytes are the limits (maxOpenDocuments,
	// maxOpenBytes; tests lower them).
	limitDocs, limitBytes int
}

// The store's limits (contract §8): an editor, or a hostile client, that opens
// document after document must not exhaust the server. A frame is at most
// MaxFrameBytes, so without them any number of 64 MiB documents is held.
const (
	maxOpenDocuments = 2000
	maxOpenBytes     = 512 << 20
)

func newDocuments() *Documents {
	return &Documents{byURI: map[string]*openDoc{}, byPath: map[string]*openDoc{}, dropped: map[string]bool{},
		limitDocs: maxOpenDocuments, limitBytes: maxOpenBytes}
}

// Drop records a didOpen the server does not keep (a file outside the
// workspace roots): its later changes and close are ignored.
func (d *Documents) Drop(u string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.forget(u)
	d.dropped[u] = true
}

// ErrStoreFull is Open's refusal when the store's limits are reached.
var ErrStoreFull = fmt.Errorf("aide-lsp keeps at most %d open documents and %d MiB of their text: close some documents", maxOpenDocuments, maxOpenBytes>>20)

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

// Open records a didOpen and returns the document's path ("" for a
// non-file URI).
// Past the store's limits the document is not kept (it is dropped, as
// Drop does) and err is ErrStoreFull.
func (d *Documents) Open(u, languageID string, version int32, text string) (path string, err error) {
	doc := &openDoc{uri: u, path: uriPath(u), languageID: languageID, version: version, text: newTextBuffer(text)}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.forget(u)
	if len(d.byURI) >= d.limitDocs || d.total+len(text) > d.limitBytes {
		d.dropped[u] = true
		return "", ErrStoreFull
	}
	d.total += len(text)
	d.byURI[u] = doc
	if doc.path != "" {
		d.byPath[doc.path] = doc
	}
	return doc.path, nil
}

// forget removes a URI's document, if any (the caller holds the lock).
func (d *Documents) forget(u string) {
	delete(d.dropped, u)
	if doc, ok := d.byURI[u]; ok {
		d.total -= doc.text.Len()
		delete(d.byURI, u)
		if doc.path != "" && d.byPath[doc.path] == doc {
			delete(d.byPath, doc.path)
		}
	}
}

// applyCounted applies changes to doc and keeps the store's total (the
// caller holds the lock).
func (d *Documents) applyCounted(doc *openDoc, changes []contentChange, enc editapply.Encoding) {
	before := doc.text.Len()
	doc.apply(changes, enc)
	d.total += doc.text.Len() - before
}

// Change applies didChange content changes in order: a change with a range
// is incremental (positions in enc), one without replaces the whole text.
// It returns the document's path ("" for a non-file URI).
func (d *Documents) Change(u string, version int32, changes []contentChange, enc editapply.Encoding) (path string, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byURI[u]
	if !ok {
		if d.dropped[u] {
			return "", nil
		}
		return "", fmt.Errorf("didChange for %s, which is not open", u)
	}
	d.applyCounted(doc, changes, enc)
	doc.version = version
	return doc.path, nil
}

// maxHeldChanges bounds the changes ChangeConsecutive holds per document:
// past it the gap is taken as real and everything is applied in order.
// Helix 25.01 was seen sending up to five changes ahead of a late one; a
// version it never sent must not hold the text back for long.
const maxHeldChanges = 16

// ChangeConsecutive is Change for a client that numbers its versions one
// by one (Helix). Helix 25.01 sends some didChange notifications out of
// order when the user types fast (version n+1 on the wire before n, seen in
// tests/helix: the server's text then differs from the buffer, and edits
// built on it are refused as outdated). A change that skips a version is
// held until the missing ones arrive; then all are applied in version
// order. applied is false when this change was held; now is the version
// the document is at.
func (d *Documents) ChangeConsecutive(u string, version int32, changes []contentChange, enc editapply.Encoding) (path string, now int32, applied bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byURI[u]
	if !ok {
		if d.dropped[u] {
			return "", 0, false, nil
		}
		return "", 0, false, fmt.Errorf("didChange for %s, which is not open", u)
	}
	if version > doc.version+1 {
		if len(doc.held) < maxHeldChanges {
			if doc.held == nil {
				doc.held = map[int32][]contentChange{}
			}
			doc.held[version] = changes
			return doc.path, doc.version, false, nil
		}
		// Full: the gap is real. What is held goes first, in version order.
		held := make([]int32, 0, len(doc.held))
		for v := range doc.held {
			held = append(held, v)
		}
		slices.Sort(held)
		for _, v := range held {
			d.applyCounted(doc, doc.held[v], enc)
			doc.version = v
		}
		doc.held = nil
	}
	d.applyCounted(doc, changes, enc)
	// A change later than a gap taken as real does not take the version
	// back: edits must name the newest one.
	doc.version = max(doc.version, version)
	for {
		next, ok := doc.held[doc.version+1]
		if !ok {
			break
		}
		delete(doc.held, doc.version+1)
		d.applyCounted(doc, next, enc)
		doc.version++
	}
	return doc.path, doc.version, true, nil
}

// apply applies content changes in order (the caller holds the lock).
func (doc *openDoc) apply(changes []contentChange, enc editapply.Encoding) {
	for _, c := range changes {
		if c.Range == nil {
			doc.text = newTextBuffer(c.Text)
			continue
		}
		start := doc.text.offset(toPos(c.Range.Start), enc)
		end := doc.text.offset(toPos(c.Range.End), enc)
		if end < start {
			start, end = end, start
		}
		doc.text.replace(start, end, c.Text)
	}
}

// Close forgets a document.
func (d *Documents) Close(u string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.forget(u)
}

// Get returns a copy of the open document of a URI, text included (made
// into a string when it changed since the last reader: prefer Buffer's
// siblings below when the text is not needed).
func (d *Documents) Get(u string) (Document, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byURI[u]
	if !ok {
		return Document{}, false
	}
	return Document{URI: doc.uri, Path: doc.path, LanguageID: doc.languageID, Version: doc.version, Text: doc.text.String()}, true
}

// pathVersion returns the path and version of the open document of a URI,
// without its text.
func (d *Documents) pathVersion(u string) (path string, version int32, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byURI[u]
	if !ok {
		return "", 0, false
	}
	return doc.path, doc.version, true
}

// Buffer implements workspace.Buffers: the open buffer of an absolute path.
func (d *Documents) Buffer(abs string) (text string, version int32, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[filepath.Clean(abs)]
	if !ok {
		return "", 0, false
	}
	return doc.text.String(), doc.version, true
}

// Lines returns '\n'-separated lines [lo, hi) of the open buffer of an
// absolute path (clamped to the text, each with its '\n'), the line index
// of the first one returned, and the buffer's line count; it copies those
// lines only.
func (d *Documents) Lines(abs string, lo, hi int) (text string, first, count int, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	doc, ok := d.byPath[filepath.Clean(abs)]
	if !ok {
		return "", 0, 0, false
	}
	count = doc.text.lineCount()
	from, to := doc.text.lineSpan(lo, hi)
	return doc.text.slice(from, to), max(lo, 0), count, true
}

func toPos(p protocol.Position) editapply.Pos {
	return editapply.Pos{Line: int(p.Line), Char: int(p.Character)}
}
