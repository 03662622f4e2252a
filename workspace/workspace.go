// Package workspace knows the workspace: its roots, the .gitignore and deny
// rules, path safety, the current content of files (open buffers first), the
// fsnotify watcher, snapshots and drift.
//
// Paths: a "rel" path is slash separated and relative to the first root.
// A file in another root that is not inside the first one is named by its
// absolute (slash) path, which Resolve accepts back, so every rel this
// package hands out round-trips through Resolve.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// BuiltinDeny is the deny list of contract §8: never read into a prompt,
// never edited.
var BuiltinDeny = []string{
	".git/**", ".aide/**", "**/.env", "**/.env.*", "**/*.pem", "**/*.key",
	"**/id_rsa*", "**/id_ed25519*", "**/.ssh/**", "**/.netrc", "**/.npmrc",
	"**/.pypirc", "**/credentials*", "**/secrets.*",
	// contract §8 (safety): more places credentials live.
	"**/secrets/**", "**/*.tfvars", "**/terraform.tfstate", "**/terraform.tfstate.*",
	"**/.git-credentials", "**/id_ecdsa*", "**/id_dsa*", "**/.docker/config.json",
	"**/.kube/config", "**/*.p12", "**/*.pfx", "**/*.jks", "**/*.keystore",
	"**/.pgpass", "**/.vault-token", "**/.yarnrc.yml", "**/.envrc",
	"**/application_default_credentials.json",
}

// foldCase: the file systems macOS and Windows use by default ignore case,
// so ".ENV" is ".env" there and must be denied as well.
var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// windowsNames: Windows opens "secret.pem." and "secret.pem " as
// "secret.pem", and "secret.pem:stream" is a stream of it.
var windowsNames = runtime.GOOS == "windows"

// denyName is one path element as the file system resolves it, for
// matching against deny globs.
func denyName(part string) string {
	if windowsNames {
		if i := strings.IndexByte(part, ':'); i > 0 {
			part = part[:i]
		}
		part = strings.TrimRight(part, ". ")
	}
	if foldCase {
		part = foldPath(part) // Unicode folding: "ſecrets" is "secrets" there
	}
	return part
}

// Buffers gives the editor's open buffers (implemented by lsp's document store).
type Buffers interface {
	// Buffer returns the open buffer of an absolute path.
	Buffer(abs string) (text string, version int32, ok bool)
}

// Workspace is one or more roots with their rules. Relative paths are
// relative to the first root. It is safe for concurrent use.
type Workspace struct {
	roots []string                   // as given, cleaned
	real  []string                   // roots after EvalSymlinks
	deny  atomic.Pointer[[]denyGlob] // BuiltinDeny + configured globs; SetDeny swaps it

	mu      sync.Mutex // guards buffers
	buffers Buffers

	ignoreMu    sync.Mutex // guards ignoreCache
	ignoreCache map[string]cachedIgnore

	watchMu  sync.Mutex // guards watchers, expected, recent
	watchers map[*Watcher]bool
	expected map[string]expectation // by absolute path
	recent   []recentEvent          // disk events, oldest first, for rename detection

	blobs blobStore // snapshot contents by hash, for drift summaries

	journal string // the apply journal in the user's state folder (SetStateDir); "" none
}

