package commands

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/model"
	"github.com/aide-lsp/aide-lsp/planview"
	"github.com/aide-lsp/aide-lsp/workspace"
)

// The session's own files under .aide (docs/architecture.md, "Files of
// its own"): the event log, the state file a restarted server lists, and
// how they are written (never through a link, never half a file).

// appendPrivate and writePrivate write the session's own files under
// .aide: never through a symbolic link (a cloned repository can carry
// .aide/sessions/<id>.jsonl pointing anywhere), whatever the folders became
// since the session started. Both redact what they write (model.Redact):
// a key a provider or a proxy streams back, split across events or not,
// is in the model's text whole by the time it is written.
func (e *Engine) appendPrivate(path string, line []byte) error {
	if err := workspace.CheckPrivateDir(e.root, filepath.Dir(path)); err != nil {
		return err
	}
	return appendLine(path, []byte(model.Redact(string(line))))
}

func (e *Engine) writePrivate(path string, data []byte) error {
	if err := workspace.CheckPrivateDir(e.root, filepath.Dir(path)); err != nil {
		return err
	}
	return workspace.WriteFileAtomic(path, []byte(model.Redact(string(data))), 0o600) // the rename replaces a link, never follows it
}

func appendLine(path string, line []byte) error {
	const flag = os.O_APPEND | os.O_CREATE | os.O_WRONLY
	f, err := workspace.OpenPrivate(path, flag, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		// The folder is made on first use only.
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			f, err = workspace.OpenPrivate(path, flag, 0o644)
		}
	}
	if err != nil {
		return err
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// stateFile is the session's state on disk (.aide/sessions/<session>.json),
// beside its event log, so a restarted server can list it.
type stateFile struct {
	Session        string    `json:"session"`
	Kind           string    `json:"kind"`
	Task           string    `json:"task"`
	State          State     `json:"state"`
	Reason         string    `json:"reason,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	Cycle          int       `json:"cycle"`
	ArchitectModel string    `json:"architectModel"`
	EditorModel    string    `json:"editorModel"`
	Focus          []string  `json:"focus,omitempty"`
	// Plan is kept for the record only: a reloaded session re-derives its plan.
	Plan string `json:"plan,omitempty"`
}

func (e *Engine) saveState(s *session) {
	s.mu.Lock()
	st := stateFile{Session: s.id, Kind: s.kind, Task: s.task, State: s.state, Reason: s.reason, CreatedAt: s.createdAt,
		Cycle: s.cycle, ArchitectModel: s.archModel, EditorModel: s.edModel, Focus: s.focus, Plan: s.plan.Text}
	s.mu.Unlock()
	data, _ := json.MarshalIndent(st, "", "  ")
	// Most plan-document refreshes leave the state as it was (a turn
	// rewrote the same state file several times): an unchanged state is
	// not written again. writePlan holds planMu, which guards savedState.
	if bytes.Equal(data, s.savedState) {
		return
	}
	if err := e.writePrivate(s.statePath, data); err != nil {
		e.client.Message("warning", fmt.Sprintf("aide: could not write %s: %v", s.statePath, err))
		return
	}
	s.savedState = data
}

// MaxReloadedSessions bounds the session files a start reads, newest
// first, and MaxReloadedTaskChars the task kept of each: a repository can
// ship .aide/sessions (a small git pack of 100 files once cost 2.8 GiB).
const (
	MaxReloadedSessions  = 100
	MaxReloadedTaskChars = 8192
)

// clipRunes cuts s to n characters, marking the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + " […]"
}

// reload lists the sessions of .aide/sessions. A session that was running
// when its server stopped is interrupted; none of them keeps its plan for
// the editor: the next approval or re-plan derives a new one.
func (e *Engine) reload() {
	dir := filepath.Join(e.root, ".aide", "sessions")
	if err := workspace.CheckPrivateDir(e.root, dir); err != nil {
		e.LoadProblems = append(e.LoadProblems, err.Error())
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	// Only the newest state files are read (ids begin with their time):
	// a repository can ship any number of them (contract §8).
	var states []fs.DirEntry
	for _, ent := range entries {
		if !ent.IsDir() && strings.HasSuffix(ent.Name(), ".json") {
			states = append(states, ent)
		}
	}
	sort.Slice(states, func(i, j int) bool { return states[i].Name() > states[j].Name() })
	if len(states) > MaxReloadedSessions {
		e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%d session files in %s: only the newest %d were read", len(states), dir, MaxReloadedSessions))
		states = states[:MaxReloadedSessions]
	}
	for _, ent := range states {
		name := ent.Name()
		if ent.Type()&fs.ModeSymlink != 0 {
			e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%s: a symbolic link, not a session state file (ignored)", name))
			continue
		}
		// A FIFO would block the start, /dev/zero would never end: regular
		// files of at most 4 MiB only (contract §8).
		data, err := workspace.ReadRegular(filepath.Join(dir, name), workspace.MaxStateBytes)
		if err != nil {
			e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		var st stateFile
		// The id must pass the test every command applies to it (e.session),
		// or the session would be listed and then refused by every command.
		if err := json.Unmarshal(data, &st); err != nil || st.Session+".json" != name ||
			!sessionIDPattern.MatchString(st.Session) || strings.Contains(st.Session, "..") {
			e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%s: not a session state file (ignored)", name))
			continue
		}
		// A state or kind no command knows would list a session that no
		// command can move on.
		if !knownStates[st.State] || (st.Kind != "architect" && st.Kind != "edit" && st.Kind != undoKind) {
			e.LoadProblems = append(e.LoadProblems, fmt.Sprintf("%s: not a session state file (state %q, kind %q; ignored)", name, st.State, st.Kind))
			continue
		}
		state := st.State
		switch state {
		case StatePlanning, StateEditing, StateProposed:
			// Its model call or its proposals died with the old server.
			state = StateInterrupted
		}
		cfg := e.config()
		s := &session{
			id: st.Session, kind: st.Kind, task: clipRunes(st.Task, MaxReloadedTaskChars), createdAt: st.CreatedAt, focus: st.Focus,
			state: state, reason: st.Reason,
			archModel: offeredModel(cfg, st.ArchitectModel, cfg.ArchitectModel), edModel: offeredModel(cfg, st.EditorModel, cfg.EditorModel),
			planState: planState{cycle: st.Cycle, oneCall: st.Kind == "edit"}, reloaded: true,
			planPath:  filepath.Join(e.root, ".aide", "plans", st.Session+".md"),
			eventPath: filepath.Join(dir, st.Session+".jsonl"),
			statePath: filepath.Join(dir, name),
		}
		if st.Plan != "" {
			s.planNote = "The plan of the previous server run is not carried out: approving or re-planning derives a new one."
		}
		e.keepWrittenPlan(s)
		e.sessions[s.id] = s
	}
}

// offeredModel is m, a reloaded session's model, when the user's settings
// offer it (the configured architect or editor model, or a priced one,
// contract §3), else def. A state file under .aide/ may be the
// repository's: its models would be choices the user never made (the
// model approval calls, an "Approve with" of its own).
func offeredModel(cfg config.Config, m, def string) string {
	if _, priced := cfg.Prices[m]; m != "" && (m == cfg.ArchitectModel || m == cfg.EditorModel || priced) {
		return m
	}
	return def
}

// keepWrittenPlan gives a reloaded session the plan of the document the
// engine wrote for it before the restart, as the user's state folder
// remembers it (Options.Written), never as a file under the workspace
// says: that plan was shown to the user, and approving carries it out with
// the user's edits of the document (takeEditedPlan). A session with no
// such record derives its plan again.
func (e *Engine) keepWrittenPlan(s *session) {
	text, ok := e.written.Text(s.planPath)
	if !ok || planview.SessionOf(text) != s.id {
		return
	}
	p, err := planview.ExtractPlan(text)
	if err != nil {
		return
	}
	s.plan, s.planNote, s.reloaded = p, "", false
}
