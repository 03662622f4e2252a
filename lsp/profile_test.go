package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
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
		if p.Delivery(DeliveryCodeActions) != DeliveryCodeActions || p.Delivery(DeliveryApplyEdit) != DeliveryApplyEdit {
			t.Errorf("%s: configured delivery not honoured", tc.name)
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
