// Package lsp is the language server: the JSON-RPC connection wired by hand on
// go.lsp.dev/jsonrpc2 (ordered notifications, concurrent requests, a panic
// answered per message, a size-limited frame reader), the lifecycle, the
// document store, the client profile, code actions, executeCommand with
// cancellable progress, the editor side of commands.Client, and the review
// of proposals in every editor.
//
// One file per concern: stream.go (framing), conn.go (dispatch), server.go
// (lifecycle), profile.go, documents.go, codeaction.go (the AIDE actions,
// AI-comment titles, plan-file and review actions), command.go (commands and
// progress), client.go (commands.Client), logging.go, setup.go (NewSetup:
// the real engine, configuration layers, Router, index), review.go
// (proposals: applyEdit delivery settled from the documents, code-action
// delivery with diagnostics, rebase and stale, aide/planDocument) and
// landed.go (deciding from document contents whether a hunk landed).
//
// What each editor gets (design.md, "What each editor can do"):
//   - VS Code (changeAnnotationSupport): one workspace/applyEdit labelled
//     "AIDE: <task>" with a needsConfirmation annotation per hunk; the
//     documents afterwards say which hunks were accepted. The plan is the
//     virtual document aide-plan:/<session>.md when the extension declares
//     experimental.aidePlanDocument, else the plan file via showDocument.
//   - Neovim ≤ 0.11 and Helix: a diagnostic per pending hunk and
//     accept/reject code actions (the accept carries the versioned edit),
//     accept-all/reject-all; what landed is read from the next didChange,
//     never from applied:true. Helix is shown the plan file with
//     window/showDocument (by clientInfo.name) and is sent no aide/* method;
//     Neovim 0.7 is told the plan file's path with window/showMessage.
package lsp
