package bench

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/config"
)

// The bench's copies are thrown away: what their engines keep (undo
// records, the apply journal, plan documents written) goes to the bench's
// own state folder beside them, never to the user's (docs/design.md).
func TestBenchKeepsNoRecordInTheUsersStateFolder(t *testing.T) {
	userState := t.TempDir()
	t.Setenv("XDG_STATE_HOME", userState)
	m, err := LoadManifest(ciCassettes)
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for n := range m.Tasks {
		name = n
		break
	}
	suite, err := LoadSuite(suiteDir, []string{name})
	if err != nil {
		t.Fatal(err)
	}
	modes, _ := ParseModes(strings.Join(m.Modes, ","))
	work := t.TempDir()
	rep, err := Run(context.Background(), Options{Suite: suite, Modes: modes[:1], Runs: 1, Config: config.Defaults().Effective(),
		CassetteDir: ciCassettes, Progress: io.Discard, Keep: true, WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != 1 || len(rep.Results[0].Applied) == 0 {
		t.Fatalf("the run wrote nothing: %+v", rep.Results)
	}
	var user []string
	filepath.WalkDir(userState, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			user = append(user, p)
		}
		return nil
	})
	if len(user) > 0 {
		t.Errorf("the bench left records in the user's state folder: %v", user)
	}
	undos, _ := filepath.Glob(filepath.Join(work, "state", "undo", "*", "*.json"))
	if len(undos) != 1 {
		all, _ := filepath.Glob(filepath.Join(work, "state", "*", "*", "*"))
		t.Errorf("%d undo records in the bench's own state folder, want the run's one; it holds %v", len(undos), all)
	}
}
