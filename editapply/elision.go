package editapply

import (
	"path"
	"regexp"
	"strings"
)

// Elision lines are what models write instead of code they did not want to
// repeat: "...", "// ... existing code ...", "# rest unchanged". In
// replacement text they would delete that code, so they are refused; in
// SEARCH text they stand for "whatever is there" (rung 5 of the ladder).

var commentLeaders = []string{"<!--", "-->", "{/*", "*/}", "{{/*", "*/}}", "{#", "#}", "(*", "*)", "/*", "*/", "//", "#", "--", ";", "*", "%", "REM ", "rem ", "@*", "*@"}

// ellipsisPhrase: a comment that opens or closes with an ellipsis and says
// code is left out: "// ... other routes ...", "# ... rest of validation
// as before ...", "/* … more cases … */". A comment that merely ends a
// sentence with "..." ("// wait for it...") needs one of these words.
var ellipsisPhrase = regexp.MustCompile(`(?i)\b(rest|other|others|remaining|existing|unchanged|same|omitted|previous|original|as before|etc|more|similar|elided|snip|snipped|truncated|keep|kept)\b`)

// elisionWords: the comment says code was left out. Anchored so that an
// ordinary comment ("// unchanged behaviour for nil input") is not taken.
var elisionWords = regexp.MustCompile(`(?i)^(\.\.\.|…)?\s*\(?(` +
	`(the )?rest of (the )?(code|file|function|method|class|body|implementation|struct|module|imports|test|tests|cases|lines)( (is |remains )?(unchanged|the same|as before))?` +
	`|(the )?rest (is )?unchanged|(the )?remainder (is )?unchanged` +
	`|(keep |keeping )?(the )?(existing|previous|original|other|remaining|unchanged) (code|methods|functions|fields|imports|implementation|lines|cases|content|logic)( (here|unchanged|omitted|as before|remains?( the same| unchanged)?|stays( the same)?))?` +
	`|(code |lines |content )?(unchanged|omitted)( for brevity)?` +
	`|same as before|(\w+ )?(body|code|implementation) (unchanged|omitted|as before)` +
	`)\)?\s*[.:]?\s*(\.\.\.|…)?$`)

// notShown: the end of a comment that says code is left out.
var notShown = regexp.MustCompile(`(?i)\b(unchanged|omitted|as before|remains? the same|stays? the same|not shown|elided|for brevity|goes here|go here)\s*[.:;]?\s*(\.\.\.|…)?\)?$`)

// isElision reports whether a line is an elision marker. Python files may use
// a bare "..." as a real statement, so there only commented forms count.
func isElision(line, file string) bool {
	s := strings.TrimSpace(line)
	if s == "" {
		return false
	}
	bareDots := s == "..." || s == "…" || s == "...." || s == "....."
	if bareDots {
		ext := strings.ToLower(path.Ext(file))
		return ext != ".py" && ext != ".pyi"
	}
	commented := false
	for changed := true; changed; {
		changed = false
		for _, lead := range commentLeaders {
			if strings.HasPrefix(s, lead) {
				s = strings.TrimSpace(s[len(lead):])
				commented, changed = true, true
			}
			if strings.HasSuffix(s, lead) && len(lead) >= 2 {
				s = strings.TrimSpace(s[:len(s)-len(lead)])
				changed = true
			}
		}
	}
	if !commented {
		return false
	}
	if s == "..." || s == "…" || s == "" && strings.Contains(line, "...") {
		return true
	}
	if len(s) > 80 {
		return false
	}
	if elisionWords.MatchString(s) {
		return true
	}
	// "[...]", "(...)": the ellipsis in brackets.
	if t := strings.Trim(s, "[]() "); t == "..." || t == "…" {
		return true
	}
	// A short comment that ends by saying the code is not shown:
	// "// remaining handlers unchanged", "# validation as before".
	if words := len(strings.Fields(s)); words <= 8 && notShown.MatchString(s) {
		return true
	}
	// A comment that is only an ellipsis phrase.
	opens := strings.HasPrefix(s, "...") || strings.HasPrefix(s, "…")
	closes := strings.HasSuffix(s, "...") || strings.HasSuffix(s, "…")
	words := len(strings.Fields(s))
	if opens && words <= 10 {
		return true
	}
	return closes && words <= 10 && ellipsisPhrase.MatchString(s) || strings.EqualFold(s, "snip") || strings.EqualFold(s, "[snip]")
}
