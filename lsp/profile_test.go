package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadProfile(t *testing.T, name string) *Profile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "tests", "testdata", "profiles", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		ClientInfo   clientInfo      `json:"clientInfo"`
		Capabilities json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return NewProfile(p.Capabilities, p.ClientInfo.Name, p.ClientInfo.Version)
}

func TestProfilesOfRealEditors(t *testing.T) {
	for _, tc := range []struct {
		name                                              string
		annotations, docChanges, resourceOps, showDoc, wd bool
		encoding, auto                                    string
	}{
		{"vscode-1.96", true, true, true, true, true, "utf-16", DeliveryApplyEdit},
		{"neovim-0.7", false, false, false, false, true, "utf-16", DeliveryCodeActions},
		{"neovim-0.10", false, false, false, true, true, "utf-16", DeliveryCodeActions},
		// Change annotations, but one Y/N for the whole edit: code actions.
		{"neovim-0.12", true, false, false, true, true, "utf-8", DeliveryCodeActions},
		{"helix-25.1", false, true, true, true /* by clientInfo.name */, true, "utf-8", DeliveryCodeActions},
		{"helix-25.07", false, true, true, true, true, "utf-8", DeliveryCodeActions},
		{"emacs-30.1", false, true, false, true, true, "utf-8", DeliveryCodeActions},
	} {
		p := loadProfile(t, tc.name)
		if p.ChangeAnnotations != tc.annotations || p.DocumentChanges != tc.docChanges ||
			p.ResourceOps() != tc.resourceOps || p.ShowDocument != tc.showDoc || p.WorkDoneProgress != tc.wd ||
			string(p.Encoding) != tc.encoding || p.Delivery("auto") != tc.auto {
			t.Errorf("%s: profile %+v, resourceOps=%v delivery=%s", tc.name, p, p.ResourceOps(), p.Delivery("auto"))
		}
		if p.PlanDocument {
			t.Errorf("%s: no real client declares experimental.aidePlanDocument", tc.name)
		}
		// applyEdit, whoever asks, only where the client confirms each
		// hunk on its own (where auto picks it): Helix and Neovim apply
		// or refuse one multi-hunk edit whole (contract §3, §6).
		if p.Delivery(DeliveryCodeActions) != DeliveryCodeActions || p.Delivery(DeliveryApplyEdit) != tc.auto {
			t.Errorf("%s: configured delivery %s, asked applyEdit gives %s", tc.name, p.Delivery(DeliveryCodeActions), p.Delivery(DeliveryApplyEdit))
		}
	}
}

func TestProfileOfNothingIsConservative(t *testing.T) {
	for _, caps := range []string{"", "null", "[]", `{"general":{"positionEncodings":"utf-8"}}`} {
		p := NewProfile(json.RawMessage(caps), "", "")
		if p.Encoding != "utf-16" || p.ApplyEdit || p.ShowDocument || p.Delivery("applyEdit") != DeliveryCodeActions {
			t.Errorf("%q: %+v", caps, p)
		}
	}
	p := NewProfile(json.RawMessage(`{"experimental":{"aidePlanDocument":true}}`), "", "")
	if !p.PlanDocument {
		t.Error("experimental.aidePlanDocument not read")
	}
}

// TestPlanShowKeepsTheCodeInView: the plan file is shown beside the code
// with the cursor left in the code, as each real client reads the request
// (docs/design.md "Plan buffers"): takeFocus false where an absent key means
// true (Neovim, Helix 25.01), no key where a present one means true (Eglot),
// and no showDocument at all where every one replaces the code's view
// (Helix 25.07): a message names the key that opens it beside the code.
func TestPlanShowKeepsTheCodeInView(t *testing.T) {
	const u, path = "file:///w/.aide/plans/s1.md", "/w/.aide/plans/s1.md"
	for _, tc := range []struct {
		profile string
		show    bool
		key     string // the takeFocus member as sent; "" when absent
	}{
		{"neovim-0.10", true, "false"},
		{"neovim-0.12", true, "false"},
		{"helix-25.1", true, "false"},
		{"emacs-30.1", true, ""},
		{"helix-25.07", false, ""},
	} {
		p := loadProfile(t, tc.profile)
		params, show, note := p.planShow(u, path)
		if show != tc.show {
			t.Errorf("%s: shown %v, want %v (note %q)", tc.profile, show, tc.show, note)
			continue
		}
		if !show {
			if !strings.Contains(note, "space A") || !strings.Contains(note, ".aide/plans/s1.md") {
				t.Errorf("%s: the message %q must name space A and the plan file", tc.profile, note)
			}
			continue
		}
		b, err := json.Marshal(params)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if string(m["uri"]) != `"`+u+`"` || string(m["takeFocus"]) != tc.key {
			t.Errorf("%s: showDocument %s; want takeFocus %q", tc.profile, b, tc.key)
		}
	}
}

// TestHelixVersions: which Helix versions open a shown document in place of
// the code. Versions are as Helix sends them; unreadable ones count as old.
func TestHelixVersions(t *testing.T) {
	for v, want := range map[string]bool{
		"25.1 (dabfb6ce)": false, "25.01.1": false, "24.07": false, "25.07": true,
		"25.07.1": true, "25.10 (abc)": true, "26.1": true, "": false, "25": false, "x.y": false, "25.x": false,
	} {
		p := NewProfile(nil, "helix", v)
		if got := p.helixReplacesView(); got != want {
			t.Errorf("helix %q: replaces the view = %v, want %v", v, got, want)
		}
	}
	if NewProfile(nil, "Neovim", "25.07").helixReplacesView() {
		t.Error("only Helix is judged by its calendar version")
	}
}
