package model_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

var toolNames = []string{"edit_file", "write_file", "delete_file", "rename_file"}

// recoverCase is a text and the calls recovered from it (IDs ignored, but
// each must have one).
type recoverCase struct {
	name string
	text string
	want []model.ToolCall
}

func checkRecovered(t *testing.T, tests []recoverCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := model.RecoverToolCalls(tt.text, toolNames)
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i].Name != tt.want[i].Name || got[i].Arguments != tt.want[i].Arguments || got[i].ID == "" {
					t.Errorf("call %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestRecoverToolCalls(t *testing.T) {
	tests := []recoverCase{
		{"fenced object", "I'll edit it.\n```json\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"a.go\", \"old_text\": \"x\", \"new_text\": \"y\"}}\n```\n",
			[]model.ToolCall{{Name: "edit_file", Arguments: `{"new_text":"y","old_text":"x","path":"a.go"}`}}},
		{"bare array", `[{"name":"delete_file","arguments":{"path":"old.go"}},{"name":"rename_file","arguments":{"path":"a.go","new_path":"b.go"}}]`,
			[]model.ToolCall{{Name: "delete_file", Arguments: `{"path":"old.go"}`}, {Name: "rename_file", Arguments: `{"new_path":"b.go","path":"a.go"}`}}},
		{"tool/args variant", `Calling {"tool": "write_file", "args": {"path": "n.go", "content": "package n\n"}} now`,
			[]model.ToolCall{{Name: "write_file", Arguments: `{"content":"package n\n","path":"n.go"}`}}},
		{"parameters variant", `{"name": "delete_file", "parameters": {"path": "x"}}`,
			[]model.ToolCall{{Name: "delete_file", Arguments: `{"path":"x"}`}}},
		{"arguments as a JSON string", `{"name":"delete_file","arguments":"{\"path\":\"x\"}"}`,
			[]model.ToolCall{{Name: "delete_file", Arguments: `{"path":"x"}`}}},
		{"openai shape", `{"tool_calls":[{"id":"c1","type":"function","function":{"name":"delete_file","arguments":"{\"path\":\"q\"}"}}]}`,
			[]model.ToolCall{{Name: "delete_file", Arguments: `{"path":"q"}`}}},
		{"two fences", "```json\n{\"name\":\"delete_file\",\"arguments\":{\"path\":\"1\"}}\n```\nand\n```\n{\"name\":\"delete_file\",\"arguments\":{\"path\":\"2\"}}\n```",
			[]model.ToolCall{{Name: "delete_file", Arguments: `{"path":"1"}`}, {Name: "delete_file", Arguments: `{"path":"2"}`}}},
		{"unknown tool ignored", `{"name": "run_shell", "arguments": {"cmd": "rm -rf /"}}`, nil},
		{"no arguments ignored", `{"name": "edit_file"}`, nil},
		{"prose JSON ignored", `The config is {"name": "demo", "version": 2}.`, nil},
		{"truncated ignored", `{"name": "edit_file", "arguments": {"path": "a.go"`, nil},
		{"nested in truncated outer", `{"calls": {"name":"delete_file","arguments":{"path":"z"}}`,
			[]model.ToolCall{{Name: "delete_file", Arguments: `{"path":"z"}`}}},
		{"plain text", "## Plan\n1. do things\n## End Plan", nil},
	}
	checkRecovered(t, tests)
}

func TestRecoveryThroughTheRouter(t *testing.T) {
	text := "Sure.\n```json\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"a.go\", \"old_text\": \"Foo\", \"new_text\": \"Bar\"}}\n```"
	srv := modeltest.NewOpenAI(t, modeltest.Reply{Text: text}, modeltest.Reply{Text: text})
	r := model.NewRouter(map[string]model.ProviderConfig{"local": {Kind: "openai", BaseURL: srv.BaseURL()}}, model.Options{})
	req := userReq("local/tiny")
	req.Role, req.Tools = model.RoleEditor, editTools
	resp, err := r.Chat(ctxGuard(t), req, func(model.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.RecoveredToolCalls || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "edit_file" {
		t.Fatalf("recovered %v, calls %+v", resp.RecoveredToolCalls, resp.ToolCalls)
	}
	if resp.Text != text {
		t.Errorf("the text must stay as the model wrote it")
	}
	// Without tools (the architect) nothing is recovered: that is commands'
	// decision (collapse), made with RecoverToolCalls itself.
	resp, err = r.Chat(ctxGuard(t), userReq("local/tiny"), func(model.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	if resp.RecoveredToolCalls || len(resp.ToolCalls) != 0 {
		t.Errorf("recovered tool calls on a call that offered no tools: %+v", resp.ToolCalls)
	}
}

func FuzzRecoverToolCalls(f *testing.F) {
	for _, s := range []string{
		"```json\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"a.go\", \"old_text\": \"x\", \"new_text\": \"y\"}}\n```",
		`[{"name":"delete_file","arguments":{"path":"old.go"}}]`,
		`{"tool": "write_file", "args": {"path": "n.go", "content": "x"}}`,
		`{"tool_calls":[{"function":{"name":"delete_file","arguments":"{}"}}]}`,
		`{"name":"edit_file","arguments":"not json"}`,
		`[[[[[[[[[[[[[[[[[[[[[[[[[[[[`,
		`{"name": "edit_file", "arguments": {"path": "a.go"`,
		"",
		"\xff\xfe{\"name\":\"delete_file\",\"arguments\":{}}",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		calls := model.RecoverToolCalls(text, toolNames)
		for _, c := range calls {
			ok := false
			for _, n := range toolNames {
				ok = ok || c.Name == n
			}
			if !ok {
				t.Fatalf("recovered a call to %q, not an offered tool", c.Name)
			}
			if c.ID == "" {
				t.Fatalf("call without an id")
			}
			// Arguments are either re-encoded JSON or the string the model
			// gave; a re-encoded value is always valid JSON.
			if strings.HasPrefix(c.Arguments, "{") && utf8.ValidString(text) && !json.Valid([]byte(c.Arguments)) {
				if !strings.Contains(text, c.Arguments) {
					t.Fatalf("arguments %q are neither valid JSON nor the model's own text", c.Arguments)
				}
			}
		}
		if len(calls) > 256 {
			t.Fatalf("%d calls", len(calls))
		}
	})
}

// BenchmarkRecoverToolCalls measures a typical local-model answer and
// two hostile 256 KiB texts (deep nesting that only fails at the end).
func BenchmarkRecoverToolCalls(b *testing.B) {
	typical := "I'll make the change.\n```json\n" + `[{"name": "edit_file", "arguments": {"path": "foo.go", "old_text": "func Foo() {", "new_text": "func Bar() {"}}]` + "\n```\n"
	cases := map[string]string{
		"typical":        typical,
		"nested-arrays":  `"name"` + strings.Repeat("[", 256<<10),
		"nested-objects": strings.Repeat(`{"name":`, 32<<10),
	}
	for name, text := range cases {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				model.RecoverToolCalls(text, toolNames)
			}
		})
	}
}

func TestRecoverXMLToolCalls(t *testing.T) {
	tests := []recoverCase{
		// Anthropic's XML form written as text by OpenAI-compatible models
		// (NousResearch/hermes-agent#7332).
		{"invoke", "I'll fix it.\n<function_calls>\n<invoke name=\"edit_file\">\n<parameter name=\"path\">a.go</parameter>\n<parameter name=\"old_text\">x := 1\n</parameter>\n<parameter name=\"new_text\">x := 2\n</parameter>\n</invoke>\n</function_calls>\n",
			[]model.ToolCall{{Name: "edit_file", Arguments: `{"new_text":"x := 2","old_text":"x := 1","path":"a.go"}`}}},
		// Qwen3-Coder's own format (ggml-org/llama.cpp#15012,
		// antoinezambelli/forge#56); a JSON value is not a call of its own.
		{"qwen3 coder", "<tool_call>\n<function=write_file>\n<parameter=path>\nn.json\n</parameter>\n<parameter=content>\n{\"name\": \"app\", \"arguments\": {\"x\": 1}}\n</parameter>\n</function>\n</tool_call>",
			[]model.ToolCall{{Name: "write_file", Arguments: `{"content":"{\"name\": \"app\", \"arguments\": {\"x\": 1}}","path":"n.json"}`}}},
		{"hermes json in tool_call", "<tool_call>\n{\"name\": \"delete_file\", \"arguments\": {\"path\": \"old.go\"}}\n</tool_call>",
			[]model.ToolCall{{Name: "delete_file", Arguments: `{"path":"old.go"}`}}},
		{"two invokes, unknown one dropped", `<invoke name="run_shell"><parameter name="cmd">rm -rf /</parameter></invoke><invoke name="delete_file"><parameter name="path">x</parameter></invoke>`,
			[]model.ToolCall{{Name: "delete_file", Arguments: `{"path":"x"}`}}},
		{"unclosed parameter runs to the next", "<function=rename_file>\n<parameter=path>\na.go\n<parameter=new_path>\nb.go\n</parameter>\n</function>",
			[]model.ToolCall{{Name: "rename_file", Arguments: `{"new_path":"b.go","path":"a.go"}`}}},
		{"prose about invoke", "Use <invoke> tags to call tools.", nil},
	}
	checkRecovered(t, tests)
}

func FuzzRecoverXMLToolCalls(f *testing.F) {
	f.Add("<invoke name=\"edit_file\"><parameter name=\"path\">a</parameter></invoke>")
	f.Add("<tool_call><function=write_file><parameter=path>\nx\n</parameter><parameter=content>")
	f.Add("<function=delete_file><function=delete_file><parameter=path></parameter>")
	f.Fuzz(func(t *testing.T, text string) {
		calls := model.RecoverToolCalls(text, toolNames)
		for _, c := range calls {
			if c.ID == "" || c.Name == "" {
				t.Fatalf("call %+v", c)
			}
			var args map[string]any
			if strings.HasPrefix(c.Arguments, "{") && utf8.ValidString(text) && json.Unmarshal([]byte(c.Arguments), &args) != nil && !strings.Contains(text, c.Arguments) {
				t.Fatalf("arguments %q", c.Arguments)
			}
		}
		if len(calls) > 256 {
			t.Fatalf("%d calls", len(calls))
		}
	})
}
