package commands

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"sync"
)

// The plan buffers: what the engine makes of the client's copy of a plan
// file (Client.PlanBuffer), the same for every front end (docs/design.md,
// "Plan buffers"). The engine never writes a plan file under a buffer that
// holds an edit of the user's: Helix keeps a buffer changed by
// workspace/applyEdit modified (":qa" refuses), and Neovim, whose file the
// engine rewrites at the same time, asks "file changed since editing
// started, really write?". The file on disk is the plan document; an
// unmodified buffer takes it when the editor re-reads the file (Neovim's
// autoread, Helix's :reload, Zed's reload). What this keeps is which texts
// were the engine's own, so that a buffer still holding one of them is
// never taken for the user's edit, and which edits approval carried out.
type planBuffers struct {
	mu      sync.Mutex                   // guards the fields below
	written map[string]map[[32]byte]bool // plan path → hashes of the texts the engine wrote there
	order   map[string][][32]byte        // plan path → the same hashes, oldest first (to bound them)
	adopted map[string]map[[32]byte]bool // plan path → the user's edits approval carried out (true: saved to the file then)
}

// maxWrittenTexts bounds the texts remembered per plan file: a plan
// streams in a few dozen refreshes, and a buffer older than that many
// rewrites is not one a user is still reading unreloaded.
const maxWrittenTexts = 512

// remember records text as written by the engine at path.
func (p *planBuffers) remember(path, text string) {
	sum := sha256.Sum256([]byte(text))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.written == nil {
		p.written, p.order = map[string]map[[32]byte]bool{}, map[string][][32]byte{}
	}
	set := p.written[path]
	if set == nil {
		set = map[[32]byte]bool{}
		p.written[path] = set
	}
	if set[sum] {
		return
	}
	set[sum] = true
	p.order[path] = append(p.order[path], sum)
	if len(p.order[path]) > maxWrittenTexts {
		delete(set, p.order[path][0])
		p.order[path] = p.order[path][1:]
	}
}

func (p *planBuffers) wrote(path, text string) bool {
	sum := sha256.Sum256([]byte(text))
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.written[path][sum]
}

// adopt records text, the user's edit of the plan at path, as carried out
// by approval; saved says the file held it then.
func (p *planBuffers) adopt(path, text string, saved bool) {
	sum := sha256.Sum256([]byte(text))
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.adopted == nil {
		p.adopted = map[string]map[[32]byte]bool{}
	}
	if p.adopted[path] == nil {
		p.adopted[path] = map[[32]byte]bool{}
	}
	p.adopted[path][sum] = p.adopted[path][sum] || saved
}

// wasAdopted reports whether text was adopted at path; with needSaved,
// only when the file held it then.
func (p *planBuffers) wasAdopted(path, text string, needSaved bool) bool {
	sum := sha256.Sum256([]byte(text))
	p.mu.Lock()
	defer p.mu.Unlock()
	v, ok := p.adopted[path][sum]
	return ok && (v || !needSaved)
}

// ours reports whether text is a plan document the engine wrote at path:
// in this run, or last before a restart, as the user's state folder
// remembers (Options.Written), so that a buffer the editor re-opened after
// a restart is not taken for the user's edit.
func (e *Engine) ours(path, text string) bool {
	return e.plans.wrote(path, text) || e.written.Wrote(path, text)
}

// userEditing reports whether the client's buffer of the plan file at path
// holds an edit of the user's that the engine must not write over. With
// buffer B and file D:
//   - B ≠ D: the edit is B's unless B is a text the engine wrote, or one
//     the user saved and approval carried out (an editor that has not
//     re-read the file yet, as Neovim right after approving); the file
//     stays as it is, so the editor never finds it changed under an edited
//     buffer;
//   - B = D: the user saved a text the engine did not write; once approval
//     carried it out (editedPlan adopts it) the engine writes again.
func (e *Engine) userEditing(path string) bool {
	path = filepath.Clean(path)
	buffer, open := e.client.PlanBuffer(path)
	if !open {
		return false
	}
	disk, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	return !e.ours(path, buffer) && !e.plans.wasAdopted(path, buffer, buffer != string(disk))
}

// editedPlan is the user's edit of the plan file at path in the client's
// buffer, saved or not, which approval carries out (contract §5). The
// engine never writes it to the file: that is the user's to save, and a
// file written under an open buffer makes Neovim ask on the next write.
func (e *Engine) editedPlan(path string) (string, bool) {
	path = filepath.Clean(path)
	text, open := e.client.PlanBuffer(path)
	if !open || e.ours(path, text) {
		return "", false
	}
	disk, err := os.ReadFile(path)
	e.plans.adopt(path, text, err == nil && string(disk) == text)
	return text, true
}
