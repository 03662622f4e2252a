package lsp

import (
	"encoding/json"

	"go.lsp.dev/protocol"
)

// The lean wire structs of the messages we handle. The protocol package's
// generated types are used where their unions matter (WorkspaceEdit, ranges);
// for everything else these small structs keep the handlers readable and
// tolerant of fields we do not know.

type clientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version,omitzero"`
}

type workspaceFolder struct {
	URI  string `json:"uri"`
	Name string `json:"name"`
}

type initializeParams struct {
	ProcessID             *int32            `json:"processId"`
	ClientInfo            *clientInfo       `json:"clientInfo,omitzero"`
	RootURI               *string           `json:"rootUri,omitzero"`
	RootPath              *string           `json:"rootPath,omitzero"`
	WorkspaceFolders      []workspaceFolder `json:"workspaceFolders,omitzero"`
	Capabilities          json.RawMessage   `json:"capabilities,omitzero"`
	InitializationOptions json.RawMessage   `json:"initializationOptions,omitzero"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int32  `json:"version"`
	Text       string `json:"text"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type versionedTextDocumentIdentifier struct {
	URI     string `json:"uri"`
	Version int32  `json:"version"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type contentChange struct {
	Range *protocol.Range `json:"range,omitzero"`
	Text  string          `json:"text"`
}

type didChangeParams struct {
	TextDocument   versionedTextDocumentIdentifier `json:"textDocument"`
	ContentChanges []contentChange                 `json:"contentChanges"`
}

type didSaveParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Text         *string                `json:"text,omitzero"`
}

type didCloseParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type codeActionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Range        protocol.Range         `json:"range"`
}

type command struct {
	Title     string `json:"title"`
	Command   string `json:"command"`
	Arguments []any  `json:"arguments,omitzero"`
}

type codeAction struct {
	Title       string                  `json:"title"`
	Kind        string                  `json:"kind,omitzero"`
	Diagnostics []diagnostic            `json:"diagnostics,omitzero"`
	IsPreferred bool                    `json:"isPreferred,omitzero"`
	Edit        *protocol.WorkspaceEdit `json:"edit,omitzero"`
	Command     *command                `json:"command,omitzero"`
}

type executeCommandParams struct {
	Command       string            `json:"command"`
	Arguments     []json.RawMessage `json:"arguments,omitzero"`
	WorkDoneToken json.RawMessage   `json:"workDoneToken,omitzero"`
}

type progressParams struct {
	Token json.RawMessage `json:"token"`
	Value any             `json:"value"`
}

// workDoneProgress is begin, report and end in one struct; Kind is always set
// (the protocol package leaves union kinds to the caller).
type workDoneProgress struct {
	Kind        string `json:"kind"`
	Title       string `json:"title,omitzero"`
	Message     string `json:"message,omitzero"`
	Cancellable *bool  `json:"cancellable,omitzero"`
}

type workDoneProgressCreateParams struct {
	Token json.RawMessage `json:"token"`
}

type workDoneProgressCancelParams struct {
	Token json.RawMessage `json:"token"`
}

type cancelParams struct {
	ID json.RawMessage `json:"id"`
}

type showMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

type showDocumentParams struct {
	URI      string `json:"uri"`
	External bool   `json:"external,omitzero"`
	// TakeFocus is decided per client (Profile.planShow): Neovim reads an
	// absent takeFocus as true, Eglot reads a present one, even false, as
	// true. nil leaves the key out.
	TakeFocus *bool `json:"takeFocus,omitempty"`
}

type showDocumentResult struct {
	Success bool `json:"success"`
}

type planDocumentChangedParams struct {
	URI     string `json:"uri"`
	Version int    `json:"version"`
}

// Message types of window/showMessage and window/logMessage.
const (
	msgError   = 1
	msgWarning = 2
	msgInfo    = 3
	msgLog     = 4
)
