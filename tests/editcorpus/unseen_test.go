package editcorpus

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/aide-lsp/aide-lsp/tests/editcorpus/editcase"
)

// An unseen set (tests/testdata/editapply-unseen-N) is a set of editor
// answers written from public reports by someone who had not read the
// corpus, before the change it measures (docs/performance.md "Unseen
// sets"). It runs like the corpus, but its first figure is the point: a
// wrong apply the code had when the set was written is listed in the
// set's known-wrong.txt (one case name a line, a reason after `#`) so the
// set can be committed before the fix. Any other wrong apply fails the
// test; a listed case that is no longer wrong is reported so the list
// shrinks with the fix.
const unseenGlob = "../testdata/editapply-unseen-*"

func TestUnseenSets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary for every case")
	}
	dirs, err := filepath.Glob(unseenGlob)
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no unseen sets match %s (%v)", unseenGlob, err)
	}
	bin := binary(t)
	for _, dir := range dirs {
		name := strings.TrimPrefix(filepath.Base(dir), "editapply-")
		t.Run(name, func(t *testing.T) {
			parsed, err := editcase.Load(dir)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			known := knownWrong(t, filepath.Join(dir, "known-wrong.txt"))
			var mu sync.Mutex
			results := map[string]outcome{}
			labels := map[string]string{}
			t.Run("cases", func(t *testing.T) {
				for _, k := range parsed {
					c := convert(k)
					t.Run(c.name, func(t *testing.T) {
						t.Parallel()
						o, why := runCase(t, bin, c)
						mu.Lock()
						results[c.name], labels[c.name] = o, c.label
						mu.Unlock()
						switch {
						case o == wrong && known[c.name]:
							t.Logf("known wrong apply (%s): %s", c.label, why)
						case o == wrong:
							t.Errorf("WRONG APPLY (%s, %s): %s", c.label, c.file, why)
						case o == missed:
							t.Logf("not right (%s): %s", c.label, why)
						}
					})
				}
			})
			var okRec, nRec, okRef, nRef, nWrong int
			var wrongs, missedOnes, fixed []string
			for n, o := range results {
				if labels[n] == "refuse" {
					nRef++
					if o == refused {
						okRef++
					}
				} else {
					nRec++
					if o == right {
						okRec++
					}
				}
				switch o {
				case wrong:
					nWrong++
					wrongs = append(wrongs, n)
				case missed:
					missedOnes = append(missedOnes, n)
				}
				if known[n] && o != wrong {
					fixed = append(fixed, n)
				}
			}
			sort.Strings(wrongs)
			sort.Strings(missedOnes)
			sort.Strings(fixed)
			fmt.Printf("%s: %d cases; right %d, wrong applies %d, refused or unchanged %d; recoverable right %d/%d (%.1f%%), dangerous refused %d/%d\n",
				name, len(results), okRec+okRef, nWrong, len(results)-okRec-okRef-nWrong, okRec, nRec, pct(okRec, nRec), okRef, nRef)
			if len(wrongs) > 0 {
				t.Logf("wrong applies: %s", strings.Join(wrongs, ", "))
			}
			if len(missedOnes) > 0 {
				t.Logf("recoverable but not right: %s", strings.Join(missedOnes, ", "))
			}
			if len(fixed) > 0 {
				t.Logf("listed in known-wrong.txt but no longer wrong (remove them): %s", strings.Join(fixed, ", "))
			}
		})
	}
}

// knownWrong reads a set's list of wrong applies it was committed with.
func knownWrong(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]bool{}
	}
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		l, _, _ = strings.Cut(l, "#")
		if l = strings.TrimSpace(l); l != "" {
			out[l] = true
		}
	}
	return out
}
