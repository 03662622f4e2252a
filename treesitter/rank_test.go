package treesitter

import (
	"context"
	"strings"
	"testing"
)

func buildProject(t *testing.T) *Index {
	t.Helper()
	root, paths := writeTree(t, projectFiles())
	ix := NewIndex(root, "")
	if _, err := ix.Build(context.Background(), paths); err != nil {
		t.Fatal(err)
	}
	return ix
}

// mapFiles lists the file headers of a rendered map.
func mapFiles(m string) []string {
	var out []string
	for _, line := range strings.Split(m, "\n") {
		if strings.HasSuffix(line, ":") && !strings.HasPrefix(line, " ") {
			out = append(out, strings.TrimSuffix(line, ":"))
		}
	}
	return out
}

func TestMapRanksFocusNeighboursFirst(t *testing.T) {
	ix := buildProject(t)
	// A budget that holds about five files out of 24.
	m := ix.Map(MapRequest{Focus: []string{"app/handler.go"}, Tokens: 60})
	files := mapFiles(m)
	want := []string{"app/handler.go", "cmd/main.go", "config/config.go", "store/store.go"}
	for _, w := range want {
		if !contains(files, w) {
			t.Errorf("map lacks %s (a neighbour of the focus file):\n%s", w, m)
		}
	}
	for _, f := range files {
		if strings.HasPrefix(f, "other/") {
			t.Errorf("unrelated %s made the cut before the neighbours:\n%s", f, m)
		}
	}
	if !strings.Contains(m, "func ParseSettings(path string) Settings") {
		t.Errorf("the definition the focus file uses is missing:\n%s", m)
	}
}

func TestMapFollowsIdentifiersInTheTask(t *testing.T) {
	ix := buildProject(t)
	m := ix.Map(MapRequest{Task: "Unrelated07Worker loops forever; make it stop", Tokens: 40})
	if !strings.Contains(m, "func Unrelated07Worker()") {
		t.Fatalf("the identifier named in the task is not in the map:\n%s", m)
	}
	// What it references (o08) ranks above the rest of the ring.
	if !contains(mapFiles(m), "other/o08.go") {
		t.Errorf("what the named identifier calls is missing:\n%s", m)
	}
}

func TestMapHonoursBudget(t *testing.T) {
	ix := buildProject(t)
	prev := 0
	for _, budget := range []int{1, 10, 25, 50, 100, 200, 400, 5000} {
		m := ix.Map(MapRequest{Focus: []string{"app/handler.go"}, Task: "fix ParseSettings", Tokens: budget})
		if got := EstimateTokens(m); got > budget {
			t.Errorf("budget %d: map estimates %d tokens:\n%s", budget, got, m)
		}
		if len(m) < prev {
			t.Errorf("budget %d gave a smaller map (%d bytes) than a smaller budget (%d)", budget, len(m), prev)
		}
		prev = len(m)
	}
	all := ix.Map(MapRequest{Tokens: 5000})
	if n := len(mapFiles(all)); n != 24 {
		t.Errorf("a generous budget shows %d files, want all 24:\n%s", n, all)
	}
	if ix.Map(MapRequest{Tokens: -1}) != "" {
		t.Error("a negative budget should give an empty map")
	}
	if def := ix.Map(MapRequest{}); def == "" || EstimateTokens(def) > DefaultMapTokens {
		t.Errorf("Tokens 0 should use the default budget %d", DefaultMapTokens)
	}
}

func TestMapIsStable(t *testing.T) {
	ix := buildProject(t)
	req := MapRequest{Focus: []string{"cmd/main.go"}, Task: "rename HandleRequest", Tokens: 120}
	first := ix.Map(req)
	for i := 0; i < 5; i++ {
		if again := ix.Map(req); again != first {
			t.Fatalf("map changed between calls:\n%s\n---\n%s", first, again)
		}
	}
	files := mapFiles(first)
	for i := 1; i < len(files); i++ {
		if files[i-1] >= files[i] {
			t.Fatalf("files not in path order: %v", files)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
