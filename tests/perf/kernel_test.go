package perf

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/aide-lsp/aide-lsp/model/modeltest"
)

// kernelFocus is the file the kernel figures' architect requests are about.
const kernelFocus = "drivers/net/ethernet/intel/e1000/e1000_main.c"

// indexingTree is the tree BenchmarkKernelServer runs on, with the focus
// file, its language and the task of its architect request: the kernel
// (AIDE_PERF_KERNEL) or, when only AIDE_PERF_GOROOT is set, the GOROOT/src
// copy of run.sh, which indexes in a minute or two instead of many.
func indexingTree() (root, focus, lang, task string) {
	if root = os.Getenv("AIDE_PERF_KERNEL"); root != "" {
		return root, kernelFocus, "c", "make e1000_clean_tx_irq count dropped packets"
	}
	if root = os.Getenv("AIDE_PERF_GOROOT"); root != "" {
		return root, "net/http/client.go", "go", "make Client.Do retry on ErrServerClosed"
	}
	return "", "", "", ""
}

// BenchmarkKernelServer: the server figures of tests/perf/kernel.sh on a
// Linux source tree (AIDE_PERF_KERNEL, a git repository the script makes;
// or the GOROOT/src copy of AIDE_PERF_GOROOT, see indexingTree):
// started cold (no tag cache), the time to the first architect request
// (the fake's first call), codeAction p99 on the focus file while the index
// builds, RSS once indexing ended ($/progress end of the index, or the
// first turn's end when the server reports none), and how long after the
// server's start that end came; then restarted on the cache: the warm
// first architect request and RSS. Not run by run.sh.
func BenchmarkKernelServer(b *testing.B) {
	root, focus, lang, task := indexingTree()
	if root == "" {
		b.Skip("set AIDE_PERF_KERNEL to the kernel tree tests/perf/kernel.sh makes, or AIDE_PERF_GOROOT to a GOROOT/src copy")
	}
	if os.Getenv("AIDE_PERF_KERNEL_WARM") == "" {
		if err := os.RemoveAll(cacheHome(root)); err != nil {
			b.Fatal(err)
		}
	}
	src, err := os.ReadFile(filepath.Join(root, focus))
	if err != nil {
		b.Fatal(err)
	}
	plan := modeltest.Reply{Text: "## Plan\n1. In e1000_main.c, nothing.\n## End Plan\n"}
	edit := modeltest.Reply{Text: "No changes needed."}
	arch := modeltest.NewOpenAI(b)
	ed := modeltest.NewAnthropic(b)
	opts := map[string]any{
		"providers": map[string]any{
			"arch": map[string]any{"kind": arch.Kind, "baseURL": arch.BaseURL(), "apiKeyEnv": "FAKE_KEY"},
			"ed":   map[string]any{"kind": ed.Kind, "baseURL": ed.BaseURL(), "apiKeyEnv": "FAKE_KEY"},
		},
		"architectModel": "arch/big", "editorModel": "ed/small", "reviewPlan": false, "delivery": "codeActions",
	}
	focusURI := string(uri.File(filepath.Join(root, focus)))

	// session starts the server, asks one architect turn on the focus file
	// and returns the time to the architect's model call, with the
	// codeAction latencies measured until indexing ended, and the RSS after.
	session := func(name string) {
		started := time.Now()
		c := startLoadClient(b, root, opts)
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": focusURI, "languageId": lang, "version": 1, "text": string(src)}})
		calls := len(arch.Requests())
		arch.Script(plan)
		ed.Script(edit, edit, edit, edit)
		t0 := time.Now()
		var raw json.RawMessage
		var res struct{ Session string }
		if err := c.call("workspace/executeCommand", map[string]any{"command": "aide.architect",
			"arguments": []any{map[string]any{"uri": focusURI, "task": task}}}, &raw); err != nil || json.Unmarshal(raw, &res) != nil {
			b.Fatalf("aide.architect: %v", err)
		}
		var firstCall atomic.Int64
		go func() {
			for len(arch.Requests()) == calls {
				time.Sleep(10 * time.Millisecond)
			}
			firstCall.Store(int64(time.Since(t0)))
		}()
		turnEnded := make(chan struct{})
		go func() { c.waitEnded(b.Context(), res.Session); close(turnEnded) }()

		// codeAction on the focus file until the index says it ended
		// (or, with no index progress, the turn ended). The server shows
		// its progress only once the build has run a second
		// (app.indexProgressDelay): a cold turn that ends sooner (GOROOT,
		// a quiet machine) must not be taken for a build without
		// progress, or the measurement stops before it began and the
		// next start, "warm", finds no cache.
		rng := protocol(100, 101, 0, 0)
		var times []time.Duration
		for {
			if c.indexEnded() || (!c.indexStarted() && isClosed(turnEnded) && firstCall.Load() != 0 && (name != "cold" || time.Since(t0) > noProgressAfter)) {
				break
			}
			t := time.Now()
			var actions []json.RawMessage
			if err := c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": focusURI},
				"range": rng, "context": map[string]any{"diagnostics": []any{}}}, &actions); err != nil {
				b.Fatalf("codeAction: %v", err)
			}
			times = append(times, time.Since(t))
			time.Sleep(5 * time.Millisecond)
		}
		<-turnEnded
		for firstCall.Load() == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		b.ReportMetric(float64(time.Duration(firstCall.Load()).Milliseconds()), name+"-first-request-ms")
		if len(times) > 0 {
			slices.Sort(times)
			b.ReportMetric(percentile(times, 99), name+"-codeAction-p99-ms")
			b.ReportMetric(float64(len(times)), name+"-codeActions")
		}
		if end := c.indexEndedAt(); !end.IsZero() {
			// The whole build as the editor sees it: from the server's
			// start to its index's $/progress end (listing, parsing,
			// cache and graph written).
			b.ReportMetric(end.Sub(started).Seconds(), name+"-index-s")
		}
		time.Sleep(2 * time.Second) // settle, as BenchmarkServerRSS does
		b.ReportMetric(c.rssKB()/1024, name+"-rss-MiB")
		// Of which the heap and other private memory; the rest is pages of
		// the mapped tag cache and graph file (page cache, reclaimable).
		b.ReportMetric(c.statusKB("RssAnon:")/1024, name+"-rss-anon-MiB")
		c.shutdown()
		// Let the server write its cache and exit before the next start.
		deadline := time.Now().Add(loadTimeout)
		for c.alive() && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
	}
	session("cold")
	session("warm")
}

// noProgressAfter is how long after the architect request a server that
// showed no index progress is taken to show none: well past the second
// after which it does (app.indexProgressDelay), on a busy machine too.
const noProgressAfter = 5 * time.Second

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// rssKB reads the server's VmRSS (0 in-process or without /proc).
func (c *loadClient) rssKB() float64 { return c.statusKB("VmRSS:") }

// statusKB reads one kB field of the server's /proc status.
func (c *loadClient) statusKB(field string) float64 {
	if c.pid == 0 {
		return 0
	}
	status, err := os.ReadFile("/proc/" + itoa(c.pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			var kb float64
			_ = json.Unmarshal([]byte(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))), &kb)
			return kb
		}
	}
	return 0
}

// alive reports whether the server process still runs.
func (c *loadClient) alive() bool {
	if c.pid == 0 {
		return false
	}
	stat, err := os.ReadFile("/proc/" + itoa(c.pid) + "/stat")
	if err != nil {
		return false
	}
	rest := string(stat)
	if i := strings.LastIndexByte(rest, ')'); i >= 0 {
		rest = rest[i+1:]
	}
	f := strings.Fields(rest)
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
