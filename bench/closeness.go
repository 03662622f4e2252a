package bench

import (
	"bytes"
	"sort"
)

// Closeness of a result to the real commit (docs/bench.md "Closeness").
//
// A change is, per file, the multiset of the lines it removed and the
// lines it added: the old file's lines minus the new file's, and the new
// minus the old, counted with their repeats (trailing spaces ignored). The
// same rule reads the commit (parent → commit) and the result (parent →
// the copy after the edits), so an identical result scores 1 whatever
// diff algorithm either side would have chosen. Lines only match within
// the same file: the right line in the wrong file is not the answer.
//
// The score is F1 over those lines: precision (the share of the result's
// changed lines the commit also changed) and recall (the share of the
// commit's the result also changed), their harmonic mean. F1 punishes both
// missing the change and adding unasked ones, which a recall alone (or a
// plain text similarity of the whole files, dominated by unchanged lines)
// would not.

// lineChange is one file's change: removed and added lines with counts.
type lineChange struct {
	removed, added map[string]int
}

// changeOf is the change from old to new.
func changeOf(old, new []byte) lineChange {
	o, n := lineCounts(old), lineCounts(new)
	c := lineChange{removed: map[string]int{}, added: map[string]int{}}
	for l, k := range o {
		if d := k - n[l]; d > 0 {
			c.removed[l] = d
		}
	}
	for l, k := range n {
		if d := k - o[l]; d > 0 {
			c.added[l] = d
		}
	}
	return c
}

func lineCounts(b []byte) map[string]int {
	m := map[string]int{}
	for _, l := range bytes.Split(b, []byte("\n")) {
		l = bytes.TrimRight(l, " \t\r")
		if len(l) == 0 {
			continue // blank lines say nothing about the change
		}
		m[string(l)]++
	}
	return m
}

func (c lineChange) size() int {
	n := 0
	for _, k := range c.removed {
		n += k
	}
	for _, k := range c.added {
		n += k
	}
	return n
}

// common is how many changed lines two changes share.
func common(a, b lineChange) int {
	n := 0
	for l, k := range a.removed {
		n += min(k, b.removed[l])
	}
	for l, k := range a.added {
		n += min(k, b.added[l])
	}
	return n
}

// Closeness is how a result compares with the commit.
type Closeness struct {
	// Score is F1 over changed lines, per file (0..1).
	Score float64 `json:"score"`
	// Files is the share of files in common: touched by both over touched
	// by either (Jaccard, 0..1).
	Files float64 `json:"files"`
	// WrongFiles are the files the result changed and the commit did not.
	WrongFiles []string `json:"wrongFiles,omitempty"`
}

// closeness compares two changes, each a map file → change (a file whose
// change is empty is left out).
func closeness(commit, result map[string]lineChange) Closeness {
	var matched, cSize, rSize int
	union := map[string]bool{}
	both := 0
	for f, c := range commit {
		union[f] = true
		cSize += c.size()
		if r, ok := result[f]; ok {
			both++
			matched += common(c, r)
		}
	}
	var out Closeness
	for f, r := range result {
		rSize += r.size()
		if _, ok := commit[f]; !ok {
			out.WrongFiles = append(out.WrongFiles, f)
			union[f] = true
		}
	}
	sort.Strings(out.WrongFiles)
	if len(union) > 0 {
		out.Files = float64(both) / float64(len(union))
	}
	if matched > 0 {
		p, r := float64(matched)/float64(rSize), float64(matched)/float64(cSize)
		out.Score = 2 * p * r / (p + r)
	}
	return out
}
