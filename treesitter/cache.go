package treesitter

import (
	"encoding/binary"
	"errors"
	"os"
)

// The tag cache is one file per index, <cacheDir>/tags-v3.bin, replaced
// atomically (a temporary file renamed over it). Tags are stored per file
// content; each path points at its content, with the content hash, size and
// mtime that let a warm start trust it without reading the file.
//
// The file is a sequence of units, each a self-contained block with its
// own string table, written while a build runs (cachewriter.go): a build
// appends a unit every few MB of parsed tags and lets go of them, so its
// heap holds at most one unit's worth (design §repository map). Layout
// (integers are unsigned varints, but for the tables and trailers):
//
//	magic "aidetags" version
//	units, each starting at a multiple of 8 bytes (cachewriter.go pads
//	  them to the page size, to map them while the file grows):
//	    magic "aideunit"
//	    nstrings, then each string as len+bytes (names, kinds, signatures)
//	    ncontents, then each: lang nDefs (name kind sig line)* nRefs ref*
//	    (padding to 8) u32 position of each string, u32 position of each
//	    content, (padding to 8)
//	    trailer: u64 nstrings, ncontents, strings table, contents table
//	    positions (from the unit's start), then "aideuend"
//	npaths, then each: path as len+bytes, unit, content, sha256[32], size,
//	  mtime
//	(padding to 8) u64 start and end of each unit
//	trailer: u64 nunits, units table position, paths position, "aidetend"
//
// Strings are indexes into their unit's table. A warm start maps the file
// (mmap_unix.go) and decodes only the paths and the units' trailers: a
// file's tags are decoded from the mapping when something asks for them
// (cacheView.tags), so the index of a large repository costs page cache,
// not Go heap, and a start does no work proportional to the tags. A file
// whose trailer, tables or paths do not check is ignored (the index starts
// cold); a content that does not decode gives its path no tags.
//
// Version 3: units (version 2 had one string table for the whole file,
// which a build had to hold whole in memory to write); a file of an older
// version is ignored (the first start indexes cold) and removed when the
// version-3 file is written.
const (
	cacheFileName = "tags-v3.bin"
	cacheMagic    = "aidetags\x06"
	cacheEnd      = "aidetend"
	cacheTrailer  = 3*8 + len(cacheEnd)
	unitMagic     = "aideunit"
	unitEnd       = "aideuend"
	unitTrailer   = 4*8 + len(unitEnd)
)

// olderCacheFiles are the names of the tag cache's earlier versions.
var olderCacheFiles = []string{"tags-v1.bin", "tags-v2.bin"}

var errBadCache = errors.New("treesitter: corrupt tag cache")

