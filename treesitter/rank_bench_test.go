package treesitter

import (
	"slices"
	"strings"
	"testing"
)

// Ranking benchmarks on GOROOT/src (see bench_test.go for the corpus and
// AIDE_BENCH_CACHE):
//
//	AIDE_BENCH_CACHE=/tmp/benchcache go test ./treesitter -run '^$' -bench 'Rank|MapTasks' -benchtime 3x
//
// mapTasks are realistic requests: a focus file and a task naming
// identifiers, or a task naming a path or an identifier alone.
var mapTasks = []MapRequest{
	{Focus: []string{"net/http/client.go"}, Task: "make Client.Do retry on ErrServerClosed"},
	{Focus: []string{"go/types/expr.go"}, Task: "report a better error for untyped nil comparisons"},
	{Focus: []string{"runtime/proc.go"}, Task: "add a counter of goroutines created by newproc"},
	{Focus: []string{"encoding/json/decode.go"}, Task: "support the omitzero option in Unmarshal"},
	{Focus: []string{"os/exec/exec.go"}, Task: "Cmd.Wait should return context errors first"},
	{Focus: []string{"strings/builder.go"}, Task: "add a Builder.Reset that keeps capacity"},
	{Focus: []string{"database/sql/sql.go"}, Task: "DB.Close waits for open connections"},
	{Task: "fix the handshake timeout in crypto/tls/conn.go"},
	{Task: "make ParseDuration accept days"},
	{Focus: []string{"cmd/go/internal/load/pkg.go"}, Task: "cache ImportPaths results"},
}

// BenchmarkMapTasks is one Map per op, cycling through mapTasks (the
// graph is built before the timer starts).
func BenchmarkMapTasks(b *testing.B) {
	ix, _ := built(b)
	ix.Map(MapRequest{Tokens: 1})
	b.ResetTimer()
	defer reportCPU(b)()
	for i := 0; i < b.N; i++ {
		ix.Map(mapTasks[i%len(mapTasks)])
	}
}

// BenchmarkRank compares the ranking Map uses (push) with the 40-step
// power method on the restart vectors of mapTasks, and reports how much
// of the power method's map the push map keeps (lines in common over
// lines in either, averaged over the tasks, and the worst task).
func BenchmarkRank(b *testing.B) {
	ix, _ := built(b)
	g := ix.graph()
	var views []taskView
	for _, req := range mapTasks {
		views = append(views, g.task(req, nil))
	}
	b.Run("push", func(b *testing.B) {
		report := reportCPU(b)
		for i := 0; i < b.N; i++ {
			g.personalRank(slices.Clone(views[i%len(views)].pers), nil)
		}
		b.StopTimer()
		report()
		avg, worst := agreement(b, g, views)
		b.ReportMetric(avg, "agree-avg")
		b.ReportMetric(worst, "agree-worst")
	})
	b.Run("power", func(b *testing.B) {
		defer reportCPU(b)()
		for i := 0; i < b.N; i++ {
			g.pageRank(slices.Clone(views[i%len(views)].pers))
		}
	})
}

// agreement compares the maps of push and power ranks for each view.
func agreement(b *testing.B, g *graph, views []taskView) (avg, worst float64) {
	sum, worst := 0.0, 1.0
	for k, tv := range views {
		budget := DefaultMapTokens
		exact := mapLines(g.render(tv, g.pageRank(slices.Clone(tv.pers)), budget, nil))
		push := mapLines(g.render(tv, g.personalRank(slices.Clone(tv.pers), nil), budget, nil))
		j := jaccard(exact, push)
		if testing.Verbose() && j < 1 {
			b.Logf("%v: %.2f of the lines in common", mapTasks[k], j)
		}
		sum += j
		worst = min(worst, j)
	}
	return sum / float64(len(views)), worst
}

// mapLines is the set of "file: signature" lines of a map.
func mapLines(m string) map[string]bool {
	out := map[string]bool{}
	file := ""
	for _, l := range strings.Split(m, "\n") {
		switch {
		case l == "":
		case !strings.HasPrefix(l, " "):
			file = l
			out[file] = true
		default:
			out[file+l] = true
		}
	}
	return out
}

func jaccard(a, b map[string]bool) float64 {
	in := 0
	for k := range a {
		if b[k] {
			in++
		}
	}
	if len(a)+len(b) == 0 {
		return 1
	}
	return float64(in) / float64(len(a)+len(b)-in)
}
