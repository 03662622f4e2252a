package treesitter

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"slices"
	"unsafe"
)

// The graph file, <cacheDir>/graph-v1.bin, holds the ranking graph of the
// tag cache's files, so that a warm start maps it instead of rebuilding it
// (design §repository map: on the Linux kernel the build is 5 s of CPU and
// 600 MB of heap). It is written beside the tag cache when a Build ends
// with a graph the file does not hold, atomically (temporary file +
// rename), and read by memory-mapping it: the arrays of the graph are
// views of the file, so the pages a map touches are read on demand and
// belong to the page cache, not to the Go heap.
//
// It is tied to the tag cache by a fingerprint of the files it was built
// from (sorted paths and content hashes): a graph file whose fingerprint
// differs from the loaded index's is ignored. A file that is not this
// version's, not this machine's byte order, or inconsistent in any count,
// offset or id is ignored as a whole (the graph is then rebuilt): every
// id is checked once at load, so a hostile file can mislead a ranking but
// never index out of range.
//
// Layout: magic "aidegrph", version, byte-order mark (uint32 each), the
// fingerprint, eight uint64 counts (files, names, name bytes, definers,
// users, hash slots, definitions, links), then these arrays in the
// machine's byte order, each starting at a multiple of 8 bytes:
//
//	name offsets u32[names+1], name bytes, definer offsets u32[names+1],
//	definers i32, user offsets u32[names+1], users i32, landmark f64[names],
//	weight f64[names], hash slots i32, definition offsets u32[files+1],
//	definition name ids i32, row offsets u32[files+1], links {i32 to,
//	f32 share}, out weights f64[files]
const (
	graphFileName = "graph-v1.bin"
	graphMagic    = "aidegrph"
	graphVersion  = 1
	graphBOM      = 0x01020304
	graphHeader   = 8 + 4 + 4 + 32 + 8*8
)

var errBadGraph = errors.New("treesitter: corrupt graph file")

// fingerprint identifies a set of files and their contents; paths must be
// sorted.
func fingerprint(paths []string, files map[string]*entry) [32]byte {
	h := sha256.New()
	for _, p := range paths {
		h.Write([]byte(p))
		h.Write([]byte{0})
		e := files[p]
		h.Write(e.hash[:])
	}
	var fp [32]byte
	h.Sum(fp[:0])
	return fp
}

// bytesOf views a slice of fixed-size values as bytes.
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}

