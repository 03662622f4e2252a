package treesitter

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The tag cache is one file per index, <cacheDir>/tags-v2.bin, rewritten
// atomically (temporary file + rename). Tags are stored once per content
// hash; each path points at its hash, with the size and mtime that let a
// warm start trust the hash without reading the file. Layout (integers are
// unsigned varints, but for the tables and trailer):
//
//	magic "aidetags" version
//	nstrings, then each string as len+bytes (names, kinds, signatures, paths)
//	ncontents, then each: sha256[32] lang nDefs (name kind sig line)* nRefs ref*
//	npaths, then each: path content size mtime
//	(padding to 8) u32 position of each string, u32 position of each content
//	trailer: u64 nstrings, ncontents, strings table, contents table, paths
//	section positions, then "aidetend"
//
// Strings are indexes into the table. A warm start maps the file
// (mmap_unix.go) and decodes only the paths: a file's tags are decoded
// from the mapping when something asks for them (cacheView.tags), so the
// index of a large repository costs page cache, not Go heap, and a start
// does no work proportional to the tags. A file whose trailer, tables or
// paths do not check is ignored (the index starts cold); a content that
// does not decode gives its path no tags.
//
// Version 2: references come from the lexical scan (lexrefs.go), not the
// query; a version-1 file is ignored (the first start indexes cold) and
// removed when the version-2 file is written.
const (
	cacheFileName = "tags-v2.bin"
	cacheMagic    = "aidetags\x05" // \x05: tables and trailer for lazy decoding
	cacheEnd      = "aidetend"
	cacheTrailer  = 5*8 + len(cacheEnd)
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
		// A view of a mapped cache file is copied: the map must not keep
		// the previous file's pages alive through its keys.
		s = strings.Clone(s)
		strs[s] = i
		table = append(table, s)
		return i
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths) // deterministic file for a given index

	var contents []*entry
	contentIndex := map[[32]byte]uint64{}
	for _, p := range paths {
		e := files[p]
		if _, ok := contentIndex[e.hash]; !ok {
			contentIndex[e.hash] = uint64(len(contents))
			contents = append(contents, e)
		}
	}
	var body []byte
	contentAt := make([]uint32, len(contents))
	body = binary.AppendUvarint(body, uint64(len(contents)))
	for ci, e := range contents {
		ft := e.fileTags()
		contentAt[ci] = uint32(len(body)) // relative to the body, fixed below
		body = append(body, e.hash[:]...)
		body = binary.AppendUvarint(body, intern(ft.Lang))
		body = binary.AppendUvarint(body, uint64(len(ft.Defs)))
		for _, d := range ft.Defs {
			body = binary.AppendUvarint(body, intern(d.Name))
			body = binary.AppendUvarint(body, intern(d.Kind))
			body = binary.AppendUvarint(body, intern(d.Sig))
			body = binary.AppendUvarint(body, uint64(d.Line))
		}
		body = binary.AppendUvarint(body, uint64(len(ft.Refs)))
		for _, r := range ft.Refs {
			body = binary.AppendUvarint(body, intern(r))
		}
	}
	pathsAt := len(body)
	body = binary.AppendUvarint(body, uint64(len(paths)))
	for _, p := range paths {
		e := files[p]
		body = binary.AppendUvarint(body, intern(p))
		body = binary.AppendUvarint(body, contentIndex[e.hash])
		body = binary.AppendUvarint(body, uint64(e.size))
		body = binary.AppendUvarint(body, uint64(e.mtime))
	}

	err := writeAtomic(path, func(fw *fileWriter) error {
		fw.put([]byte(cacheMagic))
		fw.put(binary.AppendUvarint(nil, uint64(len(table))))
		strAt := make([]uint32, len(table))
		for i, s := range table {
			strAt[i] = uint32(fw.at)
			fw.put(binary.AppendUvarint(nil, uint64(len(s))))
			fw.put([]byte(s))
		}
		bodyAt := fw.at
		fw.put(body)
		fw.align(8)
		strTable := fw.at
		fw.put(bytesOf(strAt))
		for i := range contentAt {
			contentAt[i] += uint32(bodyAt)
		}
		contTable := fw.at
		fw.put(bytesOf(contentAt))
		fw.align(8)
		for _, n := range []int{len(table), len(contents), strTable, contTable, bodyAt + pathsAt} {
			fw.put(binary.LittleEndian.AppendUint64(nil, uint64(n)))
		}
		fw.put([]byte(cacheEnd))
		if fw.at > 1<<32-1 {
			return errors.New("treesitter: tag cache over 4 GiB")
		}
		return nil
	})
	if err != nil {
		return err
	}
	// An older version's file is never read again; don't leave it behind.
	os.Remove(filepath.Join(filepath.Dir(path), "tags-v1.bin"))
	return nil
}

// loadCache maps a cache file written by saveCache, when it is a regular
// file (not a link to /dev/zero, not a FIFO) of at most limit bytes, and
// returns its paths, whose tags decode from the mapping on demand.
func loadCache(path string, limit int64) (map[string]*entry, error) {
	if path == "" {
		return nil, os.ErrNotExist
	}
	m, err := mapFile(path, limit)
	if err != nil {
		return nil, err
	}
	files, err := decodeCache(m.data)
	if err != nil {
		m.close()
		return nil, err
	}
	// Never unmapped: the tags decoded from it are views of its pages, and
	// they may be anywhere. The file is replaced by a rename, never
	// rewritten in place, so the pages stay what they were.
	return files, nil
}

