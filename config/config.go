// Package config is aide-lsp's configuration (contract §3): the keys and
// defaults, and the merging of layers (defaults, the user's config file, the
// workspace's .aide/config.json, environment, initializationOptions,
// workspace/configuration, CLI flags), lowest precedence first. Unknown keys
// and bad values are reported as problems, never fatal.
//
// Each layer has an Origin that decides what it may set (docs/contract.md
// §3): the routing keys (providers, their baseURL, apiKeyEnv and
// kind) say where requests and keys go, so a workspace file that arrives
// with `git clone` may set them only once the user trusts its content.
package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/verify"
	"github.com/aide-lsp/aide-lsp/workspace"
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
	// Verify are the commands run on a scratch copy before proposing
	// (verify.go): only from the user's file or a trusted workspace file.
	Verify []verify.Command `json:"verify"`
	// VerifyUnconfined names the `verify` commands that may run without
	// the sandbox where none can be built ("*": all; `true` in the file).
	// Only the user's own file sets it (verify.go).
	VerifyUnconfined []string `json:"verifyUnconfined,omitempty"`
	// UntrustedRoot is the workspace folder when the user has not trusted
	// it (aide-lsp trust): no verification runs its build files (Load).
	UntrustedRoot string `json:"-"`

	// reviewAsks are the layers' asks of the review (EffectiveReview).
	reviewAsks []ReviewAsk

	// HTTPAllowed lists the plain-http base URLs the user's own
	// configuration file names: only to those (and to loopback hosts) may a
	// key travel unencrypted (model.Options.HTTPAllowed).
	HTTPAllowed []string `json:"-"`
}

// Origin says where a layer comes from, which decides what it may set.
type Origin int

const (
	// FromUser is the user's own configuration file (or a file given on
	// the command line): every key.
	FromUser Origin = iota
	// FromEditor is initializationOptions and workspace/configuration: the
	// editor's user settings (the VS Code extension sends routing keys only
	// from user scope). Routing keys are taken, but not the base URL of a
	// built-in provider nor a replay provider.
	FromEditor
	// FromWorkspace is an untrusted <root>/.aide/config.json: no routing
	// keys (they are reported as needing trust), models only among the
	// providers configured elsewhere, requestTimeoutSeconds at most 3,600.
	FromWorkspace
	// FromTrustedWorkspace is the same file once the user trusted its
	// content: routing keys too, with FromEditor's limits.
	FromTrustedWorkspace
	// FromEnv and FromFlags set models only (ApplyEnv, ApplyModels).
	FromEnv
	FromFlags
	// FromEditorWorkspace is the editor's workspace-folder settings (the
	// "workspaceSettings" object of an editor layer; the VS Code extension
	// sends .vscode/settings.json there): ranked and limited as the
	// workspace file, and never routing keys.
	FromEditorWorkspace
)

// workspaceScoped: a layer that arrives with the repository.
func (o Origin) workspaceScoped() bool {
	return o == FromWorkspace || o == FromTrustedWorkspace || o == FromEditorWorkspace
}

// MaxWorkspaceTimeoutSeconds caps requestTimeoutSeconds from a workspace's
// settings: an hour is more than any healthy call needs, and a repository
// must not keep a hung connection open for days.
const MaxWorkspaceTimeoutSeconds = 3600

// numericBounds are the bounds of the numeric keys (contract §3), from any
// layer; workspaceMax, when set, is the tighter bound of a workspace's
// settings. Without bounds a setting can exhaust the server (a map of a
// billion tokens) or the user's money (a thousand cycles).
var numericBounds = map[string]struct{ min, max, workspaceMax int }{
	"maxCycles":              {0, 100, 0},
	"editorFailureThreshold": {1, 100, 0},
	"maxMistakes":            {1, 100, 0},
	"repoMapTokens":          {1, 1 << 18, 0},
	"requestTimeoutSeconds":  {1, 86400, MaxWorkspaceTimeoutSeconds},
}

// builtinProviders are the providers of contract §3 whose base URL only the
// user's environment or configuration file may change.
var builtinProviders = map[string]bool{"openai": true, "anthropic": true, "ollama": true}

