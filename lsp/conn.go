package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// LSP error codes the library does not name.
const (
	codeServerNotInitialized jsonrpc2.Code = -32002
	codeRequestFailed        jsonrpc2.Code = -32803
)

// guard is the outermost handler, the rules of docs/architecture.md ("Why the connection is wired by hand"):
//   - requests run concurrently (jsonrpc2.Async), notifications stay inline,
//     so didChange is applied in wire order;
//   - a panic answers that one request with an error (or is logged, for a
//     notification) and the connection lives on;
//   - a notification's error is logged, never returned (the library would
//     close the connection);
//   - a cancelled request answers -32800 (RequestCancelled).
func (s *Server) guard(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
		method := req.Method()
		isCall := req.IsCall()
		if isCall {
			jsonrpc2.Async(ctx)
		} else {
			s.loop.enter()
			defer s.loop.leave()
		}
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("handler panicked", "method", method, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "aide-lsp: internal error in %s: %v", method, r)
			}
			if !isCall {
				if err != nil {
					s.log.Warn("notification failed", "method", method, "err", err)
				}
				result, err = nil, nil
				return
			}
			if err != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil) {
				err = protocol.ErrRequestCancelled
			}
		}()
		return next(ctx, req)
	}
}

// dispatch routes one message to its handler (one file per method).
func (s *Server) dispatch(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	method, params := req.Method(), req.Params()

	s.mu.Lock()
	initialized, shutdown := s.initialized, s.shutdown
	custom := s.custom[method]
	s.mu.Unlock()

	switch method {
	case "initialize":
		if initialized {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "initialize was already received")
		}
		return s.initialize(ctx, params)
	case "exit":
		s.exit()
		return nil, nil
	case "$/cancelRequest":
		return nil, s.cancelRequest(params)
	}
	if !initialized {
		if req.IsCall() {
			return nil, jsonrpc2.Errorf(codeServerNotInitialized, "%s before initialize", method)
		}
		return nil, nil // notifications before initialize are dropped (LSP)
	}
	if shutdown && req.IsCall() {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "%s after shutdown", method)
	}

	switch method {
	case "initialized", "workspace/didChangeConfiguration":
		s.ReloadConfiguration()
		return nil, nil
	case "$/setTrace", "workspace/didChangeWatchedFiles":
		return nil, nil
	case "shutdown":
		s.shutdownServer()
		return nil, nil
	case "workspace/didChangeWorkspaceFolders":
		return nil, s.didChangeWorkspaceFolders(params)
	case "textDocument/didOpen":
		return nil, s.didOpen(params)
	case "textDocument/didChange":
		return nil, s.didChange(params)
	case "textDocument/didSave":
		return nil, s.didSave(params)
	case "textDocument/didClose":
		return nil, s.didClose(params)
	case "textDocument/codeAction":
		return s.codeAction(ctx, params)
	case "textDocument/hover":
		return s.hover(ctx, params)
	case "workspace/executeCommand":
		return s.executeCommand(ctx, req.ID(), params)
	case "window/workDoneProgress/cancel":
		return nil, s.workDoneProgressCancel(params)
	}
	if custom != nil {
		if isNull(params) {
			params = nil
		} else {
			params = append(jsonrpc2.RawMessage(nil), params...) // outlives the frame
		}
		return custom(ctx, json.RawMessage(params))
	}
	if req.IsCall() {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
	}
	if !strings.HasPrefix(method, "$/") {
		s.log.Debug("ignored notification", "method", method)
	}
	return nil, nil
}

func isNull(raw []byte) bool {
	return len(raw) == 0 || strings.TrimSpace(string(raw)) == "null"
}

// decode unmarshals params, answering InvalidParams when they do not fit.
func decode(params []byte, v any) error {
	if isNull(params) {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "missing params")
	}
	if err := protocol.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params: %v", err)
	}
	return nil
}

// cancelRequest handles $/cancelRequest with a numeric or string id: it
// cancels the request's handler if it still runs, and the background work
// an executeCommand of that id started.
func (s *Server) cancelRequest(params []byte) error {
	var p cancelParams
	if err := decode(params, &p); err != nil {
		return err
	}
	id, err := parseID(p.ID)
	if err != nil {
		return err
	}
	s.canceller(id)
	s.mu.Lock()
	j := s.work[id]
	s.mu.Unlock()
	if j != nil {
		j.cancel(errCancelledByClient)
	}
	return nil
}

// parseID reads a JSON-RPC id: an integer or a string.
func parseID(raw json.RawMessage) (jsonrpc2.ID, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		if v, err := n.Int64(); err == nil {
			return jsonrpc2.NewNumberID(v), nil
		}
	}
	var str string
	if err := json.Unmarshal(raw, &str); err == nil {
		return jsonrpc2.NewStringID(str), nil
	}
	return jsonrpc2.ID{}, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "request id %s is neither a number nor a string", truncate(raw))
}
