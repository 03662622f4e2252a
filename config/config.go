// Package config is aide-lsp's configuration (contract §3): the keys and
// defaults, and the merging of layers (defaults, environment, the workspace's
// .aide/config.json, initializationOptions, workspace/configuration, CLI
// flags), lowest precedence first. Unknown keys and bad values are reported as
// problems, never fatal.
package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/aide-lsp/aide-lsp/model"
)

// DefaultModel is the architect (and editor) model when nothing sets one: a
// local model, so a new user pays nothing and sends nothing away.
const DefaultModel = "ollama/qwen2.5-coder:14b"

// Config is the effective configuration.
type Config struct {
	ArchitectModel         string                          `json:"architectModel"`
	EditorModel            string                          `json:"editorModel"`
	Providers              map[string]model.ProviderConfig `json:"providers"`
	ReviewPlan             bool                            `json:"reviewPlan"`
	MaxCycles              int                             `json:"maxCycles"`
	EditorFailureThreshold int                             `json:"editorFailureThreshold"`
	MaxMistakes            int                             `json:"maxMistakes"`
	OnDrift                string                          `json:"onDrift"`
	Delivery               string                          `json:"delivery"`
	RepoMapTokens          int                             `json:"repoMapTokens"`
	Deny                   []string                        `json:"deny"`
	Prices                 map[string]model.Price          `json:"prices"`
	RequestTimeoutSeconds  int                             `json:"requestTimeoutSeconds"`
}

// Defaults returns the built-in defaults. EditorModel is empty: it follows
// ArchitectModel unless something sets it (see Effective).
func Defaults() Config {
	return Config{
		ArchitectModel:         DefaultModel,
		Providers:              map[string]model.ProviderConfig{},
		ReviewPlan:             true,
		MaxCycles:              8,
		EditorFailureThreshold: 2,
		MaxMistakes:            3,
		OnDrift:                "continue",
		Delivery:               "auto",
		RepoMapTokens:          1024,
		Prices:                 map[string]model.Price{},
		RequestTimeoutSeconds:  300,
	}
}

