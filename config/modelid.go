package config

import (
	"fmt"
	"strings"
)

// MaxModelIDBytes bounds a model id.
const MaxModelIDBytes = 200

// ValidModelID checks a model id wherever one enters (configuration
// files, the environment, flags, editor settings, command arguments):
// "provider/rest", at most 200 bytes of letters, digits and . _ - : / @ +.
// A model id comes from text a repository may write and is shown in the
// plan document; one holding a line break, a backtick or "## Plan" could
// write a plan of its own there (contract §3, §5).
func ValidModelID(id string) error {
	if len(id) > MaxModelIDBytes {
		return fmt.Errorf("%.40q… is not a model id: at most %d characters", id, MaxModelIDBytes)
	}
	provider, rest, ok := strings.Cut(id, "/")
	if !ok || provider == "" || rest == "" {
		return fmt.Errorf("%q is not a model id of the form provider/model (for example \"ollama/qwen2.5-coder:14b\")", id)
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-:/@+", r)) {
			return fmt.Errorf("%q is not a model id: %q is not allowed (letters, digits and . _ - : / @ + only)", id, r)
		}
	}
	return nil
}