// Open makes a Workspace over roots (absolute folders) with extra deny globs.
func Open(roots []string, deny []string) (*Workspace, error) {
	if len(roots) == 0 {
		return nil, errors.New("workspace: no root given: open a folder or pass --root")
	}
	w := &Workspace{
		ignoreCache: map[string]cachedIgnore{},
		watchers:    map[*Watcher]bool{},
		expected:    map[string]expectation{},
	}
	for _, r := range roots {
		if !filepath.IsAbs(r) {
			return nil, fmt.Errorf("workspace: root %q is not an absolute path", r)
		}
		r = filepath.Clean(r)
		st, err := os.Stat(r)
		if err != nil {
			return nil, fmt.Errorf("workspace: root %s: %w", r, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("workspace: root %s is not a folder", r)
		}
		real, err := filepath.EvalSymlinks(r)
		if err != nil {
			return nil, fmt.Errorf("workspace: root %s: %w", r, err)
		}
		w.roots = append(w.roots, r)
		w.real = append(w.real, real)
	}
	if err := w.SetDeny(deny); err != nil {
		return nil, err
	}
	return w, nil
}

// ValidGlob reports whether g is a deny glob the matcher understands.
func ValidGlob(g string) bool { return g != "" && doublestar.ValidatePattern(g) }

// SetDeny replaces the configured deny globs (the built-in list always
// stays), for a configuration reload: the next read, edit and walk use
// them. A bad glob refuses the whole change (config drops bad globs with a
// warning before they get here).
func (w *Workspace) SetDeny(deny []string) error {
	for _, g := range deny {
		if !ValidGlob(g) {
			return fmt.Errorf("workspace: deny glob %q is not a valid glob: fix it in the deny setting", g)
		}
	}
	var globs []denyGlob
	for _, g := range append(append([]string{}, BuiltinDeny...), deny...) {
		globs = append(globs, compileDeny(g))
	}
	w.deny.Store(&globs)
	return nil
}

// Roots returns the absolute roots.
func (w *Workspace) Roots() []string { return w.roots }

// SetBuffers makes Read see open buffers.
func (w *Workspace) SetBuffers(b Buffers) {
	w.mu.Lock()
	w.buffers = b
	w.mu.Unlock()
}

func (w *Workspace) buffer(abs string) (string, int32, bool) {
	w.mu.Lock()
	b := w.buffers
	w.mu.Unlock()
	if b == nil {
		return "", 0, false
	}
	return b.Buffer(abs)
}

// maxSymlinkHops bounds symlink chains followed by hand for dangling links
// (the kernel's own limit is 40).
const maxSymlinkHops = 40

// Resolve vets a path written by a model or a client (relative or absolute):
// it must stay inside a root after resolving symlinks and must not be denied.
// It returns the absolute path and the clean root-relative path (slash
// separated), or an error that says why it was refused.
func (w *Workspace) Resolve(p string) (abs, rel string, err error) {
	abs, rel, _, err = w.resolve(p)
	return abs, rel, err
}

// resolve is Resolve that also returns the real path (symlinks resolved),
// which is what Read opens.
func (w *Workspace) resolve(p string) (abs, rel, real string, err error) {
	shown := p
	if len(shown) > 200 {
		shown = shown[:200] + "…"
	}
	if strings.TrimSpace(p) == "" {
		return "", "", "", errors.New("refused: empty path: give a path relative to the workspace root")
	}
	if strings.ContainsRune(p, 0) {
		return "", "", "", fmt.Errorf("refused: %q contains a NUL byte", shown)
	}
	if r, bad := hiddenRune(p); bad {
		return "", "", "", fmt.Errorf("refused: %q contains %U (a control, bidi or zero-width character that hides what the path is): name the file in plain characters", shown, r)
	}
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		abs = filepath.Clean(native)
	} else {
		abs = filepath.Join(w.roots[0], native)
	}
	ri := w.rootOf(abs, w.roots)
	if ri < 0 {
		// The root's absolute path is not named: these errors go back to
		// the model, which has no business knowing where the user's
		// files live (contract §8).
		return "", "", "", fmt.Errorf("refused: %s is outside the workspace root: use a path relative to the root, inside it", shown)
	}
	real, err = w.realPath(abs)
	if err != nil {
		return "", "", "", fmt.Errorf("refused: %s: %v", shown, err)
	}
	rri := w.rootOf(real, w.real)
	if rri < 0 {
		return "", "", "", fmt.Errorf("refused: %s is outside the workspace root: a symbolic link on the way leads out of it", shown)
	}
	rel = w.relName(abs)
	if w.deniedIn(ri, abs) || w.deniedIn(rri, real) {
		return "", "", "", fmt.Errorf("refused: %s is on the deny list (never read into a prompt nor edited)", w.relName(abs))
	}
	return abs, rel, real, nil
}

// hiddenRune finds a character that makes a path look like another one on
// screen: control characters (newlines included), bidi overrides and
// isolates, zero-width characters (contract §8).
func hiddenRune(p string) (rune, bool) {
	for _, r := range p {
		switch {
		case unicode.IsControl(r),
			r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C,
			r >= 0x200B && r <= 0x200D, r == 0x2060, r == 0xFEFF:
			return r, true
		}
	}
	return 0, false
}