// Problem is an unknown key or a bad value in one source.
type Problem struct {
	Source string // "environment", ".aide/config.json", "initializationOptions", ...
	Key    string
	Msg    string
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s: %s", p.Source, p.Key, p.Msg) }

// Apply merges one JSON object layer over c. Keys it does not know, values
// of the wrong type and out-of-range values are skipped and reported; the
// rest is applied. A nil or "null" layer changes nothing.
func (c *Config) Apply(source string, layer json.RawMessage) []Problem {
	layer = bytes.TrimSpace(layer)
	if len(layer) == 0 || string(layer) == "null" {
		return nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(layer, &fields); err != nil {
		return []Problem{{Source: source, Key: "(whole)", Msg: "not a JSON object: " + err.Error()}}
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var problems []Problem
	for _, k := range keys {
		if msg := c.set(k, fields[k]); msg != "" {
			key := k
			if strings.TrimSpace(key) == "" {
				key = strconv.Quote(k) // an empty or blank key must still show in the message
			}
			problems = append(problems, Problem{Source: source, Key: key, Msg: msg})
		}
	}
	return problems
}

func (c *Config) set(key string, raw json.RawMessage) string {
	bad := func(err error, want string) string {
		if err != nil {
			return "ignored: want " + want
		}
		return ""
	}
	switch key {
	case "architectModel", "editorModel":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return bad(err, "a string model id like \"openai/gpt-4.1\"")
		}
		if s != "" && !strings.Contains(s, "/") {
			return fmt.Sprintf("ignored: %q is not a model id of the form provider/model (for example \"ollama/%s\")", s, s)
		}
		if key == "architectModel" {
			c.ArchitectModel = s
		} else {
			c.EditorModel = s
		}
	case "providers":
		var p map[string]model.ProviderConfig
		if err := json.Unmarshal(raw, &p); err != nil {
			return bad(err, "an object of name → {kind, baseURL, apiKeyEnv}")
		}
		for name, pc := range p {
			switch pc.Kind {
			case "openai", "anthropic", "replay":
			default:
				return fmt.Sprintf("ignored: provider %q has kind %q; use \"openai\" or \"anthropic\"", name, pc.Kind)
			}
		}
		if c.Providers == nil {
			c.Providers = map[string]model.ProviderConfig{}
		}
		for name, pc := range p {
			c.Providers[name] = pc
		}
	case "reviewPlan":
		return bad(json.Unmarshal(raw, &c.ReviewPlan), "true or false")
	case "maxCycles", "editorFailureThreshold", "maxMistakes", "repoMapTokens", "requestTimeoutSeconds":
		var n int
		if err := json.Unmarshal(raw, &n); err != nil || n < 0 || (n == 0 && key != "maxCycles") || n > 1<<31 { // 1<<31 s is 68 years: beyond it a timeout overflows time.Duration
			return "ignored: want a positive whole number"
		}
		switch key {
		case "maxCycles":
			c.MaxCycles = n
		case "editorFailureThreshold":
			c.EditorFailureThreshold = n
		case "maxMistakes":
			c.MaxMistakes = n
		case "repoMapTokens":
			c.RepoMapTokens = n
		case "requestTimeoutSeconds":
			c.RequestTimeoutSeconds = n
		}
	case "onDrift":
		return c.setEnum(raw, &c.OnDrift, "continue", "replan", "stop")
	case "delivery":
		return c.setEnum(raw, &c.Delivery, "auto", "applyEdit", "codeActions")
	case "deny":
		var d []string
		if err := json.Unmarshal(raw, &d); err != nil {
			return bad(err, "a list of glob strings")
		}
		c.Deny = d
	case "prices":
		var p map[string]model.Price
		if err := json.Unmarshal(raw, &p); err != nil {
			return bad(err, "an object of model id → {input, output} USD per million tokens")
		}
		if c.Prices == nil {
			c.Prices = map[string]model.Price{}
		}
		for k, v := range p {
			c.Prices[k] = v
		}
	default:
		return "unknown key (ignored)"
	}
	return ""
}

func (c *Config) setEnum(raw json.RawMessage, dst *string, allowed ...string) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		for _, a := range allowed {
			if s == a {
				*dst = s
				return ""
			}
		}
	}
	return "ignored: want one of " + strings.Join(allowed, ", ")
}

// ApplyEnv fills the models from AIDE_ARCHITECT_MODEL and AIDE_EDITOR_MODEL.
// Provider base URLs and keys are read from the environment by model/ at call
// time; keys never enter the configuration.
func (c *Config) ApplyEnv(getenv func(string) string) []Problem {
	layer := map[string]string{}
	if v := getenv("AIDE_ARCHITECT_MODEL"); v != "" {
		layer["architectModel"] = v
	}
	if v := getenv("AIDE_EDITOR_MODEL"); v != "" {
		layer["editorModel"] = v
	}
	if len(layer) == 0 {
		return nil
	}
	raw, _ := json.Marshal(layer)
	return c.Apply("environment", raw)
}

// ApplyModels merges model ids given on a command line (--architect-model,
// --editor-model); an empty one leaves its key as it is.
func (c *Config) ApplyModels(source, architect, editor string) []Problem {
	layer := map[string]string{}
	if architect != "" {
		layer["architectModel"] = architect
	}
	if editor != "" {
		layer["editorModel"] = editor
	}
	if len(layer) == 0 {
		return nil
	}
	raw, _ := json.Marshal(layer)
	return c.Apply(source, raw)
}

// ApplyWorkspaceFile merges <root>/.aide/config.json when it exists.
func (c *Config) ApplyWorkspaceFile(root string) []Problem {
	raw, err := os.ReadFile(filepath.Join(root, ".aide", "config.json"))
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		return []Problem{{Source: ".aide/config.json", Key: "(file)", Msg: err.Error()}}
	}
	return c.Apply(".aide/config.json", raw)
}

// Effective returns the configuration with derived values filled in: the
// editor model follows the architect model when unset.
func (c Config) Effective() Config {
	if c.EditorModel == "" {
		c.EditorModel = c.ArchitectModel
	}
	return c
}
