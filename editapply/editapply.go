// Package editapply turns an editor model's output into exact, reviewable
// edits: it parses tool calls, SEARCH/REPLACE blocks and unified diffs,
// resolves each edit against current text with the matching ladder, and
// builds hunks, minimal TextEdits, WorkspaceEdits, rebases and diffs.
package editapply

// EditKind is what an edit does to its file.
type EditKind string

const (
	KindEdit   EditKind = "edit"   // replace OldText with NewText
	KindWrite  EditKind = "write"  // create or replace the whole file with NewText
	KindDelete EditKind = "delete" // delete the file
	KindRename EditKind = "rename" // rename Path to NewPath
	// KindInvalid is a block of the answer that could not be read (an
	// unclosed SEARCH/REPLACE block, a diff without hunks). It never
	// resolves: Resolve makes it a failure with Reason, so the parse error
	// goes back to the editor like a failed match, and it holds back the
	// other edits to its file (Path may be empty when the block names none).
	KindInvalid EditKind = "invalid"
)

// Edit is one edit as the model wrote it, before it is resolved.
type Edit struct {
	Kind    EditKind
	Path    string // as the model wrote it; checked by Options.Allow
	OldText string
	NewText string
	NewPath string
	line    int    // where the edit starts in a text answer, to keep the answer's order
	Source  string // "tool", "search_replace", "diff", "apply_patch", ...
	// Reason is why a KindInvalid block could not be read.
	Reason string
	// StartLine is a 1-based line the answer says OldText starts at (Roo's
	// ":start_line:", a Cursor "```12:20:path" fence), 0 when none. It only
	// chooses among several equal matches; it never moves a unique one.
	StartLine int
	// EndLine, with StartLine, is a range of lines (1-based, inclusive) that
	// NewText replaces when OldText is empty (a ```12:20:path fence). It is
	// taken only when the range's first or last line is also NewText's, so a
	// stale line number cannot replace lines the answer did not mean.
	EndLine int
	// ReplaceAll: every exact occurrence of OldText is replaced (a tool
	// call's "replace_all": true), instead of refusing several matches.
	ReplaceAll bool
	// alts are other readings of a SEARCH/REPLACE block with several
	// "=======" lines: {old, new} for each later divider.
	alts [][2]string
	// atEOF: OldText is empty and NewText goes at the end of the file
	// (apply_patch "*** End of File").
	atEOF bool
	// mustCreate: the answer says the file is new (apply_patch "Add File").
	mustCreate bool
	// wholeLines: the format writes whole lines only (apply_patch has no
	// way to leave its last line open), so a last line of the file that
	// the edit writes ends with a line break, even where the file's did
	// not (docs/edits.md, final newline).
	wholeLines bool
	// mustExist: the file was named only the way an example is (a heading
	// or a sentence over the fence): the block may replace an existing
	// file that it mostly keeps, never create one (keepsMostOf,
	// docs/edits.md).
	mustExist bool
	// variants are the other readings of this edit the answer's form
	// allows (readings.go); Resolve resolves each.
	variants []variant
	// inText: read from the text of an answer that also made tool calls
	// (AlsoInText).
	inText bool
}

// Files gives the current content of workspace-relative paths: the open
// buffer when there is one, else the file on disk. (workspace.Workspace
// implements it.)
type Files interface {
	Read(path string) (content string, exists bool, err error)
}

// Options are the checks Resolve applies to every edit.
type Options struct {
	// Allow vets a path the model wrote (outside the root, symlink escape,
	// denied) and returns the clean workspace-relative path. An error makes
	// the edit a failure with the error's text as the reason.
	Allow func(path string) (clean string, err error)
	// Plan is what the edits carry out (the task and the architect's plan):
	// the verifier lets a whole-file write drop a definition or most of a
	// file only when the plan asks for it (docs/edits.md, conservation).
	Plan string
}

// Hunk is one resolved, reviewable change. For KindEdit, [Start, End) is the
// byte range of the file's current content (as Files returned it) that
// NewText replaces; OldText is that range's text. Hunks of one file never
// overlap and are expressed against the same content.
type Hunk struct {
	ID      string // "h1", "h2", ... unique within one Resolve result
	Path    string // clean workspace-relative path
	Kind    EditKind
	NewPath string
	Start   int
	End     int
	OldText string
	NewText string
	Summary string // one line, e.g. "main.go:12 replace 3 lines with 5"
	// Created: a KindWrite hunk on a path that did not exist; the
	// WorkspaceEdit creates the file (CreateFile) before inserting NewText.
	Created bool
}

// Failure is an edit that could not be resolved, with the reason and the
// closest lines of the file, for the retry prompt.
type Failure struct {
	Edit    Edit
	Reason  string
	Closest string
	// Index is the edit's position in the slice given to Resolve; Resolve
	// returns failures sorted by it.
	Index int
}

// Result is the outcome of Resolve.
type Result struct {
	Hunks          []Hunk
	Failures       []Failure
	AlreadyApplied []Edit // NewText is already present where OldText would be: not a failure
	// HeldBack are edits that resolved but are not in Hunks because another
	// edit of their unit failed: an answer's edits to one file, and the
	// files a rename, a delete or a write chains to it, are applied whole or
	// not at all (docs/contract.md §9). A caller that retries the failed
	// edits resolves these again, before the corrections (commands does).
	HeldBack []HeldBack
}

// HeldBack is an edit kept out of the result with the failure of its unit.
type HeldBack struct {
	Edit  Edit
	Index int // position in the slice given to Resolve
	// Failed is the Index of the first failed edit of the unit.
	Failed int
}

// RebaseStatus says what became of a pending hunk after its document changed.
type RebaseStatus string

const (
	RebaseUnchanged RebaseStatus = "unchanged"
	RebaseMoved     RebaseStatus = "moved"
	RebaseStale     RebaseStatus = "stale"
)