// rootOf returns the index of the first of roots that contains abs, or -1.
func (w *Workspace) rootOf(abs string, roots []string) int {
	for i, r := range roots {
		if within(r, abs) {
			return i
		}
	}
	return -1
}

// within reports whether abs is root or lies under it (both clean).
func within(root, abs string) bool {
	if abs == root {
		return true
	}
	if root == string(filepath.Separator) {
		return strings.HasPrefix(abs, root)
	}
	return strings.HasPrefix(abs, root+string(filepath.Separator))
}

// relName names an absolute path the way this package hands paths out.
func (w *Workspace) relName(abs string) string {
	if within(w.roots[0], abs) {
		r, _ := filepath.Rel(w.roots[0], abs)
		if r == "." {
			return "."
		}
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(abs)
}

// absName is the inverse of relName for paths already vetted.
func (w *Workspace) absName(rel string) string {
	if path.IsAbs(rel) {
		return filepath.FromSlash(rel)
	}
	return filepath.Join(w.roots[0], filepath.FromSlash(rel))
}

// realPath resolves the symlinks of abs: EvalSymlinks of the deepest
// existing ancestor, with the rest appended; a dangling symlink on the way
// is followed by hand so that creating through it cannot escape.
func (w *Workspace) realPath(abs string) (string, error) {
	for hops := 0; hops < maxSymlinkHops; hops++ {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			return r, nil
		}
		// Find the deepest ancestor that exists (Lstat: the last element may
		// be a dangling symlink).
		existing, rest := abs, ""
		for {
			if _, err := os.Lstat(existing); err == nil {
				break
			}
			parent := filepath.Dir(existing)
			if parent == existing {
				return "", errors.New("no part of the path exists")
			}
			rest = filepath.Join(filepath.Base(existing), rest)
			existing = parent
		}
		r, err := filepath.EvalSymlinks(existing)
		if err == nil {
			return filepath.Join(r, rest), nil
		}
		target, lerr := os.Readlink(existing)
		if lerr != nil {
			return "", fmt.Errorf("cannot resolve the path: %v", err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(existing), target)
		}
		abs = filepath.Join(target, rest)
	}
	return "", errors.New("too many levels of symbolic links")
}

// Denied reports whether a root-relative path matches the deny list.
func (w *Workspace) Denied(rel string) bool {
	abs := w.absName(rel)
	ri := w.rootOf(filepath.Clean(abs), w.roots)
	if ri < 0 {
		return true // outside every root: never readable
	}
	return w.deniedIn(ri, filepath.Clean(abs))
}

// deniedIn reports whether abs (inside roots or real roots [ri]) is denied:
// it, or one of its parent folders, matches a deny glob, or it goes
// through a .git folder at any depth (nested repositories, submodules).
func (w *Workspace) deniedIn(ri int, abs string) bool {
	return w.denied(ri, abs, false)
}

// denied is deniedIn; with selfOnly the parent folders are known not to be
// denied (a walk vetted them) and only the path itself is matched.
func (w *Workspace) denied(ri int, abs string, selfOnly bool) bool {
	base := w.roots[ri]
	if !within(base, abs) {
		base = w.real[ri]
	}
	r, err := filepath.Rel(base, abs)
	if err != nil || r == "." {
		return false
	}
	r = filepath.ToSlash(r)
	parts := strings.Split(r, "/")
	if foldCase || windowsNames {
		for i, p := range parts {
			parts[i] = denyName(p)
		}
	}
	first := 0
	if selfOnly {
		first = len(parts) - 1
	}
	for i := first; i < len(parts); i++ {
		if parts[i] == ".git" {
			return true
		}
		prefix := strings.Join(parts[:i+1], "/")
		for _, g := range *w.deny.Load() {
			if g.match(prefix, parts[i]) {
				return true
			}
		}
	}
	return false
}

// denyGlob is one deny glob; "**/name-glob" is matched on the base name
// alone (most of the built-in list: a walk matches every entry against
// every glob, so this halves the cost of a walk). need are literal parts
// of the glob any path it matches contains: a path without one of them is
// not matched further (almost every entry of a walk).
type denyGlob struct {
	glob string
	base string // set when the glob is "**/" + a glob without "/" nor "**"
	need []string
}

