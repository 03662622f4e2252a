package commands

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/treesitter"
)

// The prompts. The architect's framing and the editor's prefix are design
// rules 1 and 2; the one-call prompt is the plain path of rule 3.
const (
	architectSystem = `You are the architect of a code change in a software project. Read first, plan second, never edit.

Study the task, the repository map and the files you are given, then write a plan another model (the editor) will carry out with exact edits. Write the plan between a line "## Plan" and a line "## End Plan". In it, name every file to change by its path relative to the workspace root, and say precisely what to change in each and why: which functions, types or lines, what they should become. Keep it short and concrete.

Do not edit anything yourself: no SEARCH/REPLACE blocks, no diffs, no tool calls, no full files of code. Do not write placeholders such as "// ... existing code ...". Never plan changes to credential or secret files (.env, keys, certificates, credentials).`

	architectSuffix = `Read first, plan second, never edit. Write your plan between "## Plan" and "## End Plan".`

	editorPrefix = `You are the editor. Translate this plan into tool calls. Do not re-reason.`

	editorRules = `The plan is the contract: make exactly the changes it describes, in the files it names, and nothing else. If the plan does not say concretely what to change, make no edit and say so in one sentence. Edit with the tools: edit_file replaces old_text, copied exactly from the current content below and matching one place, with new_text; write_file creates a file or replaces it whole; delete_file and rename_file do what they say. Paths are relative to the workspace root. Never abbreviate code with placeholders such as "..." or "// existing code": write every line you change. Give every tool call the number of the plan step it carries out as "step".`

	oneCallSystem = `You are a careful coding assistant working in a software project. Make the change the task asks for with the tools: edit_file replaces old_text, copied exactly from the current content and matching one place, with new_text; write_file creates a file or replaces it whole; delete_file and rename_file do what they say. Paths are relative to the workspace root. Change only what the task needs. Never abbreviate code with placeholders such as "..." or "// existing code", and never touch credential or secret files.`
)

// Prompt size bounds, so one huge file cannot blow a model's context: a
// prompt holds at most maxPromptFiles files of at most maxFileBytes each.
const (
	maxPromptFiles = 16
	maxFileBytes   = 256 << 10
)

func editTools() []model.Tool {
	var out []model.Tool
	for _, t := range editapply.Tools() {
		out = append(out, model.Tool{Name: t.Name, Description: t.Description, Parameters: withStep(t.Parameters)})
	}
	return out
}

// fileBlock renders the current content of paths for a prompt, and returns
// the paths it included.
func (e *Engine) fileBlock(b *strings.Builder, title string, paths []string) []string {
	var included []string
	wrote := false
	for _, p := range paths {
		if len(included) >= maxPromptFiles {
			break
		}
		if !wrote {
			b.WriteString("\n## " + title + "\n")
			wrote = true
		}
		content, exists, err := e.ws.Read(p)
		switch {
		case err != nil:
			fmt.Fprintf(b, "\n%s: refused (%v); do not edit it.\n", p, err)
		case !exists:
			fmt.Fprintf(b, "\n%s: this file does not exist.\n", p)
		case len(content) > maxFileBytes:
			fmt.Fprintf(b, "\n%s: too large to include (%d bytes).\n", p, len(content))
			included = append(included, p)
		default:
			fence := "```"
			for strings.Contains(content, fence) {
				fence += "`"
			}
			fmt.Fprintf(b, "\n%s\n%s\n%s", p, fence, content)
			if !strings.HasSuffix(content, "\n") {
				b.WriteString("\n")
			}
			b.WriteString(fence + "\n")
			included = append(included, p)
		}
	}
	return included
}

