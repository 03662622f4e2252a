// Package lsp is the language server: the JSON-RPC connection wired by hand on
// go.lsp.dev/jsonrpc2 (ordered notifications, concurrent requests, a panic
// answered per message, a size-limited frame reader), the lifecycle, the
// document store, the client profile, code actions, executeCommand with
// cancellable progress, and the editor side of commands.Client.
//
// One file per concern: stream.go (framing), conn.go (dispatch), server.go
// (lifecycle), profile.go, documents.go, codeaction.go, command.go (commands
// and progress), client.go (commands.Client), logging.go.
package lsp
