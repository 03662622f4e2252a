package main

import (
	"os"
	"testing"
)

// TestMain gives the package's runs a cache folder of their own: `run` and
// `map` keep the tag cache in the user's ($XDG_CACHE_HOME/aide-lsp), which
// a test must not fill.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "aide-lsp-cmd-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
