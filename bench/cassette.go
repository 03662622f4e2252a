package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Cassettes of a bench live in one folder:
//
//	DIR/manifest.json                  what was recorded, when, from what
//	DIR/<mode>/<task>/run-<n>.json     one model.Cassette per run
//
// A cassette run replays them instead of calling models; its report says
// so and names the models and the date they were recorded with.

// ManifestKind marks a manifest file.
const ManifestKind = "aide-lsp bench cassettes"

// Manifest describes a folder of recorded runs.
type Manifest struct {
	Kind           string            `json:"kind"`
	Recorded       time.Time         `json:"recorded"`
	Note           string            `json:"note"` // how they were recorded (live models, wire-level fakes, ...)
	ArchitectModel string            `json:"architectModel"`
	EditorModel    string            `json:"editorModel"`
	OneCallModel   string            `json:"oneCallModel"`
	SuiteVersion   string            `json:"suiteVersion"`
	Modes          []string          `json:"modes"`
	Runs           int               `json:"runs"`
	Tasks          map[string]string `json:"tasks"` // task name → task hash at recording time
}

// ParseManifest reads manifest.json.
func ParseManifest(data []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return m, fmt.Errorf("manifest.json: %v", err)
	}
	switch {
	case m.Kind != ManifestKind:
		return m, fmt.Errorf("manifest.json: kind %q is not %q", m.Kind, ManifestKind)
	case m.Runs < 1:
		return m, errors.New("manifest.json: runs must be at least 1")
	case len(m.Tasks) == 0:
		return m, errors.New("manifest.json: no tasks")
	case len(m.Modes) == 0:
		return m, errors.New("manifest.json: no modes")
	}
	for _, mode := range m.Modes {
		if _, err := ParseModes(mode); err != nil {
			return m, fmt.Errorf("manifest.json: %v", err)
		}
	}
	for name := range m.Tasks {
		if !taskNamePattern.MatchString(name) {
			return m, fmt.Errorf("manifest.json: %q is not a task name", name)
		}
	}
	for _, id := range []string{m.ArchitectModel, m.EditorModel, m.OneCallModel} {
		if id != "" && !strings.Contains(id, "/") {
			return m, fmt.Errorf("manifest.json: %q is not a model id provider/model", id)
		}
	}
	return m, nil
}

// LoadManifest reads DIR/manifest.json.
func LoadManifest(dir string) (Manifest, error) {
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return Manifest{}, fmt.Errorf("%s is not a cassette folder: %v (record one with --record DIR)", dir, err)
	}
	return ParseManifest(data)
}

func writeManifest(dir string, m Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "manifest.json"), append(data, '\n'), 0o644)
}

// cassettePath is where the cassette of one run lives.
func cassettePath(dir string, mode Mode, task string, run int) string {
	return filepath.Join(dir, string(mode), task, fmt.Sprintf("run-%d.json", run))
}
