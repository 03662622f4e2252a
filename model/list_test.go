package model_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

func TestListModelsOpenAIFake(t *testing.T) {
	srv := modeltest.NewOpenAI(t)
	r := model.NewRouter(map[string]model.ProviderConfig{"fake": {Kind: "openai", BaseURL: srv.BaseURL()}}, model.Options{MaxRetries: -1})
	names, err := r.ListModels(context.Background(), "fake/whatever")
	if err != nil {
		t.Fatalf("ListModels: %v", err)
	}
	if len(names) == 0 {
		t.Fatalf("the fake lists models, got none")
	}
}

func TestListModelsNothingListening(t *testing.T) {
	r := model.NewRouter(map[string]model.ProviderConfig{"dead": {Kind: "openai", BaseURL: "http://127.0.0.1:1/v1"}}, model.Options{MaxRetries: -1})
	_, err := r.ListModels(context.Background(), "dead/m")
	var e *model.Error
	if !errors.As(err, &e) || e.Kind != model.ErrUnreachable {
		t.Fatalf("want an unreachable error, got %v", err)
	}
}

func TestKnownModel(t *testing.T) {
	list := []string{"qwen2.5-coder:latest", "llama3:8b"}
	if !model.KnownModel(list, "qwen2.5-coder") || !model.KnownModel(list, "llama3:8b") || model.KnownModel(list, "llama3") {
		t.Fatal("KnownModel disagrees with Ollama's naming")
	}
}
