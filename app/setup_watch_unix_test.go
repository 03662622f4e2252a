//go:build unix

package app

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/aide-lsp/aide-lsp/treesitter"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// The watcher's index update stats a file before reading it: a big file,
// a binary one and a FIFO are never read into the index (contract §8).
func TestWatchedChangeSkipsBeforeReading(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "ok.go"), []byte("package m\n\nfunc OK() {}\n"), 0o644)
	os.WriteFile(filepath.Join(root, "big.go"), []byte("package m\n\nfunc Big() {}\n"+strings.Repeat("// x\n", 300000)), 0o644)
	os.WriteFile(filepath.Join(root, "bin.go"), []byte("package m\n\x00\x01func Bin() {}\n"), 0o644)
	paths := []string{"ok.go", "big.go", "bin.go"}
	if runtime.GOOS != "windows" {
		if err := syscall.Mkfifo(filepath.Join(root, "fifo.go"), 0o644); err == nil {
			paths = append(paths, "fifo.go") // a read would block this test forever
		}
	}
	ws, err := workspace.Open([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	index := treesitter.NewIndex(root, "")
	for _, p := range paths {
		watchedChange(ws, index, p)
	}
	files := index.Files()
	slices.Sort(files)
	if strings.Join(files, ",") != "ok.go" {
		t.Fatalf("indexed %v, want only ok.go", files)
	}
	os.Remove(filepath.Join(root, "ok.go"))
	watchedChange(ws, index, "ok.go")
	if len(index.Files()) != 0 {
		t.Fatalf("a removed file stayed: %v", index.Files())
	}
}