// cacheView is a tag cache file in memory (mapped), with its tables.
type cacheView struct {
	data     []byte
	strAt    []uint32 // position of string i
	contents []uint32 // position of content i (its hash)
}

// decodeCache checks the trailer, tables and paths of a cache file and
// returns its paths; their tags decode from data when asked.
func decodeCache(data []byte) (map[string]*entry, error) {
	n := len(data)
	if n < len(cacheMagic)+cacheTrailer || string(data[:len(cacheMagic)]) != cacheMagic ||
		string(data[n-len(cacheEnd):]) != cacheEnd {
		return nil, errBadCache
	}
	tr := data[n-cacheTrailer:]
	var v [5]uint64
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(tr[8*i:])
		if v[i] > uint64(n) {
			return nil, errBadCache
		}
	}
	nstr, ncont, strTable, contTable, pathsAt := int(v[0]), int(v[1]), int(v[2]), int(v[3]), int(v[4])
	if strTable%8 != 0 || strTable+4*nstr != contTable || contTable+4*ncont > n-cacheTrailer || pathsAt >= strTable {
		return nil, errBadCache
	}
	cv := &cacheView{data: data}
	if nstr > 0 {
		cv.strAt = viewOf[uint32](aligned4(data[strTable:contTable]), nstr)
	}
	if ncont > 0 {
		cv.contents = viewOf[uint32](aligned4(data[contTable:contTable+4*ncont]), ncont)
	}
	if (nstr > 0 && cv.strAt == nil) || (ncont > 0 && cv.contents == nil) {
		return nil, errBadCache
	}
	for _, p := range cv.strAt {
		if int(p) >= pathsAt {
			return nil, errBadCache
		}
	}
	for _, p := range cv.contents {
		if int(p)+32 > pathsAt {
			return nil, errBadCache
		}
	}
	d := decoder{data: data[:strTable], pos: pathsAt}
	npaths := d.count(4)
	files := make(map[string]*entry, npaths)
	for i := 0; i < npaths && d.err == nil; i++ {
		p, ok := cv.str(d.uvarint())
		c := d.uvarint()
		size, mtime := d.uvarint(), d.uvarint()
		if !ok || c >= uint64(ncont) {
			return nil, errBadCache
		}
		e := &entry{size: int64(size), mtime: int64(mtime), view: cv, content: int32(c)}
		copy(e.hash[:], data[cv.contents[c]:])
		files[strings.Clone(p)] = e
	}
	if d.err != nil {
		return nil, errBadCache
	}
	return files, nil
}

// aligned4 is b when it starts at a multiple of 4 bytes (a mapping's
// u32 tables do), else nil.
func aligned4(b []byte) []byte {
	if len(b) == 0 || uintptr(unsafePointer(b))%4 != 0 {
		return nil
	}
	return b
}

// str is string id, a view of the data; false when out of bounds.
func (cv *cacheView) str(id uint64) (string, bool) {
	if id >= uint64(len(cv.strAt)) {
		return "", false
	}
	d := decoder{data: cv.data, pos: int(cv.strAt[id])}
	n := d.uvarint()
	if d.err != nil || n > uint64(len(cv.data)-d.pos) {
		return "", false
	}
	return unsafeString(cv.data[d.pos : d.pos+int(n)]), true
}

// tags decodes content c; one that does not decode gives no tags.
func (cv *cacheView) tags(c int32) *fileTags { return cv.decode(c, true) }

// decode decodes content c, its references only when refs is set (a map
// prints definitions; references are most of a file's tags).
func (cv *cacheView) decode(c int32, refs bool) *fileTags {
	d := decoder{data: cv.data, pos: int(cv.contents[c]) + 32}
	bad := false
	str := func() string {
		s, ok := cv.str(d.uvarint())
		bad = bad || !ok
		return s
	}
	ft := &fileTags{Lang: str()}
	ft.Defs = make([]def, d.count(4))
	for j := range ft.Defs {
		ft.Defs[j] = def{Name: str(), Kind: str(), Sig: str(), Line: int32(d.uvarint())}
	}
	if refs {
		ft.Refs = make([]string, d.count(1))
		for j := range ft.Refs {
			ft.Refs[j] = str()
		}
	}
	if bad || d.err != nil {
		return &fileTags{Lang: ft.Lang}
	}
	return ft
}

// lang is content c's language, without decoding its tags.
func (cv *cacheView) lang(c int32) string {
	d := decoder{data: cv.data, pos: int(cv.contents[c]) + 32}
	s, _ := cv.str(d.uvarint())
	return s
}

// defCount is how many definitions content c has.
func (cv *cacheView) defCount(c int32) int {
	d := decoder{data: cv.data, pos: int(cv.contents[c]) + 32}
	d.uvarint()
	return d.count(4)
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
	if d.pos >= len(d.data) {
		d.err = errBadCache
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
