package commands

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aide-lsp/aide-lsp/workspace"
)

// FilesChanged is told of changed files: open buffers (didChange) and the
// disk (the watcher); paths are absolute or workspace-relative. A session
// whose plan waits for approval, or whose editor pass runs, and that
// depends on one of them (its snapshot holds it) learns of the drift at
// once: a drift event, the plan document's ## Drift section, and, while it
// waits, re-plan among the plan file's actions. What to do about it is
// still onDrift's to decide when the editor pass starts (contract §7).
func (e *Engine) FilesChanged(paths []string) {
	var rels []string
	for _, p := range paths {
		if _, rel, err := e.ws.Resolve(p); err == nil {
			rels = append(rels, rel)
		}
	}
	if len(rels) == 0 {
		return
	}
	list := e.sessionList()
	for _, s := range list {
		e.liveDrift(s, rels)
	}
}

// DependedOn lists the files the sessions that watch for drift depend on
// (their snapshots' files), for a watcher that polls: it compares them
// with the disk more often than the whole tree (workspace.WatchOptions).
func (e *Engine) DependedOn() []string {
	list := e.sessionList()
	var out []string
	for _, s := range list {
		s.mu.Lock()
		if s.watchesDrift() {
			for p := range s.snapshot.Files {
				out = append(out, p)
			}
		}
		s.mu.Unlock()
	}
	return out
}

// watchesDrift reports whether s hears of drift as it happens: its plan
// waits for approval, or its editor pass runs. Called with s.mu held.
func (s *session) watchesDrift() bool {
	return s.state == StateWaiting || s.state == StateEditing && s.busy
}

func (e *Engine) liveDrift(s *session, changed []string) {
	s.mu.Lock()
	watching := s.watchesDrift()
	snap := s.snapshot
	depends := false
	for _, p := range changed {
		if _, ok := snap.Files[p]; ok {
			depends = true
			break
		}
	}
	known := driftKey(s.drift)
	s.mu.Unlock()
	if !watching || !depends {
		return
	}
	drift := e.ws.Drift(snap)
	if driftKey(drift) == known {
		return // nothing new: the plan document already says so
	}
	cfg := e.config()
	files, lines := driftFiles(drift)
	s.mu.Lock()
	s.drift = drift
	if len(drift) > 0 {
		s.log = append(s.log, "drift while the plan waits: "+strings.Join(lines, "; "))
	}
	s.mu.Unlock()
	if len(drift) > 0 {
		e.emit(s, EvDrift, DriftData{Files: files, OnDrift: cfg.OnDrift, Live: true})
	}
	e.writePlan(s, true)
}

// driftKey identifies a drift by its files and kinds: a buffer typed in
// changes the summary ("+3 -1 lines") at every key, which is not news.
func driftKey(cs []workspace.Change) string {
	keys := make([]string, 0, len(cs))
	for _, c := range cs {
		keys = append(keys, c.Path+"\x00"+c.Kind)
	}
	slices.Sort(keys)
	return strings.Join(keys, "\x01")
}

// driftFiles turns drift into the event's files and one log line each.
func driftFiles(drift []workspace.Change) ([]DriftFile, []string) {
	var files []DriftFile
	var lines []string
	for _, c := range drift {
		files = append(files, DriftFile{Path: c.Path, Kind: c.Kind, Summary: c.Summary})
		lines = append(lines, fmt.Sprintf("%s %s %s", c.Path, c.Kind, c.Summary))
	}
	return files, lines
}
