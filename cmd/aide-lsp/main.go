package main

import (
	_ "github.com/anthropics/anthropic-sdk-go"
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/smacker/go-tree-sitter"
	_ "github.com/sourcegraph/go-diff/diff"
	_ "go.lsp.dev/jsonrpc2"
	_ "go.lsp.dev/protocol"
	_ "golang.org/x/tools/txtar"
)

func main() {}