// TrustOnly reports whether key is one a workspace file may set only once
// trusted (contract §3): a routing key, the commands verification runs, or
// the prices, which add the models priced to the choices the user is
// offered ("Approve with <model> (~$…)") and put a cost before them: a
// repository may ask, never decide, so an untrusted workspace adds no
// choice and no price.
func TrustOnly(key string) bool { return key == "providers" || key == "verify" || key == "prices" }

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
	// NeedsTrust marks a routing key of an untrusted workspace file: not an
	// error in the file, a request the user must grant (aide-lsp trust).
	NeedsTrust bool
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s: %s", p.Source, p.Key, p.Msg) }

// KeyVars names the environment variables that hold the providers' keys:
// none of them is ever passed to a program aide-lsp runs, whatever its
// name (verify.CleanEnv).
func (c Config) KeyVars() []string {
	var out []string
	for _, pc := range c.Providers {
		if pc.APIKeyEnv != "" {
			out = append(out, pc.APIKeyEnv)
		}
	}
	return out
}

// Apply merges one JSON object layer of the user's own (FromUser) over c.
func (c *Config) Apply(source string, layer json.RawMessage) []Problem {
	return c.ApplyFrom(source, FromUser, layer)
}

// ApplyFrom merges one JSON object layer over c with the rules of its
// origin. Keys it does not know, values of the wrong type and out-of-range
// values are skipped and reported; the rest is applied. A nil or "null"
// layer changes nothing.
func (c *Config) ApplyFrom(source string, origin Origin, layer json.RawMessage) []Problem {
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
		if origin == FromWorkspace && TrustOnly(k) {
			msg := describeRouting(fields[k])
			switch k {
			case "verify":
				msg = describeVerify(fields[k])
			case "prices":
				msg = describePrices(fields[k])
			}
			problems = append(problems, Problem{Source: source, Key: k, NeedsTrust: true, Msg: msg})
			continue
		}
		if origin == FromEditorWorkspace && TrustOnly(k) {
			problems = append(problems, Problem{Source: source, Key: k, Msg: "ignored: " + k + " is taken from your user settings only"})
			continue
		}
		if msg := c.set(k, fields[k], origin); msg != "" {
			key := k
			if strings.TrimSpace(key) == "" {
				key = strconv.Quote(k) // an empty or blank key must still show in the message
			}
			problems = append(problems, Problem{Source: source, Key: key, Msg: msg})
		}
	}
	return problems
}