func compileDeny(g string) denyGlob {
	if foldCase {
		g = foldPath(g)
	}
	if rest, ok := strings.CutPrefix(g, "**/"); ok && !strings.Contains(rest, "/") && !strings.Contains(rest, "**") {
		if _, err := path.Match(rest, ""); err == nil {
			return denyGlob{glob: g, base: rest, need: literalParts(rest)}
		}
	}
	return denyGlob{glob: g, need: literalParts(g)}
}

// literalParts returns the runs of g between its wildcards ("*", "?" and
// "/", which "**/" may stand for with nothing); none when g has a bracket,
// a brace or an escape, whose text need not appear as written, or a byte
// that is not UTF-8 (the matcher reads both sides as runes, and any such
// byte of a path reads as U+FFFD).
func literalParts(g string) []string {
	if strings.ContainsAny(g, "[{\\") || !utf8.ValidString(g) || strings.ContainsRune(g, utf8.RuneError) {
		return nil
	}
	return strings.FieldsFunc(g, func(r rune) bool { return r == '*' || r == '?' || r == '/' })
}

func (d denyGlob) match(rel, base string) bool {
	s := rel
	if d.base != "" {
		s = base
	}
	for _, n := range d.need {
		if !strings.Contains(s, n) {
			return false
		}
	}
	if d.base != "" {
		ok, _ := path.Match(d.base, base)
		return ok
	}
	ok, _ := doublestar.Match(d.glob, rel)
	return ok
}

// Ignored reports whether a root-relative path is ignored by .gitignore rules.
func (w *Workspace) Ignored(rel string) bool {
	abs := filepath.Clean(w.absName(rel))
	isDir := false
	if st, err := os.Lstat(abs); err == nil {
		isDir = st.IsDir()
	}
	return w.ignored(abs, isDir)
}

// ignored applies the .gitignore files of the root holding abs: a path is
// ignored when one of its parent folders is (git cannot re-include a file
// whose folder is excluded) or when its own last matching rule says so.
func (w *Workspace) ignored(abs string, isDir bool) bool {
	ri := w.rootOf(abs, w.roots)
	if ri < 0 {
		return false
	}
	r, err := filepath.Rel(w.roots[ri], abs)
	if err != nil || r == "." {
		return false
	}
	parts := strings.Split(filepath.ToSlash(r), "/")
	for i := 1; i < len(parts); i++ {
		if w.ignoredSelf(ri, parts[:i], true) {
			return true
		}
	}
	return w.ignoredSelf(ri, parts, isDir)
}

// ignoredSelf decides a path whose parent folders are known not to be
// ignored: the deepest .gitignore with a matching rule decides, then
// .git/info/exclude.
func (w *Workspace) ignoredSelf(ri int, parts []string, isDir bool) bool {
	dir := w.roots[ri]
	dirs := make([]string, len(parts))
	for d := range parts {
		dirs[d] = dir
		dir = filepath.Join(dir, parts[d])
	}
	for d := len(parts) - 1; d >= 0; d-- {
		if ig, ok := w.gitignore(dirs[d], ".gitignore").decide(parts[d:], isDir); ok {
			return ig
		}
	}
	ig, _ := w.gitignore(filepath.Join(w.roots[ri], ".git", "info"), "exclude").decide(parts, isDir)
	return ig
}

// cachedIgnore is a parsed ignore file with what tells us it changed.
type cachedIgnore struct {
	file    *ignoreFile // nil when there is none
	modTime time.Time
	size    int64
}

