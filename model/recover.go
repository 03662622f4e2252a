package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
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
// It also reads calls written as XML: Anthropic's
// <invoke name="N"><parameter name="K">V</parameter></invoke> and
// Qwen3-Coder's <function=N><parameter=K>V</parameter></function> (each in
// its <function_calls> or <tool_call> wrapper or not); the JSON of Hermes'
// <tool_call>{...}</tool_call> is found like any other.
// Only names in allowed are kept (nil allows any name). IDs are "recovered_N".
func RecoverToolCalls(text string, allowed []string) []ToolCall {
	if len(text) > maxRecoverScan {
		text = text[:maxRecoverScan]
	}
	xmlCalls, masked := recoverXMLCalls(text, allowed)
	if len(xmlCalls) > 0 {
		calls := append(xmlCalls, recoverJSONCalls(masked, allowed)...)
		if len(calls) > maxRecoveredCalls {
			calls = calls[:maxRecoveredCalls]
		}
		for i := range calls {
			calls[i].ID = fmt.Sprintf("recovered_%d", i+1)
		}
		return calls
	}
	return recoverJSONCalls(text, allowed)
}

func recoverJSONCalls(text string, allowed []string) []ToolCall {
	ok := func(name string) bool { return allowedName(name, allowed) }
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

var (
	xmlInvokeOpen  = regexp.MustCompile(`<(?:antml:)?invoke\s+name\s*=\s*"([^"<>]+)"\s*>`)
	xmlInvokeClose = regexp.MustCompile(`</(?:antml:)?invoke>`)
	xmlParamOpen   = regexp.MustCompile(`<(?:antml:)?parameter\s+name\s*=\s*"([^"<>]+)"\s*>`)
	xmlParamClose  = regexp.MustCompile(`</(?:antml:)?parameter>`)
	qwenFuncOpen   = regexp.MustCompile(`<function=([^<>\s]+)>`)
	qwenFuncClose  = regexp.MustCompile(`</function>`)
	qwenParamOpen  = regexp.MustCompile(`<parameter=([^<>\s]+)>`)
)

// recoverXMLCalls reads the XML call forms; masked is text with the calls
// blanked out, so the JSON scan does not read a parameter's value (a
// package.json being written) as a call of its own.
func recoverXMLCalls(text string, allowed []string) ([]ToolCall, string) {
	if !strings.Contains(text, "invoke") && !strings.Contains(text, "<function=") {
		return nil, text
	}
	type found struct {
		at, end int
		call    ToolCall
	}
	var all []found
	read := func(open, close, param *regexp.Regexp, paramClose *regexp.Regexp) {
		ms := open.FindAllStringSubmatchIndex(text, maxRecoveredCalls)
		for i, m := range ms {
			name := text[m[2]:m[3]]
			// A call never runs into the next one: each body is searched
			// only up to the next opening, so the scan stays linear.
			limit := len(text)
			if i+1 < len(ms) {
				limit = ms[i+1][0]
			}
			bodyEnd, end := limit, limit
			if c := close.FindStringIndex(text[m[1]:limit]); c != nil {
				bodyEnd, end = m[1]+c[0], m[1]+c[1]
			}
			args, ok := xmlParams(text[m[1]:bodyEnd], param, paramClose)
			if !ok || !allowedName(name, allowed) {
				continue
			}
			raw, err := json.Marshal(args)
			if err != nil {
				continue
			}
			all = append(all, found{m[0], end, ToolCall{Name: name, Arguments: string(raw)}})
		}
	}
	read(xmlInvokeOpen, xmlInvokeClose, xmlParamOpen, xmlParamClose)
	read(qwenFuncOpen, qwenFuncClose, qwenParamOpen, xmlParamClose)
	if len(all) == 0 {
		return nil, text
	}
	// In text order (the two forms may be mixed).
	for i := 1; i < len(all); i++ {
		for j := i; j > 0 && all[j].at < all[j-1].at; j-- {
			all[j], all[j-1] = all[j-1], all[j]
		}
	}
	b := []byte(text)
	var calls []ToolCall
	for _, f := range all {
		calls = append(calls, f.call)
		for k := f.at; k < f.end; k++ {
			if b[k] != '\n' {
				b[k] = ' '
			}
		}
	}
	return calls, string(b)
}

// xmlParams reads the parameters of one call body. A value loses one
// newline at each end (both forms put values on lines of their own); a
// parameter without its closing tag runs to the next parameter.
func xmlParams(body string, open, close *regexp.Regexp) (map[string]string, bool) {
	ms := open.FindAllStringSubmatchIndex(body, -1)
	if len(ms) == 0 {
		return nil, false
	}
	args := map[string]string{}
	for n, m := range ms {
		limit := len(body)
		if n+1 < len(ms) {
			limit = ms[n+1][0]
		}
		v := body[m[1]:limit]
		if c := close.FindStringIndex(v); c != nil {
			v = v[:c[0]]
		}
		v = strings.TrimPrefix(v, "\n")
		v = strings.TrimSuffix(v, "\n")
		args[body[m[2]:m[3]]] = v
	}
	return args, true
}

// allowedName reports whether a recovered call's name is one of allowed
// (any name when allowed is nil).
func allowedName(name string, allowed []string) bool {
	return name != "" && (allowed == nil || slices.Contains(allowed, name))
}
