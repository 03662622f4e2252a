package model_test

import (
	"math"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
)

func TestResolve(t *testing.T) {
	env := map[string]string{}
	r := model.NewRouter(map[string]model.ProviderConfig{
		"openrouter": {Kind: "openai", BaseURL: "https://openrouter.ai/api/v1/", APIKeyEnv: "OPENROUTER_API_KEY"},
		"openai":     {BaseURL: "http://proxy:8080/v1"}, // overrides only the base URL
		"weird":      {Kind: "grpc", BaseURL: "http://x"},
		"nourl":      {Kind: "openai"},
	}, model.Options{Env: func(k string) string { return env[k] }})

	tests := []struct {
		id   string
		want model.Resolved
		err  string
	}{
		{"ollama/qwen2.5-coder:14b", model.Resolved{Provider: "ollama", Model: "qwen2.5-coder:14b", Kind: "openai", BaseURL: "http://127.0.0.1:11434/v1"}, ""},
		{"anthropic/claude-sonnet-4-5", model.Resolved{Provider: "anthropic", Model: "claude-sonnet-4-5", Kind: "anthropic", BaseURL: "https://api.anthropic.com", APIKeyEnv: "ANTHROPIC_API_KEY"}, ""},
		{"openai/gpt-4.1", model.Resolved{Provider: "openai", Model: "gpt-4.1", Kind: "openai", BaseURL: "http://proxy:8080/v1", APIKeyEnv: "OPENAI_API_KEY"}, ""},
		{"openrouter/meta-llama/llama-3.1-70b:free", model.Resolved{Provider: "openrouter", Model: "meta-llama/llama-3.1-70b:free", Kind: "openai", BaseURL: "https://openrouter.ai/api/v1", APIKeyEnv: "OPENROUTER_API_KEY"}, ""},
		{"gpt-4", model.Resolved{}, "is not provider/model"},
		{"/x", model.Resolved{}, "is not provider/model"},
		{"nosuch/m", model.Resolved{}, `unknown provider "nosuch"`},
		{"weird/m", model.Resolved{}, `kind "grpc"`},
		{"nourl/m", model.Resolved{}, "has no baseURL"},
	}
	for _, tt := range tests {
		got, err := r.Resolve(tt.id)
		if tt.err != "" {
			if err == nil {
				t.Errorf("%s: want error %q", tt.id, tt.err)
				continue
			}
			mustContain(t, err.Error(), tt.err)
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %+v, %v; want %+v", tt.id, got, err, tt.want)
		}
	}
}

func TestResolveFromEnvironment(t *testing.T) {
	cases := map[string]string{
		"":                         "http://127.0.0.1:11434/v1",
		"0.0.0.0":                  "http://127.0.0.1:11434/v1",
		"0.0.0.0:9999":             "http://127.0.0.1:9999/v1",
		"gpu-box:11434":            "http://gpu-box:11434/v1",
		"https://ollama.example/":  "https://ollama.example:11434/v1",
		"http://10.0.0.2:8000/api": "http://10.0.0.2:8000/api",
	}
	for host, want := range cases {
		r := model.NewRouter(nil, model.Options{Env: func(k string) string {
			return map[string]string{"OLLAMA_HOST": host}[k]
		}})
		got, err := r.Resolve("ollama/m")
		if err != nil || got.BaseURL != want {
			t.Errorf("OLLAMA_HOST=%q: %q, %v; want %q", host, got.BaseURL, err, want)
		}
	}
	r := model.NewRouter(nil, model.Options{Env: func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": "http://vllm:8000/v1", "ANTHROPIC_BASE_URL": "http://claude-proxy"}[k]
	}})
	if got, _ := r.Resolve("openai/m"); got.BaseURL != "http://vllm:8000/v1" {
		t.Errorf("OPENAI_BASE_URL ignored: %q", got.BaseURL)
	}
	if got, _ := r.Resolve("anthropic/m"); got.BaseURL != "http://claude-proxy" {
		t.Errorf("ANTHROPIC_BASE_URL ignored: %q", got.BaseURL)
	}
}

func TestMeterRows(t *testing.T) {
	m := &model.Meter{}
	m.Record(model.RoleArchitect, &model.Response{Model: "anthropic/claude", Usage: model.Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000}})
	m.Record(model.RoleEditor, &model.Response{Model: "ollama/qwen", Usage: model.Usage{PromptTokens: 500, CompletionTokens: 50, Estimated: true}})
	m.Record(model.RoleArchitect, &model.Response{Model: "anthropic/claude", Usage: model.Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000}})
	m.Record(model.RoleEditor, nil)
	rows, total := m.Rows(map[string]model.Price{"anthropic/claude": {Input: 3, Output: 15}})
	if len(rows) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	a, o := rows[0], rows[1]
	if a.Model != "anthropic/claude" || a.Requests != 2 || a.PromptTokens != 2_000_000 || math.Abs(a.CostUSD-9) > 1e-9 {
		t.Errorf("architect row %+v: want 2 requests costing 2×3 + 0.2×15 = 9 USD", a)
	}
	if o.Model != "ollama/qwen" || o.CostUSD != 0 || !o.Estimated {
		t.Errorf("unpriced estimated row %+v", o)
	}
	if math.Abs(total-9) > 1e-9 {
		t.Errorf("total %v", total)
	}
}
