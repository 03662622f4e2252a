package estimate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestOpenDefaultNeedsAStateFolder(t *testing.T) {
	if _, err := OpenDefault(env(nil)); err == nil || !strings.Contains(err.Error(), "XDG_STATE_HOME") {
		t.Errorf("no HOME nor XDG_STATE_HOME: err %v, want one naming XDG_STATE_HOME", err)
	}
}

func TestRecordSurvivesReopenAndKeepsTheLastCalls(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenDefault(env(map[string]string{"XDG_STATE_HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "aide-lsp", HistoryFile); s.Path() != want {
		t.Fatalf("path %s, want %s", s.Path(), want)
	}
	for i := 0; i < Keep+5; i++ {
		if err := s.Record("fake/ed", Call{PromptTokens: 1000, CompletionTokens: i, MS: int64(i) * 100}); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("history mode %v: other users can read it", fi.Mode().Perm())
	}
	again, err := Open(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	calls := again.Calls("fake/ed")
	if len(calls) != Keep || calls[0].CompletionTokens != 5 || calls[Keep-1].CompletionTokens != Keep+4 {
		t.Fatalf("after reopening: %d calls from %v; want the last %d", len(calls), calls[:1], Keep)
	}
	tok, d, n := again.Expect("fake/ed")
	// completions 5..24: median (14+15)/2 = 14; ms 500..2400: median 1450.
	if tok != 14 || d != 1450*time.Millisecond || n != Keep {
		t.Errorf("Expect = %d, %v, %d; want 14, 1.45s, %d", tok, d, n, Keep)
	}
	if tok, d, n := again.Expect("other/model"); tok != 0 || d != 0 || n != 0 {
		t.Errorf("a model never called: %d, %v, %d; want no history", tok, d, n)
	}
}

func TestTwoServersShareTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.json")
	a, _ := Open(path)
	b, _ := Open(path)
	if err := a.Record("m/a", Call{CompletionTokens: 1}); err != nil {
		t.Fatal(err)
	}
	if err := b.Record("m/b", Call{CompletionTokens: 2}); err != nil {
		t.Fatal(err)
	}
	c, _ := Open(path)
	if len(c.Calls("m/a")) != 1 || len(c.Calls("m/b")) != 1 {
		t.Errorf("the second server's write lost the first's record: a %v, b %v", c.Calls("m/a"), c.Calls("m/b"))
	}
}

func TestNeverUnderTheWorkspace(t *testing.T) {
	root := t.TempDir()
	if _, err := Open(filepath.Join(root, ".aide", "history.json"), root); err == nil {
		t.Fatal("a history inside the workspace was accepted")
	}
	// XDG_STATE_HOME pointing into the workspace through a link is caught too.
	outside := t.TempDir()
	link := filepath.Join(outside, "state")
	if err := os.Symlink(root, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	if _, err := OpenDefault(env(map[string]string{"XDG_STATE_HOME": link}), root); err == nil {
		t.Fatal("a state folder linked into the workspace was accepted")
	} else if !strings.Contains(err.Error(), "XDG_STATE_HOME") {
		t.Errorf("error %q does not say what to do", err)
	}
	if _, err := OpenDefault(env(map[string]string{"XDG_STATE_HOME": outside}), root); err != nil {
		t.Errorf("a state folder outside the workspace: %v", err)
	}
}

func TestDamagedFileStartsAnewAndIsReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.json")
	os.WriteFile(path, []byte(`{"models": {"m": {"calls": [{"prompt": -5, "completion": 3}`), 0o600)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Calls("m")); n != 0 {
		t.Fatalf("damaged file gave %d calls", n)
	}
	if err := s.Record("m", Call{CompletionTokens: 7, MS: 70}); err != nil {
		t.Fatal(err)
	}
	again, _ := Open(path)
	if tok, _, n := again.Expect("m"); tok != 7 || n != 1 {
		t.Errorf("after a record over a damaged file: %d tokens from %d calls; want 7 from 1", tok, n)
	}
	// Entries that make no sense are dropped, the rest kept.
	f, err := parse([]byte(`{"models":{"m":{"calls":[{"prompt":-1,"completion":5},{"prompt":10,"completion":20,"ms":30}]},"":{"calls":[{"completion":1}]}}}`))
	if err != nil || len(f.Models) != 1 || len(f.Models["m"].Calls) != 1 || f.Models["m"].Calls[0].CompletionTokens != 20 {
		t.Errorf("parse kept %+v, %v", f.Models, err)
	}
}

func TestManyModelsForgetTheLeastRecent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.json")
	s, _ := Open(path)
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { clock = clock.Add(time.Minute); return clock }
	for i := 0; i < maxModels+3; i++ {
		if err := s.Record("m/"+string(rune('A'+i%26))+string(rune('a'+i/26)), Call{CompletionTokens: i}); err != nil {
			t.Fatal(err)
		}
	}
	again, _ := Open(path)
	if n := len(again.data.Models); n != maxModels {
		t.Fatalf("%d models kept, want %d", n, maxModels)
	}
	if len(again.Calls("m/Aa")) != 0 {
		t.Error("the oldest model was kept")
	}
	if len(again.Calls("m/"+string(rune('A'+(maxModels+2)%26))+string(rune('a'+(maxModels+2)/26)))) != 1 {
		t.Error("the newest model was dropped")
	}
}