// viewOf views bytes as a slice of n fixed-size values; b is 8-aligned.
// Too few bytes give nil (the caller has marked the file bad).
func viewOf[T any](b []byte, n int) []T {
	var zero T
	if n == 0 || len(b) < n*int(unsafe.Sizeof(zero)) {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// nativeBOM is graphBOM as this machine stores it.
func nativeBOM() []byte { return bytesOf([]uint32{graphBOM}) }

// saveGraph writes g to path atomically. An empty path saves nothing.
func saveGraph(path string, g *graph) error {
	lens := make([]uint32, len(g.rows))
	for i, r := range g.rows {
		lens[i] = uint32(len(r))
	}
	return writeGraph(path, g, lens, func(fw *fileWriter) error {
		for _, r := range g.rows {
			fw.put(bytesOf(r)) // consecutive: links are 8 bytes, no padding
		}
		return nil
	})
}

// writeGraph writes g to path atomically, with rows of the given lengths
// whose links putLinks writes, one file's after another.
func writeGraph(path string, g *graph, rowLens []uint32, putLinks func(*fileWriter) error) error {
	if path == "" {
		return nil
	}
	nt := g.names
	var ndefIDs int
	defOff := make([]uint32, 1, len(g.paths)+1)
	for _, ids := range g.defNames {
		ndefIDs += len(ids)
		defOff = append(defOff, uint32(ndefIDs))
	}
	nlinks := 0
	rowOff := make([]uint32, 1, len(g.paths)+1)
	for _, n := range rowLens {
		nlinks += int(n)
		rowOff = append(rowOff, uint32(nlinks))
	}
	return writeAtomic(path, func(fw *fileWriter) error {
		section := func(b []byte) {
			fw.align(8)
			fw.put(b)
		}
		fw.put([]byte(graphMagic))
		fw.put(binary.LittleEndian.AppendUint32(nil, graphVersion))
		fw.put(nativeBOM())
		fw.put(g.fp[:])
		for _, n := range []int{len(g.paths), nt.count(), len(nt.blob), len(nt.defs), len(nt.users), len(nt.slots), ndefIDs, nlinks} {
			fw.put(binary.LittleEndian.AppendUint64(nil, uint64(n)))
		}
		section(bytesOf(nameOffsets(nt.off)))
		section(nt.blob)
		section(bytesOf(nameOffsets(nt.defOff)))
		section(bytesOf(nt.defs))
		section(bytesOf(nameOffsets(nt.useOff)))
		section(bytesOf(nt.users))
		section(bytesOf(nt.landmark))
		section(bytesOf(nt.weight))
		section(bytesOf(nt.slots))
		section(bytesOf(defOff))
		fw.align(8)
		for _, ids := range g.defNames {
			fw.put(bytesOf(ids)) // consecutive: ids are 4 bytes
		}
		section(bytesOf(rowOff))
		fw.align(8)
		if err := putLinks(fw); err != nil {
			return err
		}
		section(bytesOf(g.outW))
		return nil
	})
}

// nameOffsets is off, or the single offset of an empty table.
func nameOffsets(off []uint32) []uint32 {
	if len(off) == 0 {
		return []uint32{0}
	}
	return off
}

// loadGraph maps the graph file at path (at most limit bytes) as the graph
// of files, whose sorted paths are paths and fingerprint fp.
func loadGraph(path string, limit int64, paths []string, files map[string]*entry, fp [32]byte) (*graph, error) {
	if path == "" {
		return nil, os.ErrNotExist
	}
	m, err := mapFile(path, limit)
	if err != nil {
		return nil, err
	}
	g, err := decodeGraph(m.data, m, paths, files, fp)
	if err != nil {
		m.close()
		return nil, err
	}
	g.mapping = m
	m.release()
	return g, nil
}

// decodeGraph checks data and makes the graph whose arrays are views of it;
// m is the mapping data lies in (nil: not mapped).
func decodeGraph(data []byte, m *mappedFile, paths []string, files map[string]*entry, fp [32]byte) (*graph, error) {
	if len(data) < graphHeader || string(data[:8]) != graphMagic ||
		binary.LittleEndian.Uint32(data[8:]) != graphVersion || string(data[12:16]) != string(nativeBOM()) ||
		string(data[16:48]) != string(fp[:]) || uintptr(unsafe.Pointer(&data[0]))%8 != 0 {
		return nil, errBadGraph
	}
	var counts [8]uint64
	for i := range counts {
		counts[i] = binary.LittleEndian.Uint64(data[48+8*i:])
		if counts[i] > uint64(len(data)) {
			return nil, errBadGraph
		}
	}
	nfiles, nnames, nblob, ndefs, nusers, nslots, ndefIDs, nlinks := int(counts[0]), int(counts[1]),
		int(counts[2]), int(counts[3]), int(counts[4]), int(counts[5]), int(counts[6]), int(counts[7])
	if nfiles != len(paths) {
		return nil, errBadGraph
	}
	at := graphHeader
	bad := false
	take := func(n, size int) []byte {
		at += (8 - at%8) % 8
		if bad || n*size > len(data)-at {
			bad = true
			return nil
		}
		b := data[at : at+n*size]
		at += n * size
		return b
	}
	nt := &nameTable{}
	nt.off = viewOf[uint32](take(nnames+1, 4), nnames+1)
	nt.blob = take(nblob, 1)
	nt.defOff = viewOf[uint32](take(nnames+1, 4), nnames+1)
	nt.defs = viewOf[int32](take(ndefs, 4), ndefs)
	nt.useOff = viewOf[uint32](take(nnames+1, 4), nnames+1)
	nt.users = viewOf[int32](take(nusers, 4), nusers)
	nt.landmark = viewOf[float64](take(nnames, 8), nnames)
	nt.weight = viewOf[float64](take(nnames, 8), nnames)
	nt.slots = viewOf[int32](take(nslots, 4), nslots)
	defOff := viewOf[uint32](take(nfiles+1, 4), nfiles+1)
	defIDs := viewOf[int32](take(ndefIDs, 4), ndefIDs)
	rowOff := viewOf[uint32](take(nfiles+1, 4), nfiles+1)
	links := viewOf[link](take(nlinks, 8), nlinks)
	outW := viewOf[float64](take(nfiles, 8), nfiles)
	if bad || at != len(data) || nslots&(nslots-1) != 0 || nslots == 0 && nnames > 0 {
		return nil, errBadGraph
	}
	// Each array is checked in one pass, and its pages let go of after it
	// (m.drop): what stays resident is what maps read, and the load never
	// holds the whole file (design §repository map).
	checked := func(ok bool, arrays ...[]byte) bool {
		for _, a := range arrays {
			m.drop(a)
		}
		return ok
	}
	if !checked(offsetsOK(nt.off, nblob), bytesOf(nt.off)) || !checked(offsetsOK(nt.defOff, ndefs), bytesOf(nt.defOff)) ||
		!checked(offsetsOK(nt.useOff, nusers), bytesOf(nt.useOff)) || !checked(offsetsOK(defOff, ndefIDs)) ||
		!checked(offsetsOK(rowOff, nlinks)) || !checked(idsBelow(nt.defs, nfiles), bytesOf(nt.defs)) ||
		!checked(idsBelow(nt.users, nfiles), bytesOf(nt.users)) || !checked(idsBelow(defIDs, nnames), bytesOf(defIDs)) {
		return nil, errBadGraph
	}
	for _, s := range nt.slots {
		if s < 0 || int(s) > nnames {
			return nil, errBadGraph
		}
	}
	m.drop(bytesOf(nt.slots))
	// The ranking pushes a file's rank along its links: it ends only when
	// each file's shares are fractions that sum to at most one (they are
	// weights over the file's total), so a file that says otherwise is
	// not ours, however well formed.
	for i := 0; i < nfiles; i++ {
		sum := 0.0
		for _, l := range links[rowOff[i]:rowOff[i+1]] {
			if l.to < 0 || int(l.to) >= nfiles || !(l.share >= 0 && l.share <= 1) { // also NaN
				return nil, errBadGraph
			}
			sum += float64(l.share)
		}
		if sum > 1.001 {
			return nil, errBadGraph
		}
		if i%dropEvery == 0 {
			m.drop(bytesOf(links[:rowOff[i]]))
		}
	}
	m.drop(bytesOf(links))
	for _, fs := range [][]float64{nt.landmark, nt.weight, outW} {
		for _, v := range fs {
			if !(v >= 0) || math.IsInf(v, 1) {
				return nil, errBadGraph
			}
		}
		m.drop(bytesOf(fs))
	}
	g := &graph{paths: paths, names: nt, fp: fp, nameCount: nnames, outW: outW, printed: newDefsCache()}
	g.src = make([]*entry, nfiles)
	g.defNames = make([][]int32, nfiles)
	g.rows = make([][]link, nfiles)
	g.pushAt = make([]float64, nfiles)
	for i, p := range paths {
		g.src[i] = files[p]
		g.defNames[i] = defIDs[defOff[i]:defOff[i+1]:defOff[i+1]]
		g.rows[i] = links[rowOff[i]:rowOff[i+1]:rowOff[i+1]]
		g.pushAt[i] = pushEpsilon * float64(max(1, len(g.rows[i])))
	}
	return g, nil
}

// offsetsOK: off starts at 0, never decreases, and ends at n.
func offsetsOK(off []uint32, n int) bool {
	if len(off) == 0 || off[0] != 0 || int(off[len(off)-1]) != n {
		return false
	}
	return slices.IsSorted(off)
}

func idsBelow(ids []int32, n int) bool {
	for _, id := range ids {
		if id < 0 || int(id) >= n {
			return false
		}
	}
	return true
}
