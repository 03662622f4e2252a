package editapply

import "fmt"

// parseOrphanMarkers reports a divider and a REPLACE marker that no block
// took: their SEARCH marker was misspelt ("-- SEARCH", "<<-- SEARCH"), so
// the block was not read. Left alone the answer would change nothing and
// say nothing; as a failure the model is told to send the block again
// (contract §9.2: a block that cannot be read is a failure).
func parseOrphanMarkers(lines []string, used []bool) []Edit {
	var edits []Edit
	divider := -1
	for i, l := range lines {
		if used[i] {
			divider = -1
			continue
		}
		switch {
		case dividerMarker.MatchString(l):
			if divider < 0 {
				divider = i
			}
		case replaceMarker.MatchString(l) && divider >= 0:
			start := divider
			if start > 0 && !used[start-1] {
				start-- // the misspelt marker, most likely
			}
			path := pathAbove(lines, start)
			edits = append(edits, invalid(start, path, fmt.Sprintf("the block ending at line %d of your answer has ======= and REPLACE lines but no SEARCH line (%q is not one): start each block with a line <<<<<<< SEARCH", i+1, lines[start])))
			markUsed(used, divider, i+1)
			divider = -1
		}
	}
	return edits
}
