package model

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// FuzzLoadReplay: a cassette is a file a user or a repository hands us, so
// LoadReplay takes any bytes. A refusal is an error naming the file; a
// cassette that loads holds every exchange it listed, writes back (as a
// Recorder writes) and loads again unchanged, and replays a call without a
// panic: through Replay.Chat, the text streamed is the text returned and
// the tool calls are the recorded ones, or the error is a *Error with a
// message; through a Router provider of kind replay, the same.
func FuzzLoadReplay(f *testing.F) {
	for _, p := range []string{
		filepath.Join("..", "tests", "testdata", "cassettes", "rename-foo.json"),
		filepath.Join("..", "examples", "cassettes", "shop-total.json"),
	} {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		`{"version":1,"exchanges":[{"request":{"role":"architect"},"response":{"text":"## Plan\n1. x\n## End Plan\n"}}]}`,
		`{"exchanges":[{"request":{"role":"editor"},"response":{"text":"edit_file {\"path\":\"a.go\",\"old_text\":\"a\",\"new_text\":\"b\"}"}}]}`,
		`{"exchanges":[{"response":{"toolCalls":[{"name":"write_file","arguments":"{"}],"usage":{"promptTokens":-1,"completionTokens":9223372036854775807}}}]}`,
		`{"exchanges":[{"request":{"role":"architect"},"error":"rate limited"}]}`,
		`{"version":2,"exchanges":[]}`,
		`{"exchanges":null}`,
		`{"exchanges":[{"response":{"text":"\ud800\u00e9\u0000"}}]}`,
		`{"exchanges":[{}, {"request":{"role":"x"}}]}`,
		`null`, `[]`, `{"version":"1"}`, "\xef\xbb\xbf{}", `{not a cassette`, ``,
	} {
		f.Add([]byte(s))
	}

	// One folder per fuzzing process, its files rewritten by each input
	// (inputs run one at a time in a process): a new folder per input
	// costs more than the parsing fuzzed.
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "tape.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rp, err := LoadReplay(path)
		if err != nil {
			if rp != nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a cassette") {
				t.Fatalf("refusal %v (replay %v): want an error naming %s as not a cassette", err, rp, path)
			}
			return
		}
		if rp.Remaining() != len(rp.ex) {
			t.Fatalf("%d exchanges loaded, %d to play", len(rp.ex), rp.Remaining())
		}

		// What loads writes back as a Recorder writes it, and loads the same.
		saved := filepath.Join(dir, "saved.json")
		if err := writeCassette(saved, Cassette{Version: 1, Exchanges: rp.ex}); err != nil {
			t.Fatalf("a loaded cassette does not write back: %v", err)
		}
		back, err := LoadReplay(saved)
		if err != nil {
			t.Fatalf("a written cassette does not load: %v", err)
		}
		if a, b := mustJSON(t, rp.ex), mustJSON(t, back.ex); a != b {
			t.Fatalf("round trip changed the exchanges:\n%s\n%s", a, b)
		}

		// Play one architect call, streamed, straight from the Replay.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // hang guard only
		defer cancel()
		req := Request{Model: "tape/m", Role: RoleArchitect, Messages: []Message{{Role: "user", Content: "plan it"}}}
		var streamed strings.Builder
		calls := 0
		resp, err := rp.Chat(ctx, req, func(d Delta) {
			streamed.WriteString(d.Text)
			if d.ToolCall != nil {
				calls++
			}
		})
		checkReplayed(t, resp, err, len(rp.ex))
		if err == nil {
			if streamed.String() != resp.Text || calls != len(resp.ToolCalls) {
				t.Fatalf("streamed %q and %d tool calls; returned %q and %d", streamed.String(), calls, resp.Text, len(resp.ToolCalls))
			}
			if rp.Remaining() != len(rp.ex)-1 {
				t.Fatalf("a played exchange is still counted: %d of %d left", rp.Remaining(), len(rp.ex))
			}
		}

		// Play one editor call with tools through a Router provider of kind
		// replay, as the server and the offline demo do.
		r := NewRouter(map[string]ProviderConfig{"tape": {Kind: "replay", BaseURL: path}}, Options{Env: func(string) string { return "" }})
		req.Role = RoleEditor
		req.Tools = []Tool{{Name: "edit_file"}, {Name: "write_file"}}
		resp, err = r.Chat(ctx, req, nil)
		checkReplayed(t, resp, err, len(rp.ex))
	})
}

// checkReplayed: a replayed call answers, or fails with a *Error that says
// what happened (and says the cassette is used up only when it is empty).
func checkReplayed(t *testing.T, resp *Response, err error, exchanges int) {
	t.Helper()
	if err != nil {
		var me *Error
		if !errors.As(err, &me) || strings.TrimSpace(me.Msg) == "" || resp != nil {
			t.Fatalf("replay failed with %T %v (response %v); want a *model.Error with a message", err, err, resp)
		}
		if me.Kind == ErrConfig && exchanges > 0 {
			t.Fatalf("a cassette with %d exchanges refused its first call: %v", exchanges, err)
		}
		return
	}
	if exchanges == 0 {
		t.Fatalf("an empty cassette answered %+v", resp)
	}
	if resp == nil || resp.Model != "tape/m" {
		t.Fatalf("replayed response %+v", resp)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
