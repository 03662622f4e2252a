package model_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

func TestCassetteRecordReplayRoundTrip(t *testing.T) {
	forEachWire(t, func(t *testing.T, w wire) {
		plan := "## Plan\n1. Rename Foo to Bar.\n## End Plan\n"
		call := model.ToolCall{Name: "edit_file", Arguments: `{"path":"foo.go","old_text":"Foo","new_text":"Bar"}`}
		srv := w.start(t,
			modeltest.Reply{Text: plan, Usage: &model.Usage{PromptTokens: 900, CompletionTokens: 40}},
			modeltest.Reply{ToolCalls: []model.ToolCall{call}})
		live := newRouter(t, w, srv)
		path := filepath.Join(t.TempDir(), "session.json")
		rec := model.NewRecorder(live, path)

		arch := userReq("fake/m")
		if _, err := rec.Chat(ctxGuard(t), arch, func(model.Delta) {}); err != nil {
			t.Fatal(err)
		}
		edit := userReq("fake/m")
		edit.Role, edit.Tools = model.RoleEditor, editTools
		if _, err := rec.Chat(ctxGuard(t), edit, func(model.Delta) {}); err != nil {
			t.Fatal(err)
		}
		// The key went over the wire, and must not be in the file.
		if srv.Requests()[0].Headers[w.authHeader] == "" {
			t.Fatal("the fake saw no key: the test proves nothing")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{secretKey, "SECRET", "authorization", "x-api-key", "Bearer"} {
			if strings.Contains(strings.ToLower(string(data)), strings.ToLower(secret)) {
				t.Errorf("the cassette contains %q:\n%s", secret, data)
			}
		}

		// Replay through a Router provider of kind replay; ask for the
		// editor first: the role picks the exchange.
		meter := &model.Meter{}
		r := model.NewRouter(map[string]model.ProviderConfig{"tape": {Kind: "replay", BaseURL: path}}, model.Options{Meter: meter})
		edit.Model = "tape/m"
		resp, err := r.Chat(ctxGuard(t), edit, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != call.Name || resp.ToolCalls[0].Arguments != call.Arguments {
			t.Errorf("replayed editor answer %+v", resp)
		}
		arch.Model = "tape/m"
		var streamed strings.Builder
		deltas := 0
		resp, err = r.Chat(ctxGuard(t), arch, func(d model.Delta) { streamed.WriteString(d.Text); deltas++ })
		if err != nil {
			t.Fatal(err)
		}
		if resp.Text != plan || streamed.String() != plan || deltas < 2 {
			t.Errorf("replayed plan %q, streamed %q in %d deltas", resp.Text, streamed.String(), deltas)
		}
		if resp.Usage != (model.Usage{PromptTokens: 900, CompletionTokens: 40}) {
			t.Errorf("replayed usage %+v", resp.Usage)
		}
		_, err = r.Chat(ctxGuard(t), arch, nil)
		asError(t, err, model.ErrConfig)
		mustContain(t, err.Error(), "no exchange left", "record the session again")
		rows, _ := meter.Rows(nil)
		if len(rows) != 2 {
			t.Errorf("replayed calls are metered too: rows %+v", rows)
		}
	})
}

func TestReplayBadCassette(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(path, []byte("{not a cassette"), 0o644)
	r := model.NewRouter(map[string]model.ProviderConfig{
		"tape":    {Kind: "replay", BaseURL: path},
		"missing": {Kind: "replay", BaseURL: filepath.Join(t.TempDir(), "nope.json")},
	}, model.Options{})
	_, err := r.Chat(ctxGuard(t), userReq("tape/m"), nil)
	asError(t, err, model.ErrConfig)
	mustContain(t, err.Error(), "not a cassette", "model.Recorder")
	_, err = r.Chat(ctxGuard(t), userReq("missing/m"), nil)
	asError(t, err, model.ErrConfig)
}

// TestReplayOtherVersion: a cassette of a format this build does not know
// (a newer aide-lsp's, or a hand-written one without a version) is refused
// with the version it has, not replayed as something else.
func TestReplayOtherVersion(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{"v2.json": `{"version":2,"exchanges":[]}`, "none.json": `{"exchanges":[]}`, "null.json": `null`} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(body), 0o644)
		_, err := model.LoadReplay(path)
		if err == nil {
			t.Fatalf("%s: replayed", name)
		}
		mustContain(t, err.Error(), "not a cassette this aide-lsp reads", "version", "record it again")
	}
}

func TestSharedCassetteLoads(t *testing.T) {
	path := filepath.Join("..", "tests", "testdata", "cassettes", "rename-foo.json")
	if _, err := os.Stat(path); err != nil {
		t.Skip("no shared cassette")
	}
	rp, err := model.LoadReplay(path)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Remaining() == 0 {
		t.Errorf("empty cassette")
	}
}
