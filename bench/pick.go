package bench

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// Commit is one commit of the history bench: a task (its message), its
// starting files (its parent's tree) and one right answer (its diff).
type Commit struct {
	Hash     string   `json:"hash"`
	Parent   string   `json:"parent,omitempty"`
	Subject  string   `json:"subject"`
	Body     string   `json:"body,omitempty"`
	Files    []string `json:"files,omitempty"` // every file the commit touched
	Focus    []string `json:"focus,omitempty"` // those that exist at the parent: what the user would have opened
	Lines    int      `json:"lines,omitempty"` // lines added and removed
	Language string   `json:"language,omitempty"`
	Skipped  string   `json:"skipped,omitempty"` // why it is not a task; "" when picked
}

// Short is the hash as people read it.
func (c Commit) Short() string {
	if len(c.Hash) > 10 {
		return c.Hash[:10]
	}
	return c.Hash
}

// Task is the commit's message as the instruction: subject, then body.
func (c Commit) Task() string {
	if c.Body == "" {
		return c.Subject
	}
	return c.Subject + "\n\n" + c.Body
}

// PickLimits say which commits a model could plausibly do from their
// message: small focused ones.
type PickLimits struct {
	MaxFiles int // files touched
	MaxLines int // lines added + removed
	MinWords int // words in the message
}

// DefaultPickLimits keep small focused commits: the size of a change one
// asks for in a sentence or two.
var DefaultPickLimits = PickLimits{MaxFiles: 4, MaxLines: 200, MinWords: 3}

// scanFactor bounds how far back the picker looks: N tasks from at most
// N×scanFactor commits, so a history of large commits does not make it
// read the whole log.
const scanFactor = 20

// PickCommits walks the current branch from HEAD (first parents: the
// branch's own commits) and returns up to n commits a model could do, with
// every commit it looked at and passed over, and why.
func PickCommits(ctx context.Context, dir string, n int, lim PickLimits, ws *workspace.Workspace) (picked, skipped []Commit, err error) {
	g := gitRepo{dir: dir}
	out, err := g.run(ctx, "log", "--first-parent", "-n", strconv.Itoa(n*scanFactor), "--format=%x1e%H%x00%P%x00%s%x00%b", "HEAD")
	if err != nil {
		return nil, nil, err
	}
	for _, rec := range strings.Split(string(out), "\x1e") {
		if len(picked) == n {
			break
		}
		f := strings.SplitN(rec, "\x00", 4)
		if len(f) < 4 {
			continue
		}
		c := Commit{Hash: f[0], Subject: strings.TrimSpace(f[2]), Body: strings.TrimSpace(f[3])}
		parents := strings.Fields(f[1])
		switch {
		case len(parents) == 0:
			c.Skipped = "the first commit: no parent to start from"
		case len(parents) > 1:
			c.Skipped = "a merge"
		default:
			c.Parent = parents[0]
			c.Skipped = judge(ctx, g, &c, lim, ws)
		}
		if c.Skipped == "" {
			picked = append(picked, c)
		} else {
			skipped = append(skipped, c)
		}
	}
	return picked, skipped, nil
}

// judge fills the commit's files and says why it is not a task ("" when it is).
func judge(ctx context.Context, g gitRepo, c *Commit, lim PickLimits, ws *workspace.Workspace) string {
	if words := len(strings.Fields(c.Task())); words < lim.MinWords {
		return fmt.Sprintf("message too short (%d word(s), fewer than %d)", words, lim.MinWords)
	}
	out, err := g.run(ctx, "diff-tree", "-r", "-z", "--numstat", "--no-renames", "--no-ext-diff", "--no-textconv", c.Parent, c.Hash)
	if err != nil {
		return err.Error()
	}
	binary := false
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for _, rec := range fields {
		parts := strings.SplitN(rec, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "-" {
			binary = true
		}
		a, _ := strconv.Atoi(parts[0])
		d, _ := strconv.Atoi(parts[1])
		c.Lines += a + d
		c.Files = append(c.Files, parts[2])
	}
	switch {
	case len(c.Files) == 0:
		return "changes no file"
	case binary:
		return "touches a binary file"
	case len(c.Files) > lim.MaxFiles:
		return fmt.Sprintf("too big: %d files (more than %d)", len(c.Files), lim.MaxFiles)
	case c.Lines > lim.MaxLines:
		return fmt.Sprintf("too big: %d lines changed (more than %d)", c.Lines, lim.MaxLines)
	}
	kinds := map[string]bool{}
	var real []string
	for _, f := range c.Files {
		k := fileKind(ctx, g, c.Hash, f, ws)
		if k == "" {
			real = append(real, f)
			continue
		}
		kinds[k] = true
	}
	if len(real) == 0 {
		var ks []string
		for _, k := range []string{"generated", "vendored", "denied"} {
			if kinds[k] {
				ks = append(ks, k)
			}
		}
		return "touches only " + strings.Join(ks, " or ") + " files"
	}
	for _, f := range c.Files {
		if g.blob(ctx, c.Parent, f) != nil {
			c.Focus = append(c.Focus, f)
		}
	}
	c.Language = languageOf(c.Files)
	return ""
}

// vendorDirs are folders of code a project carries but does not write.
var vendorDirs = []string{"vendor", "third_party", "node_modules", "external", "deps"}

// generatedNames are files tools write: lock files and the like.
var generatedNames = map[string]bool{"go.sum": true, "package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true,
	"Cargo.lock": true, "poetry.lock": true, "Gemfile.lock": true, "composer.lock": true, "uv.lock": true}

// fileKind says whether a file is generated, vendored or denied ("" when
// it is none): by its place, its name, or the "Code generated ... DO NOT
// EDIT." header Go's tools and many others write.
func fileKind(ctx context.Context, g gitRepo, rev, f string, ws *workspace.Workspace) string {
	if ws != nil && ws.Denied(f) {
		return "denied"
	}
	for _, part := range strings.Split(path.Dir(f), "/") {
		for _, v := range vendorDirs {
			if part == v {
				return "vendored"
			}
		}
	}
	base := path.Base(f)
	if generatedNames[base] || strings.HasSuffix(base, ".pb.go") || strings.HasSuffix(base, ".min.js") ||
		strings.Contains(base, "_generated.") || strings.Contains(base, ".generated.") {
		return "generated"
	}
	head := g.blob(ctx, rev, f)
	if len(head) > 4096 {
		head = head[:4096]
	}
	for _, line := range bytes.SplitN(head, []byte("\n"), 12) {
		if bytes.Contains(line, []byte("Code generated")) && bytes.Contains(line, []byte("DO NOT EDIT")) {
			return "generated"
		}
	}
	return ""
}

// languageOf names the language most of the files are in.
func languageOf(files []string) string {
	byExt := map[string]string{".go": "go", ".py": "python", ".ts": "typescript", ".tsx": "typescript", ".js": "javascript",
		".jsx": "javascript", ".rs": "rust", ".java": "java", ".kt": "kotlin", ".c": "c", ".h": "c", ".cc": "c++", ".cpp": "c++",
		".hpp": "c++", ".cs": "c#", ".rb": "ruby", ".php": "php", ".swift": "swift", ".lua": "lua", ".sh": "shell", ".md": "markdown"}
	count := map[string]int{}
	best, bestN := "other", 0
	for _, f := range files {
		l, ok := byExt[path.Ext(f)]
		if !ok {
			continue
		}
		count[l]++
		if count[l] > bestN || (count[l] == bestN && l < best) {
			best, bestN = l, count[l]
		}
	}
	return best
}
