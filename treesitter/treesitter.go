// Package treesitter grounds the architect: it parses source files with
// tree-sitter, extracts tags (definitions and references), builds a ranked
// repository map under a token budget, and syntax-checks edited text.
//
// Tags are definitions (with a one-line signature), from a tree-sitter
// query per language limited to the depth where definitions live
// (languages.go, depth.go), and the names a file references, from a
// lexical scan (lexrefs.go). The Index keeps tags, not trees (except the
// last few files Update saw, for incremental parses: trees.go), and caches
// them in one file per index,
// <cacheDir>/tags-v3.bin, keyed by content hash and written in units as a
// build goes (cache.go, cachewriter.go), which it maps
// and decodes a file at a time when asked. The map is a personalised
// PageRank over the file reference graph (rank.go, names.go), saved beside
// the cache and mapped by a warm start (graphfile.go); its token estimate
// is EstimateTokens: bytes/4, rounded up.
//
// Benchmarks on $(go env GOROOT)/src (bench_test.go):
//
//	go test ./treesitter/ -run '^$' -bench . -benchtime 1x
package treesitter

import (
	"sync"
	"time"
)

// Tag is one definition or reference in a file.
type Tag struct {
	Path      string // root-relative
	Name      string
	Kind      string // "function", "method", "type", "class", "interface", "constant", ...
	Line      int    // 1-based
	Signature string // the definition's first line(s), trimmed
	Def       bool   // false for references
}

// Stats describe an indexing run (aide-lsp map --stats).
type Stats struct {
	Files       int
	Symbols     int
	BytesParsed int64
	CacheHits   int
	Duration    time.Duration
}

// MapRequest asks for a repository map ranked toward a task.
type MapRequest struct {
	Focus  []string // root-relative paths, e.g. the file at the cursor
	Task   string   // identifiers named here rank higher
	Tokens int      // budget; the estimate is documented in the package

	// related are the files the focus files include or import, with the
	// weight of their restart (includes.go); Map fills it.
	related map[string]float64
}

// Index holds the tags of a workspace; safe for concurrent use.
type Index struct {
	root     string
	cacheDir string

	buildMu sync.Mutex // one Build at a time
	mu      sync.Mutex // guards st and queue
	st      *state
	queue   *buildQueue           // of the running Build, nil between builds (near.go)
	admit   func(rel string) bool // Preload's (warm.go)
	graphMu sync.Mutex            // one graph build at a time (graph, PrepareMap)

	startedOnce sync.Once
	startedMu   sync.Mutex
	started     chan struct{} // closed when the first Build has its list (Started)

	trees recentTrees // of the files Update saw last (trees.go)

	rebuilt func() // tests: called, under mu, when a background graph rebuild is installed
}

// NewIndex makes an index of root with its tag cache in cacheDir
// (normally UserCacheDir's folder for root; "" keeps no cache).
func NewIndex(root, cacheDir string) *Index { return &Index{root: root, cacheDir: cacheDir} }

// Build, Update, Remove and Map are in index.go and rank.go; Language in
// languages.go; SyntaxCheck in syntax.go.

// SyntaxError is a syntax error introduced by an edit.
type SyntaxError struct {
	Path      string
	Line, Col int // 1-based
	Message   string
}

// Error reads "main.go:12:5: syntax error: missing '}' in block".
func (e *SyntaxError) Error() string { return syntaxErrorText(e) }
