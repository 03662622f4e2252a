package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzApply feeds arbitrary bytes to every layer source (a JSON object
// layer, an untrusted .aide/config.json, the environment) and checks what a user would
// notice: no panic, every problem names its source and says something, and
// the configuration that comes out is still one the server can run with
// (positive counts and timeout, known enums, known provider kinds, model ids
// of the form provider/model). Applying the same layer twice changes nothing
// more than applying it once.
func FuzzApply(f *testing.F) {
	seeds := []string{
		``, `null`, `{}`, `[]`, `"x"`, `{`, `{"maxCycles":0}`, `{"maxCycles":-1}`,
		`{"architectModel":"openai/gpt-4.1","editorModel":"anthropic/claude"}`,
		`{"architectModel":"gpt"}`, `{"architectModel":7}`,
		`{"providers":{"x":{"kind":"openai","baseURL":"http://127.0.0.1:1/v1","apiKeyEnv":"X_KEY"}}}`,
		`{"providers":{"x":{"kind":"grpc"}}}`, `{"providers":{"r":{"kind":"replay","baseURL":"x.json"}}}`,
		`{"providers":{"openai":{"kind":"openai","baseURL":"http://evil.example/v1"}}}`, `{"requestTimeoutSeconds":86400}`, `{"providers":[]}`,
		`{"reviewPlan":false}`, `{"reviewPlan":"no"}`,
		`{"onDrift":"replan"}`, `{"onDrift":"sometimes"}`, `{"delivery":"codeActions"}`,
		`{"repoMapTokens":1e9}`, `{"requestTimeoutSeconds":1.5}`, `{"requestTimeoutSeconds":9223372036854775807}`,
		`{"deny":["**/*.secret"]}`, `{"deny":"x"}`,
		`{"prices":{"openai/gpt-4.1":{"input":2,"output":8}}}`, `{"prices":{"m":1}}`,
		`{"unknown":1,"maxMistakes":2}`, `{"maxCycles":3,"maxCycles":4}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s), "openai/gpt-4.1", "")
	}
	f.Add([]byte(`{}`), "nomodel", "x/y")
	f.Fuzz(func(t *testing.T, layer []byte, archEnv, edEnv string) {
		c := Defaults()
		check(t, c.Apply("fuzz", layer), "fuzz")
		valid(t, c)
		once := clone(t, c)
		check(t, c.Apply("fuzz", layer), "fuzz")
		if !reflect.DeepEqual(once, clone(t, c)) {
			t.Fatalf("applying %q twice differs from once:\n%+v\n%+v", layer, once, c)
		}

		env := map[string]string{"AIDE_ARCHITECT_MODEL": archEnv, "AIDE_EDITOR_MODEL": edEnv}
		check(t, c.ApplyEnv(func(k string) string { return env[k] }), "environment")
		valid(t, c)

		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, ".aide"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, ".aide", "config.json"), layer, 0o644); err != nil {
			t.Fatal(err)
		}
		// The same bytes as an untrusted workspace file under a user file:
		// no routing key gets through, whatever they hold.
		l := Load(LoadOptions{Root: root, UserFile: filepath.Join(root, "no-user.json"), Getenv: func(string) string { return "" }, Trust: &TrustStore{}})
		for _, p := range l.Problems {
			if p.Key == "" || strings.TrimSpace(p.Msg) == "" {
				t.Fatalf("problem without key or message: %+v", p)
			}
		}
		valid(t, l.Config)
		if len(l.Config.Providers) != 0 {
			t.Fatalf("an untrusted workspace file set providers: %v", l.Config.Providers)
		}
		eff := c.Effective()
		if eff.EditorModel == "" && eff.ArchitectModel != "" {
			t.Fatalf("effective editor model empty while architect is %q", eff.ArchitectModel)
		}
	})
}

func check(t *testing.T, problems []Problem, source string) {
	t.Helper()
	for _, p := range problems {
		if p.Source != source || p.Key == "" || strings.TrimSpace(p.Msg) == "" {
			t.Fatalf("problem without source, key or message: %+v (want source %q)", p, source)
		}
	}
}

// valid holds for every configuration the layers can produce from the
// defaults, whatever the input.
func valid(t *testing.T, c Config) {
	t.Helper()
	if c.MaxCycles < 0 || c.EditorFailureThreshold < 1 || c.MaxMistakes < 1 || c.RepoMapTokens < 1 || c.RequestTimeoutSeconds < 1 {
		t.Fatalf("a count or timeout out of range: %+v", c)
	}
	// The server turns the timeout into a time.Duration: it must not wrap
	// around into a negative (already expired) timeout.
	if d := time.Duration(c.RequestTimeoutSeconds) * time.Second; d <= 0 || d/time.Second != time.Duration(c.RequestTimeoutSeconds) {
		t.Fatalf("requestTimeoutSeconds %d overflows a time.Duration", c.RequestTimeoutSeconds)
	}
	switch c.OnDrift {
	case "continue", "replan", "stop":
	default:
		t.Fatalf("onDrift %q", c.OnDrift)
	}
	switch c.Delivery {
	case "auto", "applyEdit", "codeActions":
	default:
		t.Fatalf("delivery %q", c.Delivery)
	}
	for name, p := range c.Providers {
		switch p.Kind {
		case "openai", "anthropic":
		default:
			t.Fatalf("provider %q kept with kind %q", name, p.Kind)
		}
	}
	for _, m := range []string{c.ArchitectModel, c.EditorModel} {
		if m != "" && !strings.Contains(m, "/") {
			t.Fatalf("model id %q kept without provider/", m)
		}
	}
}

func clone(t *testing.T, c Config) Config {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var out Config
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
