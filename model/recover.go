package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// maxRecoverScan bounds the text searched for tool-call JSON: recovery is a
// courtesy for small local models; an editor answer is a few KiB.
const maxRecoverScan = 256 << 10

// recoverBudgetFactor bounds the decoding work to this many times the text's
// length: every '{' or '[' tries a decode, so hostile text ("[[[[…") would
// otherwise cost time quadratic in its length.
const recoverBudgetFactor = 4

// maxRecoveredCalls bounds how many calls one answer may yield.
const maxRecoveredCalls = 256

// RecoverToolCalls finds tool calls a model wrote as JSON in its text, for
// models without native tool calling. It accepts objects
// {"name": N, "arguments": {...}} (arguments may also be a JSON string), the
// variants {"tool"|"function"|"tool_name": N, "args"|"parameters"|"input": {...}},
// {"function": {"name": N, "arguments": ...}} (OpenAI's own shape), arrays of
// them, and {"tool_calls": [...]}, in ```json fences or bare in the text.
// Only names in allowed are kept (nil allows any name). IDs are "recovered_N".
func RecoverToolCalls(text string, allowed []string) []ToolCall {
	if len(text) > maxRecoverScan {
		text = text[:maxRecoverScan]
	}
	ok := func(name string) bool {
		if name == "" {
			return false
		}
		if allowed == nil {
			return true
		}
		for _, a := range allowed {
			if a == name {
				return true
			}
		}
		return false
	}
	if !strings.Contains(text, `"name"`) && !strings.Contains(text, `"tool"`) && !strings.Contains(text, `"function"`) &&
		!strings.Contains(text, `"tool_name"`) {
		return nil // no call can be in it: skip the scan
	}
	var calls []ToolCall
	data := []byte(text)
	budget := recoverBudgetFactor*len(data) + 4096
	for i := 0; i < len(data) && len(calls) < maxRecoveredCalls && budget > 0; {
		if !startsCall(data, i) {
			i++
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(data[i:]))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			var syn *json.SyntaxError
			if errors.As(err, &syn) {
				budget -= int(syn.Offset) + 1
			} else {
				budget -= len(data) - i // ran to the end of the text
			}
			i++
			continue
		}
		budget -= int(dec.InputOffset())
		found := collectCalls(v, ok, 0)
		if len(found) == 0 {
			// Not a call: look inside it too (a call nested in prose JSON is
			// still found by the byte scan), so only step one byte.
			i++
			continue
		}
		calls = append(calls, found...)
		i += int(dec.InputOffset())
	}
	if len(calls) > maxRecoveredCalls {
		calls = calls[:maxRecoveredCalls]
	}
	for i := range calls {
		calls[i].ID = fmt.Sprintf("recovered_%d", i+1)
	}
	return calls
}

func collectCalls(v any, ok func(string) bool, depth int) []ToolCall {
	if depth > 4 {
		return nil
	}
	switch x := v.(type) {
	case []any:
		var out []ToolCall
		for _, e := range x {
			out = append(out, collectCalls(e, ok, depth+1)...)
		}
		return out
	case map[string]any:
		if list, isList := x["tool_calls"].([]any); isList {
			return collectCalls(list, ok, depth+1)
		}
		if fn, isMap := x["function"].(map[string]any); isMap {
			return collectCalls(fn, ok, depth+1)
		}
		name := firstString(x, "name", "tool", "function", "tool_name")
		if !ok(name) {
			return nil
		}
		var args any
		found := false
		for _, k := range []string{"arguments", "args", "parameters", "input"} {
			if a, has := x[k]; has {
				args, found = a, true
				break
			}
		}
		if !found {
			return nil
		}
		var raw string
		switch a := args.(type) {
		case string:
			raw = strings.TrimSpace(a) // OpenAI's shape: arguments as a JSON string
		default:
			b, err := json.Marshal(a)
			if err != nil {
				return nil
			}
			raw = string(b)
		}
		return []ToolCall{{Name: name, Arguments: raw}}
	}
	return nil
}

func firstString(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// startsCall reports whether a JSON value that could hold a call starts at
// data[i]: an object whose first key is a string ({"), or an array of
// objects ([{ or [[), whitespace allowed. Other brackets (prose, code,
// nested lists) are skipped without a decode.
func startsCall(data []byte, i int) bool {
	c := data[i]
	if c != '{' && c != '[' {
		return false
	}
	opens := 1
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case ' ', '\t', '\n', '\r':
			continue
		case '"':
			return c == '{'
		case '{', '[':
			// [{…}] and [[{…}]] hold calls; deeper bare nesting is not a
			// tool call, and decoding it from every bracket is the costly case.
			opens++
			if c != '[' || opens > 3 {
				return false
			}
			c = data[j]
		default:
			return false
		}
	}
	return false
}
