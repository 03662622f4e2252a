package treesitter

import (
	"bufio"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// The tag cache is one file per index, <cacheDir>/tags-v2.bin, rewritten
// atomically (temporary file + rename). Tags are stored once per content
// hash; each path points at its hash, with the size and mtime that let a
// warm start trust the hash without reading the file. Layout (all integers
// unsigned varints):
//
//	magic "aidetags" version(2)
//	nstrings, then each string as len+bytes (names, kinds, signatures, paths)
//	ncontents, then each: sha256[32] lang nDefs (name kind sig line)* nRefs ref*
//	npaths, then each: path content size mtime
//
// Strings are indexes into the table; a warm start decodes it in one pass
// with one allocation for all strings. A file that fails to decode is
// ignored (the index starts cold), never trusted in part.
//
// Version 2: references come from the lexical scan (lexrefs.go), not the
// query; a version-1 file is ignored (the first start indexes cold) and
// removed when the version-2 file is written.
const (
	cacheFileName = "tags-v2.bin"
	cacheMagic    = "aidetags\x04" // \x04: one definition per C function (onePerName)
)

var errBadCache = errors.New("treesitter: corrupt tag cache")

// saveCache writes files to path atomically. An empty path saves nothing.
func saveCache(path string, files map[string]*entry) error {
	if path == "" {
		return nil
	}
	strs := map[string]uint64{}
	var table []string
	intern := func(s string) uint64 {
		if i, ok := strs[s]; ok {
			return i
		}
		i := uint64(len(table))
		strs[s] = i
		table = append(table, s)
		return i
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths) // deterministic file for a given index

	type content struct {
		hash [32]byte
		tags *fileTags
	}
	var contents []content
	contentIndex := map[[32]byte]uint64{}
	var body []byte
	for _, p := range paths {
		e := files[p]
		if _, ok := contentIndex[e.hash]; !ok {
			contentIndex[e.hash] = uint64(len(contents))
			contents = append(contents, content{e.hash, e.tags})
		}
	}
	body = binary.AppendUvarint(body, uint64(len(contents)))
	for _, c := range contents {
		body = append(body, c.hash[:]...)
		body = binary.AppendUvarint(body, intern(c.tags.Lang))
		body = binary.AppendUvarint(body, uint64(len(c.tags.Defs)))
		for _, d := range c.tags.Defs {
			body = binary.AppendUvarint(body, intern(d.Name))
			body = binary.AppendUvarint(body, intern(d.Kind))
			body = binary.AppendUvarint(body, intern(d.Sig))
			body = binary.AppendUvarint(body, uint64(d.Line))
		}
		body = binary.AppendUvarint(body, uint64(len(c.tags.Refs)))
		for _, r := range c.tags.Refs {
			body = binary.AppendUvarint(body, intern(r))
		}
	}
	body = binary.AppendUvarint(body, uint64(len(paths)))
	for _, p := range paths {
		e := files[p]
		body = binary.AppendUvarint(body, intern(p))
		body = binary.AppendUvarint(body, contentIndex[e.hash])
		body = binary.AppendUvarint(body, uint64(e.size))
		body = binary.AppendUvarint(body, uint64(e.mtime))
	}

	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tags-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	w := bufio.NewWriterSize(tmp, 1<<16)
	w.WriteString(cacheMagic)
	var num []byte
	num = binary.AppendUvarint(num[:0], uint64(len(table)))
	w.Write(num)
	for _, s := range table {
		num = binary.AppendUvarint(num[:0], uint64(len(s)))
		w.Write(num)
		w.WriteString(s)
	}
	w.Write(body)
	if err := w.Flush(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// An older version's file is never read again; don't leave it behind.
	os.Remove(filepath.Join(filepath.Dir(path), "tags-v1.bin"))
	return nil
}

// loadCache reads a cache file written by saveCache, when it is a regular
// file (not a link to /dev/zero, not a FIFO) of at most limit bytes.
func loadCache(path string, limit int64) (map[string]*entry, error) {
	if path == "" {
		return nil, os.ErrNotExist
	}
	data, err := workspace.ReadRegular(path, limit)
	if err != nil {
		return nil, err
	}
	return decodeCache(data)
}

// decodeCache parses a cache file; any inconsistency rejects all of it.
func decodeCache(data []byte) (map[string]*entry, error) {
	if len(data) < len(cacheMagic) || string(data[:len(cacheMagic)]) != cacheMagic {
		return nil, errBadCache
	}
	// One string holds the whole file so every name is a substring of it.
	all := string(data)
	d := decoder{data: data, pos: len(cacheMagic)}
	nstr := d.count(1)
	table := make([]string, nstr)
	for i := range table {
		n := d.count(1)
		if d.err != nil {
			return nil, d.err
		}
		table[i] = all[d.pos : d.pos+n]
		d.pos += n
	}
	str := func() string {
		i := d.uvarint()
		if i >= uint64(len(table)) {
			d.err = errBadCache
			return ""
		}
		return table[i]
	}
	ncontents := d.count(34)
	contents := make([]*fileTags, ncontents)
	hashes := make([][32]byte, ncontents)
	for i := range contents {
		if d.err != nil || d.pos+32 > len(data) {
			return nil, errBadCache
		}
		copy(hashes[i][:], data[d.pos:d.pos+32])
		d.pos += 32
		ft := &fileTags{Lang: str()}
		ft.Defs = make([]def, d.count(4))
		for j := range ft.Defs {
			ft.Defs[j] = def{Name: str(), Kind: str(), Sig: str(), Line: int32(d.uvarint())}
		}
		ft.Refs = make([]string, d.count(1))
		for j := range ft.Refs {
			ft.Refs[j] = str()
		}
		contents[i] = ft
	}
	npaths := d.count(4)
	files := make(map[string]*entry, npaths)
	for i := 0; i < npaths && d.err == nil; i++ {
		p := str()
		c := d.uvarint()
		size, mtime := d.uvarint(), d.uvarint()
		if c >= uint64(len(contents)) {
			return nil, errBadCache
		}
		files[p] = &entry{hash: hashes[c], size: int64(size), mtime: int64(mtime), tags: contents[c]}
	}
	if d.err != nil || d.pos != len(data) {
		return nil, errBadCache
	}
	return files, nil
}

type decoder struct {
	data []byte
	pos  int
	err  error
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.data[d.pos:])
	if n <= 0 {
		d.err = errBadCache
		return 0
	}
	d.pos += n
	return v
}

// count reads a length whose items take at least minBytes each, so a
// corrupt length cannot make us allocate more than the file could hold.
func (d *decoder) count(minBytes int) int {
	v := d.uvarint()
	if d.err == nil && v > uint64(len(d.data)-d.pos)/uint64(minBytes) {
		d.err = errBadCache
	}
	if d.err != nil {
		return 0
	}
	return int(v)
}
