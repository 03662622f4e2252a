//go:build !unix

package treesitter

import "github.com/aide-lsp/aide-lsp/workspace"

// mappedFile holds a whole file read into memory where there is no mmap.
type mappedFile struct{ data []byte }

func mapFile(path string, limit int64) (*mappedFile, error) {
	data, err := workspace.ReadRegular(path, limit)
	if err != nil {
		return nil, err
	}
	return &mappedFile{data: data}, nil
}

func (m *mappedFile) close()   {}
func (m *mappedFile) release() {}
