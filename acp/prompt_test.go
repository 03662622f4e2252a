package acp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	sdk "github.com/coder/acp-go-sdk"
)

func promptRoot(t testing.TB) string {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n"), 0o644)
	_ = os.Mkdir(filepath.Join(root, "dir"), 0o755)
	outside := filepath.Join(filepath.Dir(root), "outside-"+filepath.Base(root)+".go")
	_ = os.WriteFile(outside, []byte("package x\n"), 0o644)
	t.Cleanup(func() { os.Remove(outside) })
	_ = os.Symlink(outside, filepath.Join(root, "link.go"))
	return root
}

func TestReadPrompt(t *testing.T) {
	root := promptRoot(t)
	in, err := readPrompt([]sdk.ContentBlock{
		sdk.TextBlock("rename the type"),
		sdk.ResourceLinkBlock("dir", "file://"+filepath.Join(root, "dir")),
		sdk.ResourceLinkBlock("link.go", "file://"+filepath.Join(root, "link.go")),
		sdk.ResourceLinkBlock("a.go", "file://"+filepath.Join(root, "a.go")),
		sdk.ResourceLinkBlock("a.go", filepath.Join(root, "a.go")),
		sdk.ResourceLinkBlock("web", "https://example.com/a.go"),
	}, root)
	if err != nil {
		t.Fatal(err)
	}
	if in.focus != filepath.Join(root, "a.go") {
		t.Errorf("focus %q: want a.go (not the folder, nor the link out of the root, nor a web page)", in.focus)
	}
	if in.task != "rename the type\n(see also a.go)" {
		t.Errorf("task %q", in.task)
	}
	if _, err := readPrompt([]sdk.ContentBlock{sdk.ResourceLinkBlock("a.go", "file://"+filepath.Join(root, "a.go"))}, root); err == nil || !strings.Contains(err.Error(), "write the task") {
		t.Errorf("a prompt without text: %v", err)
	}
	if _, err := readPrompt([]sdk.ContentBlock{sdk.TextBlock(strings.Repeat("x", maxTaskBytes+1))}, root); err == nil {
		t.Error("an oversized task was taken")
	}
}

// FuzzReadPrompt: whatever blocks a client sends, the task is valid UTF-8
// within the bound and the focus file, if any, is a regular file inside
// the root.
func FuzzReadPrompt(f *testing.F) {
	f.Add([]byte(`[{"type":"text","text":"hi"},{"type":"resource_link","name":"a","uri":"file:///etc/passwd"}]`))
	f.Add([]byte(`[{"type":"resource_link","name":"a","uri":"file://ROOT/a.go"},{"type":"text","text":"x"}]`))
	f.Add([]byte(`[{"type":"resource_link","name":"a","uri":"file://ROOT/../a.go"},{"type":"text","text":"\xff"}]`))
	f.Add([]byte(`[{"type":"image","data":"","mimeType":"image/png"}]`))
	root := promptRoot(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var blocks []sdk.ContentBlock
		if json.Unmarshal([]byte(strings.ReplaceAll(string(data), "ROOT", root)), &blocks) != nil {
			return
		}
		in, err := readPrompt(blocks, root)
		if err != nil {
			return
		}
		if in.task == "" || !utf8.ValidString(in.task) || len(in.task) > maxTaskBytes {
			t.Fatalf("task %q", in.task)
		}
		if in.focus != "" {
			rel, err := filepath.Rel(root, in.focus)
			st, serr := os.Stat(in.focus)
			if err != nil || strings.HasPrefix(rel, "..") || serr != nil || !st.Mode().IsRegular() {
				t.Fatalf("focus %q is not a file inside %s", in.focus, root)
			}
		}
	})
}