// architectRequest builds the architect's request (no tools) and returns the
// files whose content went into it, for the drift snapshot.
func (e *Engine) architectRequest(s *session, cfg config.Config, feedback string) (model.Request, []string) {
	s.mu.Lock()
	task, focus, arch := s.task, append([]string(nil), s.focus...), s.archModel
	failed := append([]editapply.Failure(nil), s.lastFailed...)
	var prevPlan string
	review := s.hasReview()
	if feedback != "" || len(failed) > 0 || review {
		prevPlan = s.stalePlanForReplan()
	}
	var rb strings.Builder
	s.writeReview(&rb)
	s.mu.Unlock()
	var b strings.Builder
	b.WriteString("## Task\n\n" + task + "\n")
	if prevPlan != "" || len(failed) > 0 || feedback != "" || review {
		b.WriteString("\n## What happened last time\n")
		if prevPlan != "" {
			b.WriteString("\nYour previous plan:\n\n" + prevPlan + "\n")
		}
		writeFailures(&b, "These edits FAILED and were not made", failed)
		b.WriteString(rb.String())
		if feedback != "" {
			b.WriteString("\nThe user says: " + feedback + "\n")
		}
	}
	if e.index != nil {
		if m := e.index.Map(treesitter.MapRequest{Focus: focus, Task: task, Tokens: cfg.RepoMapTokens}); strings.TrimSpace(m) != "" {
			b.WriteString("\n## Repository map\n\n" + m + "\n")
		}
	}
	in := e.fileBlock(&b, "Files", focus)
	b.WriteString("\n" + architectSuffix + "\n")
	return model.Request{Model: arch, Role: model.RoleArchitect, System: architectSystem,
		Messages: []model.Message{{Role: "user", Content: b.String()}}}, in
}

// stalePlanForReplan is the last plan shown to the architect on a re-plan,
// with what failed; s.mu is held. The plan field is reset by the architect
// turn, so the caller reads it first.
func (s *session) stalePlanForReplan() string { return s.lastPlan }

func writeFailures(b *strings.Builder, title string, failed []editapply.Failure) {
	if len(failed) == 0 {
		return
	}
	b.WriteString("\n" + title + ":\n")
	for _, f := range failed {
		what := string(f.Edit.Kind)
		if what == "" {
			what = "edit"
		}
		fmt.Fprintf(b, "\n- %s of %s: %s\n", what, f.Edit.Path, f.Reason)
		if f.Edit.OldText != "" {
			fmt.Fprintf(b, "  old_text was:\n%s\n", indent(f.Edit.OldText))
		}
		if f.Reason == rerunReason && f.Edit.NewText != "" {
			// A re-run: the change itself is what to make again.
			fmt.Fprintf(b, "  new_text was:\n%s\n", indent(f.Edit.NewText))
		}
		if f.Closest != "" {
			fmt.Fprintf(b, "  the closest lines in the file are (did you mean these?):\n%s\n", indent(f.Closest))
		}
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}

// editorModelNow is the editor model after the failure threshold rule: after
// editorFailureThreshold all-failed passes in a row the architect's model
// edits (design rule 5).
func (s *session) editorModelFor(cfg config.Config) string {
	if s.edFailures >= cfg.EditorFailureThreshold && s.archModel != "" {
		return s.archModel
	}
	return s.edModel
}

func (s *session) editorModelNow() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.edModel
}

// editorRequest builds an editor pass: the plan as the contract, the current
// content of the files it names (and the focus files), the tools, and on a
// retry only the edits that failed. No architect history, no repository map.
// On the one-call path it carries the task, the map and the focus files.
func (e *Engine) editorRequest(s *session, cfg config.Config, mode editMode, retry []editapply.Failure, already []editapply.Edit) model.Request {
	s.mu.Lock()
	task, focus := s.task, append([]string(nil), s.focus...)
	mdl := s.editorModelFor(cfg)
	failedBefore := append([]editapply.Failure(nil), s.lastFailed...)
	s.mu.Unlock()
	var b strings.Builder
	var system string
	if mode.oneCall || mode.plan == "" {
		system = oneCallSystem
		b.WriteString("## Task\n\n" + task + "\n")
		if mode.feedback != "" {
			b.WriteString("\nThe user adds: " + mode.feedback + "\n")
			writeFailures(&b, "Last time these edits FAILED and were not made", failedBefore)
		}
		if e.index != nil {
			if m := e.index.Map(treesitter.MapRequest{Focus: focus, Task: task, Tokens: cfg.RepoMapTokens}); strings.TrimSpace(m) != "" {
				b.WriteString("\n## Repository map\n\n" + m + "\n")
			}
		}
		files := append(focus, e.namedFiles(task)...)
		e.fileBlock(&b, "Files", dedupe(files))
	} else {
		system = editorPrefix + "\n\n" + editorRules + "\n\n## Plan\n\n" + mode.plan + "\n\n## End Plan"
		b.WriteString("## Task (for reference; the plan above is what to do)\n\n" + task + "\n")
		if mode.driftNote != "" {
			b.WriteString("\n" + mode.driftNote + "\n")
		}
		files := append(e.namedFiles(mode.plan), focus...)
		e.fileBlock(&b, "Current content of the files", dedupe(files))
	}
	if len(retry) > 0 {
		b.WriteString("\n## Redo only these edits\n\nYour other edits matched and are proposed; do not repeat them.\n")
		if len(mode.held) > 0 {
			// Never say a held-back edit was applied (editapply.HeldBack).
			b.WriteString("Some were held back, NOT applied, because they go together with a failed edit; they are kept and go in with your corrections, so do not repeat them either:\n")
			for _, h := range mode.held {
				fmt.Fprintf(&b, "- %s %s\n", h.Kind, h.Path)
			}
		}
		writeFailures(&b, "These edits FAILED", retry)
	}
	for _, a := range already {
		fmt.Fprintf(&b, "\nNote: in %s the new text of one of your edits is already present; nothing to do there.\n", a.Path)
	}
	if mode.verifyFeedback != "" {
		b.WriteString("\n## Your last answer broke the build\n\n" + mode.verifyFeedback + "\n")
	}
	b.WriteString("\nMake the edits now with the tools.\n")
	return model.Request{Model: mdl, Role: model.RoleEditor, System: system,
		Messages: []model.Message{{Role: "user", Content: b.String()}}, Tools: editTools()}
}

