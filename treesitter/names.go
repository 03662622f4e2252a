package treesitter

import "unsafe"

// nameTable is the ranking graph's knowledge of every name some file
// defines, as flat arrays indexed by name id (design §repository map): no
// Go map and no per-name object, so the graph costs a few arrays however
// many names a repository has (the Linux kernel defines 2.4 million), and
// the same arrays are what the graph file holds (graphfile.go), memory-
// mapped by a warm start instead of rebuilt.
//
// Name id i is blob[off[i]:off[i+1]]; the files defining it are
// defs[defOff[i]:defOff[i+1]] and the files referencing it
// users[useOff[i]:useOff[i+1]], both in path order. slots is an open-
// addressing hash table of id+1 (0: empty), its length a power of two.
type nameTable struct {
	blob     []byte
	off      []uint32
	defOff   []uint32
	defs     []int32
	useOff   []uint32
	users    []int32
	landmark []float64 // 1 + log(1+users)·idf: how much a definition gains from use
	weight   []float64 // nameWeight, computed once per name
	slots    []int32
}

// count is the number of names.
func (t *nameTable) count() int {
	if len(t.off) == 0 {
		return 0
	}
	return len(t.off) - 1
}

// str is name id's text, a view of the table (not to be kept: the table
// may be a mapped file).
func (t *nameTable) str(id int32) []byte { return t.blob[t.off[id]:t.off[id+1]] }

func (t *nameTable) definers(id int32) []int32 { return t.defs[t.defOff[id]:t.defOff[id+1]] }
func (t *nameTable) usersOf(id int32) []int32  { return t.users[t.useOff[id]:t.useOff[id+1]] }

// nameHash is FNV-1a: the table is stored, so the hash must not depend on
// the process (hash/maphash seeds do).
func nameHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// find returns the id of name s, or -1. At most len(slots) probes, so a
// corrupt table (no empty slot) cannot loop.
func (t *nameTable) find(s string) int32 {
	if len(t.slots) == 0 {
		return -1
	}
	mask := uint64(len(t.slots) - 1)
	h := nameHash(s) & mask
	for range t.slots {
		v := t.slots[h]
		if v == 0 {
			return -1
		}
		if id := v - 1; string(t.str(id)) == s {
			return id
		}
		h = (h + 1) & mask
	}
	return -1
}

// slotCount sizes the hash table for at most n names, at most half full.
func slotCount(n int) int {
	s := 16
	for s < 2*n {
		s <<= 1
	}
	return s
}

// insert returns the id of s, adding it when new (building only).
func (t *nameTable) insert(s string) (id int32, added bool) {
	mask := uint64(len(t.slots) - 1)
	h := nameHash(s) & mask
	for {
		v := t.slots[h]
		if v == 0 {
			break
		}
		if id := v - 1; string(t.str(id)) == s {
			return id, false
		}
		h = (h + 1) & mask
	}
	if len(t.off) == 0 {
		t.off = append(t.off, 0)
	}
	id = int32(len(t.off) - 1)
	t.blob = append(t.blob, s...)
	t.off = append(t.off, uint32(len(t.blob)))
	t.slots[h] = id + 1
	return id, true
}

// unsafeString views b as a string without copying, for a call that does
// not keep it.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// unsafePointer is the address of b's first byte.
func unsafePointer(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }
