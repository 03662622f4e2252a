package config

import "fmt"

// Review is how much the user reviews before an edit lands (contract §3,
// "may lower review"; §6): whether the plan waits for approval, and how the
// hunks reach the editor. Delivery is "auto", "applyEdit" or "codeActions"
// as configured; once the client is known (EffectiveReview with a client)
// it is the delivery used, "applyEdit" or "codeActions". Every hunk of an
// applyEdit carries needsConfirmation, so per-hunk confirmation follows
// from the delivery.
type Review struct {
	ReviewPlan bool
	Delivery   string
}

// ReviewAsk is what one configuration layer asked of the review: a nil
// ReviewPlan or an empty Delivery asks nothing of that part.
type ReviewAsk struct {
	Source     string
	Origin     Origin
	ReviewPlan *bool
	Delivery   string
}

// ReviewClient is what the editor does with a workspace/applyEdit.
type ReviewClient struct {
	// ApplyEdit: the client applies workspace edits at all.
	ApplyEdit bool
	// ConfirmsEachHunk: the client shows each annotated change of one
	// applyEdit for confirmation on its own (VS Code's Refactor Preview),
	// rather than applying the whole edit at once (Helix, Neovim ≤ 0.10)
	// or asking one question for all of it (Neovim 0.12).
	ConfirmsEachHunk bool
}

// deliveryStrictness orders the deliveries by how much the user reviews:
// codeActions applies nothing until the user picks it; auto is the
// client's own per-hunk review; applyEdit is whatever the client does
// with one edit.
var deliveryStrictness = map[string]int{"applyEdit": 0, "auto": 1, "codeActions": 2}

// MayLowerReview reports whether a layer of this origin may make review
// less strict (turn plan approval off, ask for applyEdit). Only the user's
// own config file and the command line may: a workspace file arrives with
// `git clone`, and no editor's settings can be told apart from a
// repository's (Helix reads .helix/languages.toml, Emacs .dir-locals.el,
// Neovim an exrc, VS Code .vscode/settings.json).
func MayLowerReview(o Origin) bool { return o == FromUser || o == FromFlags }

// EffectiveReview is the one decision of the review level (contract §3,
// §6): asks are the layers' asks, lowest precedence first, starting from
// the defaults (plan approval on, delivery auto). A layer that may lower
// review (MayLowerReview) sets what it asks; any other layer only makes
// review stricter, and its asks that would lower it are returned as
// refused. With a client, "applyEdit" — asked or chosen by "auto" — is
// used only when the client applies edits and confirms each hunk on its
// own; otherwise the hunks go as code actions, whoever asked.
func EffectiveReview(asks []ReviewAsk, client *ReviewClient) (r Review, refused []ReviewAsk) {
	r = Review{ReviewPlan: true, Delivery: "auto"}
	for _, a := range asks {
		lower := MayLowerReview(a.Origin)
		lowered := false
		if a.ReviewPlan != nil {
			if lower || *a.ReviewPlan {
				r.ReviewPlan = *a.ReviewPlan
			} else if r.ReviewPlan {
				lowered = true
			}
		}
		if s, ok := deliveryStrictness[a.Delivery]; ok {
			if lower || s >= deliveryStrictness[r.Delivery] {
				r.Delivery = a.Delivery
			} else {
				lowered = true
			}
		}
		if lowered {
			refused = append(refused, a)
		}
	}
	if client != nil {
		if r.Delivery != "codeActions" && client.ApplyEdit && client.ConfirmsEachHunk {
			r.Delivery = "applyEdit"
		} else {
			r.Delivery = "codeActions"
		}
	}
	return r, refused
}

// refusedReviewMsg is the problem reported for a refused ask.
func refusedReviewMsg(key string) string {
	return fmt.Sprintf("ignored: %s may only make review stricter here; to review less, set it in your own config file (%s)", key, "~/.config/aide-lsp/config.json")
}

// applyReviewAsk records an ask of one layer and sets the review fields
// from all asks so far; it returns the problem of a refused ask.
func (c *Config) applyReviewAsk(key string, a ReviewAsk) string {
	c.reviewAsks = append(c.reviewAsks[:len(c.reviewAsks):len(c.reviewAsks)], a)
	r, refused := EffectiveReview(c.reviewAsks, nil)
	c.ReviewPlan, c.Delivery = r.ReviewPlan, r.Delivery
	if len(refused) > 0 && refused[len(refused)-1] == a {
		return refusedReviewMsg(key)
	}
	return ""
}
