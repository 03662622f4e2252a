package treesitter

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
)

// What the focus file includes or imports is what the task most likely
// touches next: e1000_main.c's own header, the module next to a
// TypeScript file. The map restarts its ranking at those files too
// (graph.task), found in the focus file's text on disk, each resolved to an
// indexed path:
//
//   - C and C++ `#include "x.h"`, relative to the including file, then to
//     the root; `#include <x/y.h>` under the root's include/ folder (the
//     Linux kernel's and many C projects' layout);
//   - JavaScript and TypeScript imports and requires of "./x" and "../x",
//     with the usual extensions and index files.
//
// Go imports name packages, whose files the references already link, and
// Python's relative imports are rare enough to leave to the references.
var (
	cInclude   = regexp.MustCompile(`(?m)^[ \t]*#[ \t]*include[ \t]*(["<])([^">\n]+)[">]`)
	jsImport   = regexp.MustCompile(`(?:\bfrom|\bimport|\brequire\()\s*['"](\.{1,2}/[^'"\n]+)['"]`)
	jsSuffixes = []string{"", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts", "/index.ts", "/index.tsx", "/index.js"}
)

// includedBy returns the indexed files rel includes, each with the weight
// of its restart: 1 for a file named by its own path ("x.h", "./x"), a
// quarter for a system-style include found under include/.
func (ix *Index) includedBy(rel string, indexed func(string) bool) map[string]float64 {
	abs := filepath.Join(ix.root, filepath.FromSlash(rel))
	info, err := os.Stat(abs)
	if err != nil || !info.Mode().IsRegular() || info.Size() > maxFileSize {
		return nil
	}
	src, err := readFile(abs, info.Size())
	if err != nil {
		return nil
	}
	out := map[string]float64{}
	dir := path.Dir(rel)
	switch Language(rel, head(src)) {
	case "c", "cpp":
		for _, m := range cInclude.FindAllSubmatch(src, -1) {
			name := string(m[2])
			if string(m[1]) == `"` {
				for _, p := range []string{path.Join(dir, name), path.Clean(name)} {
					if indexed(p) {
						out[p] = 1
						break
					}
				}
			} else if p := path.Join("include", name); indexed(p) {
				out[p] = 0.25
			}
		}
	case "javascript", "typescript", "tsx":
		for _, m := range jsImport.FindAllSubmatch(src, -1) {
			base := path.Join(dir, string(m[1]))
			for _, suf := range jsSuffixes {
				if indexed(base + suf) {
					out[base+suf] = 1
					break
				}
			}
		}
	}
	delete(out, rel)
	return out
}
