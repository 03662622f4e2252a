// Package lsp is the language server: the JSON-RPC connection wired by hand on
// go.lsp.dev/jsonrpc2 (ordered notifications, concurrent requests, a panic
// answered per message, a size-limited frame reader), the lifecycle, the
// document store, the client profile, and the editor side of the engine
// (commands.Client): it turns the engine's events, plan documents and
// proposals into LSP messages, and documents and decisions back into engine
// calls.
//
// One file per concern: stream.go (framing), codec.go, conn.go (dispatch),
// server.go and lifecycle.go (the server and initialize/shutdown/exit),
// profile.go (what the client can do; delivery), documents.go, textbuf.go
// and textsync.go (the document store and didOpen/didChange/didSave/
// didClose), codeaction.go (the AIDE actions, AI-comment titles, plan-file
// and review actions), hover.go (a pending hunk's diff), command.go
// (executeCommand and progress), engine.go (the Engine interface),
// client.go (commands.Client), planfile.go (plan files: shown once
// complete, never edited, the user's edits told apart from the engine's
// texts), review.go (proposals on the engine's review set: applyEdit
// delivery settled from the documents, code-action delivery with
// diagnostics, rebase and stale, the editor's half of aide.accept,
// aide/planDocument), landed.go (lsp's names for commands.Judge: which
// hunks landed, from the edits sent and the documents now), drift.go (changed files to the engine's live
// drift), logging.go and wire.go (message shapes). The wiring of a
// connection to the real engine (configuration layers, Router, index,
// watcher) and the process's GC pacing live in package app.
//
// What each editor gets (docs/design.md, "What each editor supports"):
//   - VS Code (change annotations reviewed one by one): one
//     workspace/applyEdit labelled "AIDE: <task>" with a needsConfirmation
//     annotation per hunk; the documents afterwards say which hunks were
//     accepted. The plan is the virtual document aide-plan:/<session>.md
//     when the extension declares experimental.aidePlanDocument.
//   - Neovim (0.12 included: it asks one Y/N for a whole annotated edit) and
//     Helix: a diagnostic per pending hunk showing its change, its diff on
//     hover, accept/reject code actions (the accept carries the versioned
//     edit) and accept-all/reject-all; what landed is read from the next
//     didChange, never from applied:true. Helix 25.01, Neovim 0.9+ and
//     Emacs (Eglot) are shown the plan file with window/showDocument,
//     beside the code with the cursor left there (takeFocus per client:
//     Profile.planShow); Helix 25.07 (which would replace the code's view)
//     and Neovim 0.7 are told its path with window/showMessage; the
//     server never edits a plan buffer. Helix is sent no aide/* method.
package lsp