// gitignore returns the parsed ignore file dir/name, re-reading it when its
// size or modification time changed (one stat per lookup keeps Ignored
// right without a watcher; a watcher additionally drops entries on events).
func (w *Workspace) gitignore(dir, name string) *ignoreFile {
	p := filepath.Join(dir, name)
	st, err := os.Stat(p)
	w.ignoreMu.Lock()
	defer w.ignoreMu.Unlock()
	if err != nil || !st.Mode().IsRegular() {
		delete(w.ignoreCache, p)
		return nil
	}
	if c, ok := w.ignoreCache[p]; ok && c.modTime.Equal(st.ModTime()) && c.size == st.Size() && !racy(st.ModTime(), time.Now()) {
		return c.file
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	f := newIgnoreFile(parseIgnore(string(data)))
	w.ignoreCache[p] = cachedIgnore{file: f, modTime: st.ModTime(), size: st.Size()}
	return f
}

// Read returns the current content of a path: the open buffer when there is
// one, else the file on disk. exists is false for a missing file (err nil).
// It refuses paths Resolve refuses. (It implements editapply.Files.)
func (w *Workspace) Read(p string) (content string, exists bool, err error) {
	content, _, exists, err = w.read(p)
	return content, exists, err
}

// read is Read that also returns the buffer version (nil from disk).
func (w *Workspace) read(p string) (content string, version *int32, exists bool, err error) {
	abs, _, real, err := w.resolve(p)
	if err != nil {
		return "", nil, false, err
	}
	if text, v, ok := w.buffer(abs); ok {
		return text, &v, true, nil
	}
	if real != abs {
		if text, v, ok := w.buffer(real); ok {
			return text, &v, true, nil
		}
	}
	data, err := w.readDisk(real)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, err
	}
	return string(data), nil, true, nil
}

// readDisk reads a resolved path through os.Root, so a symlink swapped in
// after Resolve cannot lead the read out of the root. Only regular files
// are read (a FIFO would block forever).
func (w *Workspace) readDisk(real string) ([]byte, error) {
	ri := w.rootOf(real, w.real)
	if ri < 0 {
		return nil, fmt.Errorf("refused: %s is outside the workspace root", real)
	}
	root, err := os.OpenRoot(w.real[ri])
	if err != nil {
		return nil, err
	}
	defer root.Close()
	r, _ := filepath.Rel(w.real[ri], real)
	st, err := root.Stat(r)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not a file", w.relName(real))
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("refused: %s is not a regular file", w.relName(real))
	}
	// Stat before read: a plan naming an 8 GB file must not take the
	// process down.
	if st.Size() > MaxReadBytes {
		return nil, fmt.Errorf("refused: %s is %d MiB, more than the %d MiB aide-lsp reads into a prompt or edits", w.relName(real), st.Size()>>20, MaxReadBytes>>20)
	}
	f, err := root.OpenFile(r, os.O_RDONLY|oNonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxReadBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > MaxReadBytes {
		return nil, fmt.Errorf("refused: %s grew past %d MiB while read", w.relName(real), MaxReadBytes>>20)
	}
	return data, nil
}