// encodeUnit encodes the tags of one unit; content i is tags[i].
func encodeUnit(tags []*fileTags) []byte {
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
	var body []byte
	contentAt := make([]uint32, len(tags))
	for ci, ft := range tags {
		contentAt[ci] = uint32(len(body)) // relative to the body, fixed below
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
	size := len(unitMagic) + binary.MaxVarintLen64
	for _, s := range table {
		size += binary.MaxVarintLen64 + len(s)
	}
	size += binary.MaxVarintLen64 + len(body) + 16 + 4*(len(table)+len(contentAt)) + unitTrailer
	u := make([]byte, 0, size)
	u = append(u, unitMagic...)
	u = binary.AppendUvarint(u, uint64(len(table)))
	strAt := make([]uint32, len(table))
	for i, s := range table {
		strAt[i] = uint32(len(u))
		u = binary.AppendUvarint(u, uint64(len(s)))
		u = append(u, s...)
	}
	u = binary.AppendUvarint(u, uint64(len(tags)))
	bodyAt := len(u)
	u = append(u, body...)
	u = pad8(u)
	strTable := len(u)
	u = append(u, bytesOf(strAt)...)
	for i := range contentAt {
		contentAt[i] += uint32(bodyAt)
	}
	contTable := len(u)
	u = append(u, bytesOf(contentAt)...)
	u = pad8(u)
	for _, n := range []int{len(table), len(tags), strTable, contTable} {
		u = binary.LittleEndian.AppendUint64(u, uint64(n))
	}
	return append(u, unitEnd...)
}

func pad8(b []byte) []byte { return append(b, make([]byte, (8-len(b)%8)%8)...) }

// cacheView is one unit of a tag cache file in memory (mapped), with its
// tables.
type cacheView struct {
	data     []byte   // the unit up to its tables: what contents and strings may use
	unit     []byte   // the whole unit, as written (a save copies it)
	strAt    []uint32 // position of string i
	contents []uint32 // position of content i
	// m is the mapping the unit lies in (nil when it is not mapped: the
	// tests'), whose pages a pass over the whole cache lets go of.
	m *mappedFile
	// w and at: the unit is unit at of the file cache writer w writes.
	w  *cacheWriter
	at int
}

// decodeUnit checks the trailer and tables of a unit; its strings and
// contents are checked when decoded.
func decodeUnit(data []byte) (*cacheView, error) {
	n := len(data)
	if n < len(unitMagic)+unitTrailer || string(data[:len(unitMagic)]) != unitMagic ||
		string(data[n-len(unitEnd):]) != unitEnd {
		return nil, errBadCache
	}
	v, ok := trailerWords(data[n-unitTrailer:], 4, n)
	if !ok {
		return nil, errBadCache
	}
	nstr, ncont, strTable, contTable := int(v[0]), int(v[1]), int(v[2]), int(v[3])
	if strTable%8 != 0 || strTable < len(unitMagic) || strTable+4*nstr != contTable || contTable+4*ncont > n-unitTrailer {
		return nil, errBadCache
	}
	cv := &cacheView{data: data[:strTable], unit: data}
	if nstr > 0 {
		cv.strAt = viewOf[uint32](aligned4(data[strTable:contTable]), nstr)
	}
	if ncont > 0 {
		cv.contents = viewOf[uint32](aligned4(data[contTable:contTable+4*ncont]), ncont)
	}
	if (nstr > 0 && cv.strAt == nil) || (ncont > 0 && cv.contents == nil) {
		return nil, errBadCache
	}
	return cv, nil
}

// trailerWords reads the first k little-endian u64 of a trailer, each a
// position or a count within a file of n bytes; false when one is past it.
func trailerWords(tr []byte, k, n int) ([]uint64, bool) {
	v := make([]uint64, k)
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(tr[8*i:])
		if v[i] > uint64(n) {
			return nil, false
		}
	}
	return v, true
}

// decodeCache checks the trailer, tables and paths of a cache file and
// returns its paths; their tags decode from data when asked. m is the
// mapping data lies in (nil: not mapped).
func decodeCache(data []byte, m *mappedFile) (map[string]*entry, error) {
	n := len(data)
	if n < len(cacheMagic)+cacheTrailer || string(data[:len(cacheMagic)]) != cacheMagic ||
		string(data[n-len(cacheEnd):]) != cacheEnd || uintptr(unsafePointer(data))%8 != 0 {
		return nil, errBadCache
	}
	v, ok := trailerWords(data[n-cacheTrailer:], 3, n)
	if !ok {
		return nil, errBadCache
	}
	nunits, unitTable, pathsAt := int(v[0]), int(v[1]), int(v[2])
	if unitTable%8 != 0 || unitTable+16*nunits != n-cacheTrailer || pathsAt < len(cacheMagic) || pathsAt > unitTable {
		return nil, errBadCache
	}
	// Units are in order and do not overlap, so each takes bytes of its
	// own and the views made are bounded by the file's size.
	views := make([]*cacheView, nunits)
	prevEnd := uint64(len(cacheMagic))
	for i := range views {
		start := binary.LittleEndian.Uint64(data[unitTable+16*i:])
		end := binary.LittleEndian.Uint64(data[unitTable+16*i+8:])
		if start%8 != 0 || start < prevEnd || start > end || end > uint64(pathsAt) {
			return nil, errBadCache
		}
		prevEnd = end
		cv, err := decodeUnit(data[start:end])
		if err != nil {
			return nil, err
		}
		cv.m = m
		views[i] = cv
	}
	d := decoder{data: data[:unitTable], pos: pathsAt}
	npaths := d.count(37) // at least: path length, unit, content, hash, size, mtime
	files := make(map[string]*entry, npaths)
	for i := 0; i < npaths && d.err == nil; i++ {
		p := d.bytes(d.count(1))
		u, c := d.uvarint(), d.uvarint()
		hash := d.bytes(32)
		size, mtime := d.uvarint(), d.uvarint()
		if d.err != nil || u >= uint64(nunits) || c >= uint64(len(views[u].contents)) {
			return nil, errBadCache
		}
		e := &entry{size: int64(size), mtime: int64(mtime), view: views[u], content: int32(c)}
		copy(e.hash[:], hash)
		files[string(p)] = e
	}
	if d.err != nil {
		return nil, errBadCache
	}
	// The paths and tables were read once; the tags are read when asked.
	m.drop(data[pathsAt:])
	return files, nil
}

