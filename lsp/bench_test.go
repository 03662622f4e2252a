package lsp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/lsp"
	"github.com/aide-lsp/aide-lsp/tests/fakeeditor"
)

// BenchmarkCodeActionRoundTrip times textDocument/codeAction over the pipe
// (real framing, both codecs) on an open 10,000-line document, and reports
// the p50 and p99 latency of the round trip.
func BenchmarkCodeActionRoundTrip(b *testing.B) {
	ed := fakeeditor.Start(b, fakeeditor.Options{Server: lsp.Options{Engine: newFakeEngine()}})
	var text strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&text, "\tx%d := compute(%d) // 漢字 line %d\n", i, i, i)
	}
	ed.Open("big.go", text.String())
	mid := text.Len() / 2
	rng := ed.Range("big.go", mid, mid+200)
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		actions, err := ed.CodeActions("big.go", rng)
		times = append(times, time.Since(start))
		if err != nil || len(actions) != 2 {
			b.Fatalf("codeAction: %v (%d actions)", err, len(actions))
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs")
}

var rssOnce sync.Once
var rssKB float64

// BenchmarkIdleRSS builds the aide-lsp binary, starts it, initializes it
// over stdio and reports its resident set (VmRSS) once idle.
func BenchmarkIdleRSS(b *testing.B) {
	rssOnce.Do(func() { rssKB = measureIdleRSS(b) })
	for b.Loop() {
	}
	b.ReportMetric(rssKB, "VmRSS-kB")
}

func measureIdleRSS(b *testing.B) float64 {
	bin := filepath.Join(b.TempDir(), "aide-lsp")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/aide-lsp/aide-lsp/cmd/aide-lsp").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve", "--log-level", "error")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	send := func(v any) {
		body, _ := json.Marshal(v)
		fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	send(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"processId": os.Getpid(), "rootUri": "file://" + b.TempDir(), "capabilities": map[string]any{}}})
	r := bufio.NewReader(stdout)
	var length int
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "Content-Length: "); ok {
			length, _ = strconv.Atoi(v)
		}
		if strings.TrimSpace(line) == "" {
			break
		}
	}
	if _, err := io.CopyN(io.Discard, r, int64(length)); err != nil {
		b.Fatal(err)
	}
	send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}})
	// Let the runtime settle after initialize (GC, idle threads) before
	// reading the figure; this is a measurement, not an assertion.
	time.Sleep(500 * time.Millisecond)
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb
		}
	}
	b.Fatal("no VmRSS in /proc status")
	return 0
}
