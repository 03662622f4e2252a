package estimate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/model"
)

// Counter is a provider that counts a request's prompt tokens itself (for
// example Anthropic's count_tokens endpoint). Without one the prompt is
// estimated at about 4 characters a token, as the meter does for servers
// that send no usage, and the estimate says so.
type Counter interface {
	CountTokens(ctx context.Context, req model.Request) (int, error)
}

// Estimate is the price of one editor call, before it is made.
type Estimate struct {
	Model        string `json:"model"`
	PromptTokens int    `json:"promptTokens"`
	// Counted is true when the provider counted PromptTokens; false: our estimate.
	Counted bool `json:"counted,omitempty"`
	// History is the number of past calls of Model the expectation comes
	// from; 0 means there is no history yet and the expected values are zero.
	History          int           `json:"history"`
	CompletionTokens int           `json:"completionTokens,omitempty"`
	Duration         time.Duration `json:"-"`
	MS               int64         `json:"ms,omitempty"`
	// Priced is true when prices has the model; CostUSD counts the prompt
	// and, with history, the expected completion.
	Priced  bool    `json:"priced,omitempty"`
	CostUSD float64 `json:"costUSD,omitempty"`
	// PriceFrom is whose price CostUSD comes from when not the user's
	// (model.Price.From); Line says so.
	PriceFrom string `json:"priceFrom,omitempty"`
}

// For prices req, the editor request that approval would send (the plan and
// the current content of the files it names). counter and hist may be nil.
// A counter that fails falls back to the estimate: a price shown is better
// than none, and it is marked estimated.
func For(ctx context.Context, req model.Request, counter Counter, hist *Store, prices map[string]model.Price) Estimate {
	e := Estimate{Model: req.Model}
	if counter != nil {
		if n, err := counter.CountTokens(ctx, req); err == nil && n > 0 {
			e.PromptTokens, e.Counted = n, true
		}
	}
	if !e.Counted {
		e.PromptTokens = model.EstimateUsage(req, &model.Response{}).PromptTokens
	}
	e.CompletionTokens, e.Duration, e.History = hist.Expect(req.Model)
	e.MS = e.Duration.Milliseconds()
	if p, ok := prices[req.Model]; ok {
		e.Priced = true
		e.CostUSD = p.Cost(e.PromptTokens, e.CompletionTokens)
		e.PriceFrom = p.From
	}
	return e
}

// Line is the estimate as one line of the plan document, for example
// "`openai/gpt-4o-mini`: ~1,234 prompt tokens (estimated), ~310 completion
// tokens and ~4s expected (median of 7 past calls), ~$0.0021".
func (e Estimate) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "`%s`: ", e.Model)
	if e.Counted {
		fmt.Fprintf(&b, "%s prompt tokens (counted by the provider)", thousands(e.PromptTokens))
	} else {
		fmt.Fprintf(&b, "~%s prompt tokens (estimated)", thousands(e.PromptTokens))
	}
	if e.History == 0 {
		b.WriteString(", completion and time: no history yet for this model")
	} else {
		calls := "calls"
		if e.History == 1 {
			calls = "call"
		}
		fmt.Fprintf(&b, ", ~%s completion tokens and ~%s expected (median of %d past %s)",
			thousands(e.CompletionTokens), seconds(e.Duration), e.History, calls)
	}
	if e.Priced {
		if e.History == 0 {
			fmt.Fprintf(&b, ", ≥ $%.4f (the prompt alone)", e.CostUSD)
		} else {
			fmt.Fprintf(&b, ", ~$%.4f", e.CostUSD)
		}
		b.WriteString(e.PriceNote())
	}
	return b.String()
}

// PriceNote says whose price a cost comes from when it is not the
// user's: " (price from .aide/config.json)"; "" for the user's own.
func (e Estimate) PriceNote() string {
	if e.PriceFrom == "" {
		return ""
	}
	return " (price from " + e.PriceFrom + ")"
}

// Versus is the estimate against what the call used, for the cost table:
// "estimated ~1,234 + ~310 tokens, ~4s; actual 1,198 + 402 tokens, 5s".
func (e Estimate) Versus(actual model.Usage, took time.Duration) string {
	est := "~" + thousands(e.PromptTokens)
	if e.Counted {
		est = thousands(e.PromptTokens)
	}
	if e.History > 0 {
		est += " + ~" + thousands(e.CompletionTokens) + " tokens, ~" + seconds(e.Duration)
	} else {
		est += " prompt tokens (no history)"
	}
	act := thousands(actual.PromptTokens) + " + " + thousands(actual.CompletionTokens) + " tokens, " + seconds(took)
	if actual.Estimated {
		act += " (estimated: the provider sent no usage)"
	}
	return "estimated " + est + "; actual " + act
}

// CallOf is the history record of a finished editor call.
func CallOf(resp *model.Response) Call {
	return Call{PromptTokens: resp.Usage.PromptTokens, CompletionTokens: resp.Usage.CompletionTokens,
		MS: resp.Duration.Milliseconds(), Estimated: resp.Usage.Estimated}
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// seconds rounds to what a person waits for: "0.4s", "4s", "2m10s".
func seconds(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Round(time.Second).Seconds()))
	default:
		return d.Round(time.Second).String()
	}
}
