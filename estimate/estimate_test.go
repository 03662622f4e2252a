package estimate

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aide-lsp/aide-lsp/model"
)

func editorReq(plan string) model.Request {
	return model.Request{Model: "fake/ed", Role: model.RoleEditor, System: "You are the editor.\n\n## Plan\n\n" + plan,
		Messages: []model.Message{{Role: "user", Content: "## Current content of the files\n\nmain.go\n```go\npackage main\n```\n"}}}
}

type counter struct {
	n   int
	err error
}

func (c counter) CountTokens(context.Context, model.Request) (int, error) { return c.n, c.err }

func TestNoHistoryYet(t *testing.T) {
	e := For(context.Background(), editorReq("1. rename x"), nil, nil, nil)
	if e.Counted || e.PromptTokens == 0 || e.History != 0 {
		t.Fatalf("estimate %+v", e)
	}
	line := e.Line()
	for _, want := range []string{"`fake/ed`", "(estimated)", "no history yet"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	if strings.Contains(line, "$") {
		t.Errorf("line %q shows a cost without a price", line)
	}
}

func TestPromptGrowsWithThePlanAndFiles(t *testing.T) {
	small := For(context.Background(), editorReq("1. rename x"), nil, nil, nil)
	big := For(context.Background(), editorReq("1. rename x\n"+strings.Repeat("2. and change every caller of x in main.go\n", 50)), nil, nil, nil)
	if big.PromptTokens <= small.PromptTokens+400 {
		t.Errorf("a plan 2,000 characters longer: %d prompt tokens against %d", big.PromptTokens, small.PromptTokens)
	}
}

func TestFromHistoryWithPrice(t *testing.T) {
	h, _ := Open(filepath.Join(t.TempDir(), "h.json"))
	for _, c := range []Call{{CompletionTokens: 300, MS: 4000}, {CompletionTokens: 5000, MS: 90000}, {CompletionTokens: 320, MS: 4200}} {
		h.Record("fake/ed", c)
	}
	prices := map[string]model.Price{"fake/ed": {Input: 1, Output: 10}}
	e := For(context.Background(), editorReq("1. rename x"), counter{n: 1234}, h, prices)
	if !e.Counted || e.PromptTokens != 1234 || e.CompletionTokens != 320 || e.Duration != 4200*time.Millisecond || e.History != 3 {
		t.Fatalf("estimate %+v; want 1234 counted, median 320 tokens and 4.2s of 3 calls", e)
	}
	want := (1234*1.0 + 320*10.0) / 1e6
	if e.CostUSD != want {
		t.Errorf("cost %v, want %v", e.CostUSD, want)
	}
	line := e.Line()
	for _, w := range []string{"1,234 prompt tokens (counted by the provider)", "~320 completion tokens", "~4s", "median of 3 past calls", "~$0.0044"} {
		if !strings.Contains(line, w) {
			t.Errorf("line %q lacks %q", line, w)
		}
	}
	v := e.Versus(model.Usage{PromptTokens: 1200, CompletionTokens: 402}, 5*time.Second)
	if v != "estimated 1,234 + ~320 tokens, ~4s; actual 1,200 + 402 tokens, 5s" {
		t.Errorf("Versus = %q", v)
	}
}

func TestFailingCounterFallsBackToEstimate(t *testing.T) {
	e := For(context.Background(), editorReq("1. x"), counter{err: errors.New("503")}, nil, map[string]model.Price{"fake/ed": {Input: 3}})
	if e.Counted || e.PromptTokens == 0 {
		t.Fatalf("estimate %+v", e)
	}
	if line := e.Line(); !strings.Contains(line, "(estimated)") || !strings.Contains(line, "the prompt alone") {
		t.Errorf("line %q", line)
	}
}

func TestThousandsAndSeconds(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q", n, got)
		}
	}
	for d, want := range map[time.Duration]string{400 * time.Millisecond: "0.4s", 4400 * time.Millisecond: "4s", 130 * time.Second: "2m10s"} {
		if got := seconds(d); got != want {
			t.Errorf("seconds(%v) = %q", d, got)
		}
	}
}
