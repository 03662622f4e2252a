package editapply

// mapFiles is Files over a map: path → content.
type mapFiles map[string]string

func (m mapFiles) Read(p string) (string, bool, error) {
	c, ok := m[p]
	return c, ok, nil
}
