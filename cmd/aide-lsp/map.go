package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/treesitter"
	"github.com/aide-lsp/aide-lsp/workspace"
)

const mapUsage = `Usage: aide-lsp map [--dir DIR] [--tokens N] [--focus FILE]... [--stats] [TASK...]

Print the repository map the architect would get: files and the signatures
of their definitions (tree-sitter; Go, Python, JavaScript, TypeScript, TSX,
Rust, Java, C, C++, Ruby, Bash), ranked toward the focus files and the
identifiers named in TASK, cut to the token budget (1 token ≈ 4 bytes).
Tags are cached in DIR/.aide/cache, keyed by content hash.

Flags:
  --dir DIR      workspace root (default .)
  --tokens N     token budget (default: repoMapTokens of the configuration, 1024)
  --focus FILE   file at the cursor, relative to DIR; repeatable
  --cache DIR    tag cache folder (default DIR/.aide/cache)
  --stats        after the map, print files, symbols, bytes parsed, cache hits
                 and time taken (listing, indexing, ranking) to stderr, so
                 stdout stays the map alone

Examples:
  aide-lsp map
  aide-lsp map --focus internal/server/handler.go --tokens 2048
  aide-lsp map --dir ~/src/project --stats "retry failed uploads in UploadQueue"
`

func runMap(args []string, stdout, stderr io.Writer) int {
	fl := newFlags("map", mapUsage)
	fl.Usage = func() { fmt.Fprint(fl.Output(), mapUsage) } // mapUsage describes its flags itself
	dir := fl.String("dir", ".", "")
	tokens := fl.Int("tokens", 0, "")
	cacheDir := fl.String("cache", "", "")
	stats := fl.Bool("stats", false, "")
	var focus multiFlag
	fl.Var(&focus, "focus", "")
	if code, done := parseFlags(fl, args, stdout, stderr); done {
		return code
	}
	root, err := workspaceDir(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "aide-lsp map: %v; give an existing folder\n", err)
		return exitUsage
	}

	cfg := loadConfig("map", root, "", "", nil, stderr).Config
	budget := cfg.RepoMapTokens
	if *tokens != 0 {
		budget = *tokens
	}
	if budget <= 0 {
		fmt.Fprintf(stderr, "aide-lsp map: --tokens %d: the budget must be a positive number of tokens\n", budget)
		return exitUsage
	}
	var focusRel []string
	for _, f := range focus {
		rel := f
		if filepath.IsAbs(f) {
			if rel, err = filepath.Rel(root, f); err != nil || !filepath.IsLocal(rel) {
				fmt.Fprintf(stderr, "aide-lsp map: --focus %s is outside %s; give a path inside --dir\n", f, root)
				return exitUsage
			}
		}
		focusRel = append(focusRel, filepath.ToSlash(filepath.Clean(rel)))
	}
	if *cacheDir == "" {
		*cacheDir = filepath.Join(root, ".aide", "cache")
	}

	ctx := context.Background()
	listStart := time.Now()
	files, err := listFiles(ctx, root, cfg.Deny)
	listTime := time.Since(listStart)
	if err != nil {
		fmt.Fprintf(stderr, "aide-lsp map: listing %s: %v\n", root, err)
		return exitFailed
	}
	ix := treesitter.NewIndex(root, *cacheDir)
	st, err := ix.Build(ctx, files)
	if err != nil {
		// The map is still good; only the cache could not be written.
		fmt.Fprintf(stderr, "aide-lsp map: tag cache not saved: %v\n", err)
	}
	mapStart := time.Now()
	fmt.Fprint(stdout, ix.Map(treesitter.MapRequest{
		Focus:  focusRel,
		Task:   strings.Join(fl.Args(), " "),
		Tokens: budget,
	}))
	if *stats {
		fmt.Fprintf(stderr, "files %d, symbols %d, bytes parsed %d, cache hits %d, time %s (listing %s, indexing %s, ranking %s)\n",
			st.Files, st.Symbols, st.BytesParsed, st.CacheHits,
			(listTime + st.Duration + time.Since(mapStart)).Round(time.Millisecond),
			listTime.Round(time.Millisecond), st.Duration.Round(time.Millisecond),
			time.Since(mapStart).Round(time.Millisecond))
	}
	return exitOK
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// listFiles lists the workspace's files with the workspace's rules
// (.gitignore, deny list). Until the workspace package can open a folder,
// it walks the folder itself, skipping .git, .aide, vendor and node_modules.
func listFiles(ctx context.Context, root string, deny []string) ([]string, error) {
	if w, err := workspace.Open([]string{root}, deny); err == nil {
		if files, err := w.Files(ctx); err == nil && len(files) > 0 {
			// Vendored and installed dependencies are not the project:
			// they would crowd the map and multiply the indexing time.
			kept := files[:0]
			for _, f := range files {
				if !inSkippedDir(f) {
					kept = append(kept, f)
				}
			}
			return kept, nil
		}
	}
	// TODO(workspace): drop this walk once workspace.Open/Files are in
	// every build; it knows no .gitignore.
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // an unreadable folder is skipped, not fatal
		}
		if d.IsDir() {
			if p != root && skippedDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err == nil {
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// skippedDirs are folders the map never lists: version control, our own
// state, and dependencies.
var skippedDirs = map[string]bool{".git": true, ".aide": true, ".hg": true, ".svn": true, "vendor": true, "node_modules": true}

func inSkippedDir(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if skippedDirs[p] {
			return true
		}
	}
	return false
}