func dedupe(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// pathToken finds path-like words in a plan: something.ext, or a/b/c.
var pathToken = regexp.MustCompile("[A-Za-z0-9_.~@+\\-/]*[A-Za-z0-9_\\-]\\.[A-Za-z0-9]{1,8}\\b|[A-Za-z0-9_.\\-]+/[A-Za-z0-9_./\\-]+")

// sourceExts are the extensions that make a word with no slash a file name
// (so "e.g." or "v1.2" are not taken for files).
var sourceExts = map[string]bool{}

func init() {
	for _, e := range strings.Fields(`go mod sum js jsx ts tsx mjs cjs json py pyi rb rs c h cc cpp hpp java kt kts swift scala cs php dart lua sql sh bash zsh
		yaml yml toml ini cfg conf md txt html htm css scss vue svelte ex exs erl hs ml el clj zig nix proto graphql tf
		env pem key netrc npmrc pypirc lock gradle xml csv r jl pl`) {
		sourceExts[e] = true
	}
}

// namedFiles lists the workspace-relative files a text names, in order:
// existing ones, and missing ones that look like paths (so the editor is
// told they do not exist).
func (e *Engine) namedFiles(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, loc := range pathToken.FindAllStringIndex(text, -1) {
		if loc[0] > 0 && text[loc[0]-1] == ':' {
			continue // a URL (http://host/x.go)
		}
		m := strings.TrimPrefix(text[loc[0]:loc[1]], "./")
		// A leading dot is part of the name (.github/workflows/ci.yml,
		// .env.example): only a trailing one is punctuation (contract §8).
		p := strings.TrimRight(strings.TrimLeft(m, ",;:()[]{}'\"`"), ".,;:()[]{}'\"`")
		if p == "" || seen[p] || strings.HasPrefix(p, "/") || strings.Contains(p, "//") {
			continue
		}
		ext := strings.TrimPrefix(path.Ext(p), ".")
		base := path.Base(p)
		if !strings.Contains(p, "/") && !sourceExts[strings.ToLower(ext)] && !strings.HasPrefix(base, ".") {
			continue
		}
		if ext == "" && !strings.HasPrefix(base, ".") {
			continue // a folder, or prose like "and/or"
		}
		seen[p] = true
		out = append(out, p)
		if len(out) >= maxPromptFiles {
			break
		}
	}
	return out
}

// editToolNames are the tools of contract §9, for tool-call recovery.
var editToolNames = []string{"edit_file", "write_file", "delete_file", "rename_file"}

// toolCallsInText finds tool calls a model wrote as JSON in its text (local
// models without native tool calling; an architect that edits anyway), with
// the same recovery the model layer uses.
func toolCallsInText(text string) []model.ToolCall {
	return model.RecoverToolCalls(text, editToolNames)
}