// loadCache maps a cache file written by a cacheWriter, when it is a
// regular file (not a link to /dev/zero, not a FIFO) of at most limit
// bytes, and returns its paths, whose tags decode from the mapping on
// demand.
func loadCache(path string, limit int64) (map[string]*entry, error) {
	if path == "" {
		return nil, os.ErrNotExist
	}
	m, err := mapFile(path, limit)
	if err != nil {
		return nil, err
	}
	files, err := decodeCache(m.data, m)
	if err != nil {
		m.close()
		return nil, err
	}
	// Never unmapped: the tags decoded from it are views of its pages, and
	// they may be anywhere. The file is replaced by a rename, never
	// rewritten in place, so the pages stay what they were.
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
	b := d.bytes(d.count(1))
	return unsafeString(b), d.err == nil
}

// tags decodes content c; one that does not decode gives no tags.
func (cv *cacheView) tags(c int32) *fileTags { return cv.decode(c, true) }

// decode decodes content c, its references only when refs is set (a map
// prints definitions; references are most of a file's tags).
func (cv *cacheView) decode(c int32, refs bool) *fileTags {
	d := decoder{data: cv.data, pos: int(cv.contents[c])}
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

// names appends the definition names and the references of content c to
// defs and refs, as views of the data (not to be kept), without
// allocating once the buffers have grown; a content that does not decode
// appends none, like tags.
func (cv *cacheView) names(c int32, defs, refs []string) ([]string, []string) {
	d0, r0 := len(defs), len(refs)
	d := decoder{data: cv.data, pos: int(cv.contents[c])}
	ok := true
	str := func() string {
		s, good := cv.str(d.uvarint())
		ok = ok && good
		return s
	}
	str() // the language
	for n := d.count(4); n > 0 && ok && d.err == nil; n-- {
		defs = append(defs, str())
		str() // kind
		str() // signature
		d.uvarint()
	}
	for n := d.count(1); n > 0 && ok && d.err == nil; n-- {
		refs = append(refs, str())
	}
	if !ok || d.err != nil {
		return defs[:d0], refs[:r0]
	}
	return defs, refs
}

// lang is content c's language, without decoding its tags.
func (cv *cacheView) lang(c int32) string {
	d := decoder{data: cv.data, pos: int(cv.contents[c])}
	s, _ := cv.str(d.uvarint())
	return s
}

// defCount is how many definitions content c has.
func (cv *cacheView) defCount(c int32) int {
	d := decoder{data: cv.data, pos: int(cv.contents[c])}
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
	if d.pos < 0 || d.pos >= len(d.data) {
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

// bytes returns the next n bytes (a view of the data).
func (d *decoder) bytes(n int) []byte {
	if d.err == nil && (d.pos < 0 || n > len(d.data)-d.pos) {
		d.err = errBadCache
	}
	if d.err != nil {
		return nil
	}
	b := d.data[d.pos : d.pos+n]
	d.pos += n
	return b
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