func (c *Config) set(key string, raw json.RawMessage, origin Origin) string {
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
		if s != "" && !strings.Contains(s, "/") && ValidModelID("ollama/"+s) == nil {
			return fmt.Sprintf("ignored: %q is not a model id of the form provider/model (for example \"ollama/%s\")", s, s)
		}
		if s != "" {
			if err := ValidModelID(s); err != nil {
				return "ignored: " + err.Error()
			}
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
		var msgs []string
		for _, name := range sortedKeys(p) {
			pc := p[name]
			if pc.Kind == "replay" {
				// Recorded answers are the command line's (--replay FILE): a
				// configuration that replays writes whatever its file says.
				msgs = append(msgs, fmt.Sprintf("provider %q ignored: kind \"replay\" is only for the command line (aide-lsp run --replay FILE)", name))
				continue
			}
			if builtinProviders[name] && pc.BaseURL != "" && origin != FromUser {
				msgs = append(msgs, fmt.Sprintf("the baseURL of built-in provider %q ignored: it changes only from the environment or your own config file (%s)", name, "~/.config/aide-lsp/config.json"))
				pc.BaseURL = ""
			}
			if origin == FromUser && strings.HasPrefix(strings.ToLower(pc.BaseURL), "http://") {
				if u := strings.TrimRight(pc.BaseURL, "/"); !slices.Contains(c.HTTPAllowed, u) {
					c.HTTPAllowed = append(c.HTTPAllowed, u)
				}
			}
			c.Providers[name] = pc
		}
		return strings.Join(msgs, "; ")
	case "reviewPlan":
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return bad(err, "true or false")
		}
		return c.applyReviewAsk(key, ReviewAsk{Origin: origin, ReviewPlan: &b})
	case "maxCycles", "editorFailureThreshold", "maxMistakes", "repoMapTokens", "requestTimeoutSeconds":
		b := numericBounds[key]
		limit := b.max
		if origin.workspaceScoped() && b.workspaceMax > 0 {
			limit = b.workspaceMax
		}
		var n int
		if err := json.Unmarshal(raw, &n); err != nil || n < b.min {
			return fmt.Sprintf("ignored: want a whole number from %d to %d", b.min, limit)
		}
		if n > limit {
			if limit < b.max {
				return fmt.Sprintf("ignored: at most %d from a workspace's settings", limit)
			}
			return fmt.Sprintf("ignored: at most %d", limit)
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
		var d string
		if msg := c.setEnum(raw, &d, "auto", "applyEdit", "codeActions"); msg != "" {
			return msg
		}
		return c.applyReviewAsk(key, ReviewAsk{Origin: origin, Delivery: d})
	case "deny":
		var d []string
		if err := json.Unmarshal(raw, &d); err != nil {
			return bad(err, "a list of glob strings")
		}
		// Layers add to the deny list, never replace it: a repository
		// cannot take back what the user denied.
		var bad []string
		for _, g := range d {
			if !workspace.ValidGlob(g) {
				bad = append(bad, strconv.Quote(g))
				continue
			}
			if !slices.Contains(c.Deny, g) {
				c.Deny = append(c.Deny, g)
			}
		}
		if len(bad) > 0 {
			return "dropped " + strings.Join(bad, ", ") + ": not a valid glob (the rest of the list applies)"
		}
	case "prices":
		var p map[string]model.Price
		if err := json.Unmarshal(raw, &p); err != nil {
			return bad(err, "an object of model id → {input, output} USD per million tokens")
		}
		if c.Prices == nil {
			c.Prices = map[string]model.Price{}
		}
		var bad []string
		for k, v := range p {
			if ValidModelID(k) != nil {
				bad = append(bad, strconv.Quote(k))
				continue
			}
			v.From = ""
			if origin == FromTrustedWorkspace {
				v.From = WorkspaceFileName // a cost from it says whose (contract §3)
			}
			c.Prices[k] = v
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			return "dropped " + strings.Join(bad, ", ") + ": not a model id provider/model"
		}
	case "verify":
		return c.setVerify(raw, origin)
	case "verifyUnconfined":
		return c.setVerifyUnconfined(raw, origin)
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
	return c.ApplyFrom("environment", FromEnv, raw)
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
	return c.ApplyFrom(source, FromFlags, raw)
}

// Effective returns the configuration with derived values filled in: the
// editor model follows the architect model when unset.
func (c Config) Effective() Config {
	if c.EditorModel == "" {
		c.EditorModel = c.ArchitectModel
	}
	return c
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// describePrices says, for the user, which models a prices value would
// price (and so offer).
func describePrices(raw json.RawMessage) string {
	var p map[string]model.Price
	if err := json.Unmarshal(raw, &p); err != nil || len(p) == 0 {
		return "prices (ignored: trust-only)"
	}
	return "prices of " + strings.Join(sortedKeys(p), ", ") + " (models offered to approve with, and the costs shown)"
}

// describeRouting says, for the user, what a providers value would route:
// provider names, hosts and key variables.
func describeRouting(raw json.RawMessage) string {
	var p map[string]model.ProviderConfig
	if err := json.Unmarshal(raw, &p); err != nil || len(p) == 0 {
		return "providers (ignored: trust-only)"
	}
	var parts []string
	for _, name := range sortedKeys(p) {
		pc := p[name]
		s := fmt.Sprintf("provider %q", name)
		if pc.Kind != "" {
			s += " (" + pc.Kind + ")"
		}
		if pc.BaseURL != "" {
			s += " at " + HostOf(pc.BaseURL)
		}
		if pc.APIKeyEnv != "" {
			s += " with the key in $" + pc.APIKeyEnv
		}
		if pc.Kind == "replay" {
			s += " (never taken from a config file, trusted or not: use aide-lsp run --replay FILE)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// HostOf is the scheme and host of a base URL, without user-info or path,
// for messages (a base URL may carry credentials).
func HostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return strconv.Quote(model.Redact(base))
	}
	if u.Scheme == "" {
		return u.Host
	}
	return u.Scheme + "://" + u.Host
}
