package config

import (
	"strings"
	"testing"
)

func TestLayersAndProblems(t *testing.T) {
	c := Defaults()
	env := map[string]string{"AIDE_ARCHITECT_MODEL": "openai/o3"}
	if p := c.ApplyEnv(func(k string) string { return env[k] }); p != nil {
		t.Fatalf("env problems: %v", p)
	}
	problems := c.Apply("initializationOptions", []byte(`{"editorModel":"anthropic/claude-x","maxCycles":"many","bogus":1,"onDrift":"replan","delivery":"pigeon"}`))
	eff := c.Effective()
	if eff.ArchitectModel != "openai/o3" || eff.EditorModel != "anthropic/claude-x" || eff.OnDrift != "replan" {
		t.Fatalf("layers not merged: %+v", eff)
	}
	if eff.MaxCycles != 8 || eff.Delivery != "auto" {
		t.Fatalf("bad values must leave defaults: %+v", eff)
	}
	var keys []string
	for _, p := range problems {
		keys = append(keys, p.Key)
	}
	if got := strings.Join(keys, ","); got != "bogus,delivery,maxCycles" {
		t.Fatalf("problems = %v", problems)
	}
	if p := c.Apply("x", []byte(`[1,2]`)); len(p) != 1 {
		t.Fatalf("non-object layer must be one problem: %v", p)
	}
}

func TestEditorFollowsArchitect(t *testing.T) {
	c := Defaults()
	c.Apply("cli", []byte(`{"architectModel":"ollama/llama3"}`))
	if e := c.Effective(); e.EditorModel != "ollama/llama3" {
		t.Fatalf("editor model = %q", e.EditorModel)
	}
	if p := c.Apply("cli", []byte(`{"architectModel":"gpt4"}`)); len(p) != 1 || !strings.Contains(p[0].Msg, "provider/model") {
		t.Fatalf("a model id without provider must be refused clearly: %v", p)
	}
}

func TestApplyModelsFromFlags(t *testing.T) {
	c := Defaults()
	if p := c.ApplyModels("flags", "", ""); p != nil {
		t.Fatalf("no flags must change nothing: %v", p)
	}
	c.ApplyModels("flags", "openai/o3", "")
	if e := c.Effective(); e.ArchitectModel != "openai/o3" || e.EditorModel != "openai/o3" {
		t.Fatalf("architect flag not applied: %+v", e)
	}
	if p := c.ApplyModels("flags", "", "gpt"); len(p) != 1 || p[0].Key != "editorModel" {
		t.Fatalf("a bad editor id must be one problem naming the key: %v", p)
	}
}
