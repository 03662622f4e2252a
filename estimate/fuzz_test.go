package estimate

import (
	"encoding/json"
	"testing"
)

// FuzzParse: any history file decodes without a panic into calls that make
// sense, never more than Keep per model, and what it keeps survives a save.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"version":1,"models":{"m":{"calls":[{"prompt":10,"completion":20,"ms":30}]}}}`))
	f.Add([]byte(`{"models":{"m":{"calls":[{"prompt":-1}]},"":null}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := parse(b)
		if err != nil {
			return
		}
		for id, m := range h.Models {
			if id == "" || len(m.Calls) == 0 || len(m.Calls) > Keep {
				t.Fatalf("model %q kept with %d calls", id, len(m.Calls))
			}
			for _, c := range m.Calls {
				if c.PromptTokens < 0 || c.CompletionTokens < 0 || c.MS < 0 {
					t.Fatalf("negative call kept: %+v", c)
				}
			}
		}
		out, err := json.Marshal(h)
		if err != nil {
			t.Fatal(err)
		}
		again, err := parse(out)
		if err != nil || len(again.Models) != len(h.Models) {
			t.Fatalf("a saved history does not read back: %v, %d models of %d", err, len(again.Models), len(h.Models))
		}
	})
}
