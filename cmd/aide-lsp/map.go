package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
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
Tags are cached in the user's cache folder ($XDG_CACHE_HOME/aide-lsp/index/,
else ~/.cache/aide-lsp/index/), one folder per workspace, keyed by content
hash; nothing under DIR is read back as a cache. On a cold
repository the map is printed as soon as the files near the focus and the
task are indexed; the index then goes on to the end (a progress line on
stderr every ten seconds) so that the next run is warm. A warm run prints
the map from the last run's cache at once, after checking the files it
names against the disk, while it lists and checks the rest.

Flags:
  --dir DIR      workspace root (default .)
  --tokens N     token budget (default: repoMapTokens of the configuration, 1024)
  --focus FILE   file at the cursor, relative to DIR; repeatable
  --cache DIR    tag cache folder (default: the workspace's folder in the
                 user's cache folder)
  --stats        after the map, print how many of the listed files the map
                 was made from (or that it came from the last session's
                 index, before the listing ended) and when (listing,
                 ranking), then the whole
                 index's files, symbols, bytes parsed, cache hits and time,
                 to stderr, so stdout stays the map alone

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
		*cacheDir = indexCacheDir("map", root, stderr)
	}

	ctx := context.Background()
	start := time.Now()
	ws, err := workspace.Open([]string{root}, cfg.Deny)
	if err != nil {
		fmt.Fprintf(stderr, "aide-lsp map: listing %s: %v\n", root, err)
		return exitFailed
	}
	// A warm start maps from the last session's index at once, checking
	// what the map reads; the listing and the build run meanwhile
	// (treesitter/warm.go). A cold one lists first, then maps from the
	// files near the request as soon as they are indexed (the progressive
	// index); either way the build goes on after the map, so that the tag
	// cache is complete for the next run.
	ix := treesitter.NewIndex(root, *cacheDir)
	warm := ix.Preload(ws.Listed)
	type result struct {
		st  treesitter.Stats
		err error
	}
	var (
		listTime time.Duration
		listErr  error
		listed   = make(chan struct{}) // closed when the listing ended
		built    = make(chan result, 1)
	)
	go func() {
		files, err := listFiles(ctx, ws, stderr)
		listTime, listErr = time.Since(start), err
		close(listed)
		if err != nil {
			built <- result{err: err}
			return
		}
		st, err := ix.Build(ctx, files)
		built <- result{st, err}
	}()
	if !warm {
		if <-listed; listErr != nil {
			fmt.Fprintf(stderr, "aide-lsp map: listing %s: %v\n", root, listErr)
			return exitFailed
		}
	}
	stopProgress := indexProgress(ix, "aide-lsp map", stderr)
	if !warm {
		ix.WaitStarted(ctx)
	}
	mapStart := time.Now()
	m := ix.Map(treesitter.MapRequest{
		Focus:  focusRel,
		Task:   strings.Join(fl.Args(), " "),
		Tokens: budget,
	})
	mapTime, mapAt := time.Since(mapStart), time.Since(start)
	cov := ix.Coverage()
	fmt.Fprint(stdout, m)
	if f, ok := stdout.(interface{ Sync() error }); ok {
		_ = f.Sync()
	}
	if <-listed; listErr != nil {
		stopProgress()
		fmt.Fprintf(stderr, "aide-lsp map: listing %s: %v\n", root, listErr)
		return exitFailed
	}
	r := <-built
	stopProgress()
	if r.err != nil {
		// The map is still good; only the cache could not be written.
		fmt.Fprintf(stderr, "aide-lsp map: tag cache not saved: %v\n", r.err)
	}
	if *stats {
		st := r.st
		from := fmt.Sprintf("%d of %d files", cov.Indexed, cov.Listed)
		if cov.FromLastSession {
			// Honest about what the map saw: the listing had not ended.
			from = fmt.Sprintf("the last session's index (%d files, those the map reads checked against the disk; listing not done)", cov.Indexed)
		}
		fmt.Fprintf(stderr, "map from %s at %s (listing %s, ranking %s); index: files %d, symbols %d, bytes parsed %d, cache hits %d, time %s\n",
			from, mapAt.Round(time.Millisecond),
			listTime.Round(time.Millisecond), mapTime.Round(time.Millisecond),
			st.Files, st.Symbols, st.BytesParsed, st.CacheHits, st.Duration.Round(time.Millisecond))
	}
	return exitOK
}

// indexProgress prints a line on stderr while ix builds (files done of
// files listed): at the third second, then every ten; a warm start says
// nothing. The returned function stops it.
func indexProgress(ix *treesitter.Index, who string, stderr io.Writer) func() {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTimer(3 * time.Second)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				tick.Reset(10 * time.Second)
				if n, total := ix.Progress(); total > 0 && n < total {
					fmt.Fprintf(stderr, "%s: indexing the repository: %d / %d files\n", who, n, total)
				}
			}
		}
	}()
	return func() { close(stop); <-done }
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// listFiles lists the workspace's files with the workspace's rules
// (.gitignore, deny list): the same list the server and `run` index
// (workspace.Files), so the three never disagree on what the map covers;
// rules that ignore nearly everything are said on stderr.
func listFiles(ctx context.Context, w *workspace.Workspace, stderr io.Writer) ([]string, error) {
	if msg := w.IgnoreWarning(); msg != "" {
		fmt.Fprintf(stderr, "aide-lsp map: warning: %s\n", msg)
	}
	return w.Files(ctx)
}
