//go:build linux

package abuse_test

import (
	"crypto/sha256"
	enc "encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/model/modeltest"
	"go.lsp.dev/uri"
)

// TestPlantedCacheIsNeverRead: a repository ships .aide/cache/tags-v3.bin,
// 64 MiB of a well-formed tag cache (the format of treesitter/cache.go)
// that names the repository's own files with their true hashes, sizes
// and times, each with 16 million definitions. The server's peak memory
// (VmHWM) after initialize and an architect pass (which waits for the
// index) is the control's, a copy of the workspace without the file, within
// 10%: the index reads back only its own cache, in the user's cache
// folder (contract §2). Decoded, the file cost the server a gigabyte.
func TestPlantedCacheIsNeverRead(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 64 MiB and starts the server four times")
	}
	// blob.go, over the 1 MiB a file may have to be indexed, lets a tag
	// cache of 64 MiB within the bound of 64 bytes per source byte
	// (contract §8), which refused a larger planted file before it was
	// read.
	files := map[string]string{"m.go": mGo, "n.go": "package m\n\nfunc C() int { return A() + B() }\n",
		"blob.go": strings.Repeat("// a generated table, too big to index\n", 27000)}
	control, planted := t.TempDir(), t.TempDir()
	for _, root := range []string{control, planted} {
		for rel, text := range files {
			writeFile(t, root, rel, text)
		}
	}
	cache := filepath.Join(planted, ".aide", "cache", "tags-v3.bin")
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cache, plantedTagCache(t, planted, []string{"m.go", "n.go"}, 64<<20), 0o644); err != nil {
		t.Fatal(err)
	}

	// Alternately, so that a machine busier for one run than another
	// weighs on both; the planted runs' least peak against the control's
	// greatest.
	var controlKB, plantedKB []int
	for range 2 {
		controlKB = append(controlKB, peakAfterArchitect(t, control))
		plantedKB = append(plantedKB, peakAfterArchitect(t, planted))
	}
	t.Logf("peak RSS (VmHWM, kB): control %v, planted cache %v", controlKB, plantedKB)
	if lo, hi := minOf(plantedKB), maxOf(controlKB); float64(lo) > 1.10*float64(hi) {
		t.Fatalf("with a planted cache the server peaked at %d kB, the control at %d kB: the planted file was read", lo, hi)
	}
	if _, err := os.Stat(cache); err != nil {
		t.Fatalf("the planted cache was removed: %v (an old in-repository cache is ignored, never deleted)", err)
	}
}

// peakAfterArchitect starts the binary on root with a fresh user cache
// folder, runs an architect pass (it waits for the index) and returns the
// server's VmHWM in kB once the plan waits for approval.
func peakAfterArchitect(t *testing.T, root string) int {
	t.Helper()
	fake := modeltest.NewOpenAI(t, modeltest.Reply{Text: "## Plan\n1. In m.go, make A return 10.\n## End Plan\n"})
	cfg := map[string]any{
		"providers":      map[string]any{"fake": map[string]any{"kind": "openai", "baseURL": fake.BaseURL(), "apiKeyEnv": "FAKE_KEY"}},
		"architectModel": "fake/big",
	}
	p := startServer(t, root, baseEnv("FAKE_KEY=k", "XDG_CACHE_HOME="+t.TempDir()))
	p.initialize(root, cfg)
	var s struct{ Session string }
	if err := json.Unmarshal(p.command("aide.architect", map[string]any{"uri": string(uri.File(filepath.Join(root, "m.go"))), "task": "make A return 10"}), &s); err != nil || s.Session == "" {
		t.Fatal("no session")
	}
	deadline := time.Now().Add(hangGuard)
	for p.sessionState(s.Session) != "waiting for approval" {
		if time.Now().After(deadline) {
			t.Fatalf("the plan never came: session %q, stderr %s", p.sessionState(s.Session), p.stderrText())
		}
		time.Sleep(20 * time.Millisecond)
	}
	status, err := os.ReadFile("/proc/" + strconv.Itoa(p.cmd.Process.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	p.shutdown()
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				t.Fatalf("VmHWM: %q", line)
			}
			return kb
		}
	}
	t.Fatalf("no VmHWM in /proc/<pid>/status")
	return 0
}

// plantedTagCache is a well-formed tag cache of about size bytes: one unit
// whose one content has as many definitions as fit (4 bytes each), and
// the paths rels of root pointing at it with their true hash, size and
// time, so that a reader of the file would take it for its own.
func plantedTagCache(t *testing.T, root string, rels []string, size int) []byte {
	pad8 := func(b []byte) []byte { return append(b, make([]byte, (8-len(b)%8)%8)...) }
	u64 := enc.LittleEndian.AppendUint64
	strs := []string{"go", "X", "function", "func X()"}
	u := []byte("aideunit")
	u = enc.AppendUvarint(u, uint64(len(strs)))
	var strAt []uint32
	for _, s := range strs {
		strAt = append(strAt, uint32(len(u)))
		u = enc.AppendUvarint(u, uint64(len(s)))
		u = append(u, s...)
	}
	u = enc.AppendUvarint(u, 1) // one content
	contentAt := uint32(len(u))
	ndefs := (size - 4096) / 4
	u = enc.AppendUvarint(u, 0) // language "go"
	u = enc.AppendUvarint(u, uint64(ndefs))
	for range ndefs {
		u = append(u, 1, 2, 3, 1) // X, function, func X(), line 1
	}
	u = enc.AppendUvarint(u, 0) // no references
	u = pad8(u)
	strTable := len(u)
	for _, a := range strAt {
		u = enc.LittleEndian.AppendUint32(u, a)
	}
	contTable := len(u)
	u = enc.LittleEndian.AppendUint32(u, contentAt)
	u = pad8(u)
	for _, n := range []int{len(strs), 1, strTable, contTable} {
		u = u64(u, uint64(n))
	}
	u = append(u, "aideuend"...)

	f := pad8([]byte("aidetags\x06"))
	start := len(f)
	f = append(f, u...)
	end, pathsAt := len(f), len(f)
	f = enc.AppendUvarint(f, uint64(len(rels)))
	for _, rel := range rels {
		abs := filepath.Join(root, rel)
		src, err := os.ReadFile(abs)
		if err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(abs)
		if err != nil {
			t.Fatal(err)
		}
		f = enc.AppendUvarint(f, uint64(len(rel)))
		f = append(f, rel...)
		f = enc.AppendUvarint(f, 0) // unit
		f = enc.AppendUvarint(f, 0) // content
		h := sha256.Sum256(src)
		f = append(f, h[:]...)
		f = enc.AppendUvarint(f, uint64(len(src)))
		f = enc.AppendUvarint(f, uint64(info.ModTime().UnixNano()))
	}
	f = pad8(f)
	unitTable := len(f)
	f = u64(u64(f, uint64(start)), uint64(end))
	f = u64(u64(u64(f, 1), uint64(unitTable)), uint64(pathsAt))
	return append(f, "aidetend"...)
}

func minOf(v []int) int {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []int) int {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
