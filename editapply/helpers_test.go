package editapply

// mapFiles is Files over a map: path → content.
type mapFiles map[string]string

func (m mapFiles) Read(p string) (string, bool, error) {
	c, ok := m[p]
	return c, ok, nil
}

// Paths lets the case-clash guard see every file, as a directory listing
// does on disk.
func (m mapFiles) Paths() []string {
	out := make([]string, 0, len(m))
	for p := range m {
		out = append(out, p)
	}
	return out
}