// Files lists the root-relative paths of all files that are neither ignored
// nor denied, sorted.
func (w *Workspace) Files(ctx context.Context) ([]string, error) {
	var out []string
	var seen map[string]bool // another root may hold the same files
	if len(w.roots) > 1 {
		seen = map[string]bool{}
	}
	for ri := range w.roots {
		err := w.walk(ctx, ri, w.roots[ri], func(abs string, d fs.DirEntry) error {
			if d.IsDir() {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 {
				if _, _, err := w.Resolve(abs); err != nil {
					return nil // leads outside or to a denied file
				}
			}
			rel, ok := relUnder(w.roots[0], abs)
			if !ok {
				rel = w.relName(abs)
			}
			if seen != nil {
				if seen[rel] {
					return nil
				}
				seen[rel] = true
			}
			out = append(out, rel)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(out)
	return out, nil
}

// walk visits every entry under dir (inside root ri) that is neither
// ignored nor denied, never descending into ignored or denied folders nor
// following symlinked folders. Unreadable folders are skipped.
//
// Each entry is decided once, its parents having been vetted by the walk
// itself: the .gitignore of every folder on the way is read once, when
// the walk enters it, and kept by depth while the walk is below it.
func (w *Workspace) walk(ctx context.Context, ri int, dir string, visit func(abs string, d fs.DirEntry) error) error {
	root := w.roots[ri]
	// igs[d] is the .gitignore of the folder at depth d on the way to the
	// entry (the root's at 0); a walk below the root reads the ones above
	// it first.
	var igs []*ignoreFile
	if r, err := filepath.Rel(root, dir); err == nil && filepath.IsLocal(r) {
		parts := strings.Split(filepath.ToSlash(r), "/")
		at := root
		for _, p := range parts {
			igs = append(igs, w.gitignore(at, ".gitignore"))
			at = filepath.Join(at, p)
		}
	}
	exclude := w.gitignore(filepath.Join(root, ".git", "info"), "exclude")
	var parts []string
	// A root opened through a symbolic link (macOS's /tmp, a linked
	// project folder) is walked at its real path, its entries named under
	// the root as given; WalkDir would otherwise see the link itself, one
	// non-directory entry, and list nothing. Folders below the root are
	// never followed (a link there may lead anywhere).
	walkDir := dir
	if dir == root && w.real[ri] != dir {
		walkDir = w.real[ri]
	}
	return filepath.WalkDir(walkDir, func(abs string, d fs.DirEntry, err error) error {
		if walkDir != dir {
			abs = filepath.Join(dir, strings.TrimPrefix(abs, walkDir))
		}
		if err != nil {
			if abs == dir && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		isDir := d.IsDir()
		if abs != root {
			rel, ok := relUnder(root, abs)
			parts = appendParts(parts[:0], rel)
			var skip bool
			if !ok || len(parts) > len(igs) { // not below the root: no .gitignore applies
				skip = d.Name() == ".git" || w.denied(ri, abs, abs != dir)
			} else {
				skip = d.Name() == ".git" || w.deniedEntry(ri, abs, rel, parts, abs != dir) || ignoredBy(igs[:len(parts)], exclude, parts, isDir)
			}
			if skip {
				if isDir {
					return fs.SkipDir
				}
				return nil
			}
		} else {
			parts = parts[:0]
		}
		if isDir {
			// The folder's own rules, for the entries below it.
			igs = append(igs[:len(parts)], w.gitignore(abs, ".gitignore"))
		}
		return visit(abs, d)
	})
}

// relUnder returns abs relative to root, slash separated, when abs lies
// below root (both clean).
func relUnder(root, abs string) (string, bool) {
	if !within(root, abs) || abs == root {
		return "", false
	}
	rel := abs[len(root):]
	if root != string(filepath.Separator) {
		rel = rel[1:]
	}
	return filepath.ToSlash(rel), true
}

// appendParts appends the slash-separated elements of rel to parts.
func appendParts(parts []string, rel string) []string {
	for {
		i := strings.IndexByte(rel, '/')
		if i < 0 {
			return append(parts, rel)
		}
		parts = append(parts, rel[:i])
		rel = rel[i+1:]
	}
}

// deniedEntry is denied for an entry a walk met: rel and parts are abs
// relative to the root; with selfOnly its parent folders were vetted.
func (w *Workspace) deniedEntry(ri int, abs, rel string, parts []string, selfOnly bool) bool {
	if !selfOnly || foldCase || windowsNames {
		return w.denied(ri, abs, selfOnly)
	}
	name := parts[len(parts)-1]
	if name == ".git" {
		return true
	}
	for _, g := range *w.deny.Load() {
		if g.match(rel, name) {
			return true
		}
	}
	return false
}

// ignoredBy decides an entry whose parent folders are known not to be
// ignored, as ignoredSelf does, from the .gitignore files igs of the
// folders on its way (igs[d] is the one at depth d) and the repository's
// exclude file.
func ignoredBy(igs []*ignoreFile, exclude *ignoreFile, parts []string, isDir bool) bool {
	for d := len(parts) - 1; d >= 0; d-- {
		if ig, ok := igs[d].decide(parts[d:], isDir); ok {
			return ig
		}
	}
	ig, _ := exclude.decide(parts, isDir)
	return ig
}

// Listed reports whether Files lists rel: a file (or a link to one inside
// the workspace) that is neither denied nor ignored. A caller that holds a
// path from an earlier listing (the last session's index) checks it here.
func (w *Workspace) Listed(rel string) bool {
	abs, _, err := w.Resolve(rel)
	if err != nil {
		return false
	}
	st, err := os.Lstat(abs)
	if err != nil || st.IsDir() {
		return false
	}
	return !w.ignored(abs, false)
}
