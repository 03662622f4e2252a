package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/aide-lsp/aide-lsp/commands"
	"github.com/aide-lsp/aide-lsp/config"
	"github.com/aide-lsp/aide-lsp/editapply"
	"github.com/aide-lsp/aide-lsp/undo"
	"github.com/aide-lsp/aide-lsp/workspace"
)

const undoUsage = `Usage: aide-lsp undo [--dir DIR] [--force] [SESSION]

Puts back what a session wrote: every file it changed, created, renamed or
deleted, as it was before, all or nothing. Without SESSION, the last
'aide-lsp run --apply' in this workspace not undone yet. SESSION may also be
a session whose hunks were accepted in an editor, or an undo (which brings
back what that undo took away: an undo is undoable too).

A file changed since the session wrote it is a conflict: nothing is written,
the files are listed, and the exit status is 1. --force puts those files back
as they were before the session anyway (what changed since is lost); a file
whose content before the session was not recorded is never touched.

What a session wrote is recorded in the user's state folder
($XDG_STATE_HOME/aide-lsp/undo/, else ~/.local/state/aide-lsp/undo/), never
in the workspace; the last 50 sessions of each workspace are kept.

Examples:
  aide-lsp run --apply "fix the typo in README.md"
  aide-lsp undo                          (undo that apply)
  aide-lsp undo --list                   (the sessions that can be undone)
  aide-lsp undo 20260102-150405-a1b2c3   (a session, by its id)
  aide-lsp undo --force                  (overwrite what changed since)
  aide-lsp undo --dir ~/src/app

Exit status: 0 undone; 1 conflicts or a failed write (the message says what
was written: nothing, unless the disk failed midway); 2 usage error or no such
session.

Flags:
`

func runUndo(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("undo", undoUsage)
	dir := fs.String("dir", ".", "workspace root")
	force := fs.Bool("force", false, "put back files changed since the session wrote them (what changed since is lost)")
	list := fs.Bool("list", false, "list the sessions that can be undone, newest first")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	stderr = safeWriter{stderr}
	fail := failer("undo", stderr)
	if fs.NArg() > 1 {
		return fail(exitUsage, "one SESSION at most (see 'aide-lsp undo -h')")
	}
	root, err := workspaceDir(*dir)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	store, err := undo.Open(config.StateDir(os.Getenv), root)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	if *list {
		return listUndo(store, stdout, fail)
	}
	var rec *undo.Record
	if fs.NArg() == 1 {
		rec, err = store.Load(fs.Arg(0))
		if errors.Is(err, undo.ErrNoRecord) {
			return fail(exitUsage, "%v; 'aide-lsp undo --list' shows the sessions that can be undone", err)
		}
	} else {
		rec, err = store.Last(undo.SourceRun)
		if errors.Is(err, undo.ErrNoRecord) {
			return fail(exitFailed, "no 'aide-lsp run --apply' to undo in %s; 'aide-lsp undo --list' shows the sessions that can be undone", root)
		}
	}
	if err != nil {
		return fail(exitFailed, "%v", err)
	}
	if len(rec.Standing()) == 0 {
		by := rec.Hunks[0].UndoneBy
		for _, h := range rec.Hunks {
			if h.UndoneBy != "" {
				by = h.UndoneBy
			}
		}
		return fail(exitFailed, "session %s is undone already (by %s); 'aide-lsp undo %s' brings it back", rec.Session, by, by)
	}

	loaded := loadConfig("undo", root, "", "", nil, stderr)
	ws, err := workspace.Open([]string{root}, loaded.Config.Deny)
	if err != nil {
		return fail(exitUsage, "%v", err)
	}
	// The apply journal is the user's, in the state folder (contract §8).
	if err := ws.SetStateDir(config.StateDir(os.Getenv)); err != nil {
		fmt.Fprintf(stderr, "aide-lsp undo: warning: %v\n", err)
	}
	if msg := ws.Interrupted(); msg != "" {
		fmt.Fprintf(stderr, "aide-lsp undo: warning: %s\n", msg)
	}

	plan, err := planUndo(ws, rec, *force)
	if err != nil {
		return fail(exitFailed, "%v; nothing was written", err)
	}
	if len(plan.conflicts) > 0 && !*force {
		fmt.Fprintf(stderr, "aide-lsp undo: %d file(s) changed since session %s wrote them; nothing was written:\n", len(plan.conflicts), rec.Session)
		for _, c := range plan.conflicts {
			fmt.Fprintf(stderr, "  %s\n", c)
		}
		return fail(exitFailed, "check them with git diff; 'aide-lsp undo --force %s' puts them back as they were before the session anyway (what changed since is lost)", rec.Session)
	}
	for _, s := range plan.skipped {
		fmt.Fprintf(stderr, "aide-lsp undo: left as it is: %s\n", s)
	}

	// The undo is recorded before it writes, like an apply: a crash midway
	// still leaves what it takes to put the files back.
	u := store.New(undo.NewID(time.Now()), "undo "+rec.Session+": "+rec.Task, undo.SourceUndo)
	u.UndoOf = rec.Session
	if err := u.Add(plan.asHunks(), ws.Read); err != nil {
		return fail(exitFailed, "%v; nothing was written", err)
	}
	saved := len(plan.writes) > 0 && store.Save(u) == nil
	written, err := ws.ApplyAll(plan.writes)
	if err != nil {
		if saved && len(written) == 0 {
			_ = store.Remove(u.Session)
		}
		return fail(exitFailed, "could not undo: %v", err)
	}
	rec.MarkUndone(plan.undone, u.Session)
	if err := store.Save(rec); err != nil {
		fmt.Fprintf(stderr, "aide-lsp undo: warning: %v\n", err)
	}
	if rec.Source == undo.SourceUndo && rec.UndoOf != "" {
		// Undoing an undo: what it undid stands again.
		if orig, err := store.Load(rec.UndoOf); err == nil {
			orig.Restore(rec.Session)
			_ = store.Save(orig)
		}
	}
	if len(written) > 0 {
		fmt.Fprintf(stderr, "aide: undid session %s: wrote %s\n", rec.Session, strings.Join(written, ", "))
	} else {
		fmt.Fprintf(stderr, "aide: undid session %s: the files were as before it already\n", rec.Session)
	}
	if saved {
		fmt.Fprintf(stderr, "aide: 'aide-lsp undo %s' brings it back\n", u.Session)
	}
	return exitOK
}

func listUndo(store *undo.Store, stdout io.Writer, fail func(int, string, ...any) int) int {
	rs, err := store.List()
	if err != nil {
		return fail(exitFailed, "%v", err)
	}
	if len(rs) == 0 {
		fmt.Fprintf(stdout, "no session to undo in %s\n", store.Root())
		return exitOK
	}
	for _, r := range rs {
		state := fmt.Sprintf("%d/%d hunks standing", len(r.Standing()), len(r.Hunks))
		fmt.Fprintf(stdout, "%s  %s  %-6s  %-20s  %s\n", r.Session, r.Created.Local().Format(time.DateTime), r.Source, state, oneLine(r.Task))
	}
	return exitOK
}

// undoPlan is what an undo writes: whole files put back as recorded when
// every hunk of the session still stands, hunk by hunk otherwise.
type undoPlan struct {
	writes    []workspace.FileWrite
	before    map[string]bool // the paths of writes that existed before the undo
	undone    []string        // the record's hunk ids undone
	conflicts []string        // one line per file (or hunk) changed since
	skipped   []string        // with --force: files without a recorded before-state
}

// planUndo compares each file the session wrote with what it wrote (the
// conflict rule of contract §2 undo) and plans the writes; nothing is
// written here.
func planUndo(ws *workspace.Workspace, rec *undo.Record, force bool) (undoPlan, error) {
	p := undoPlan{before: map[string]bool{}}
	byHunks := map[string]bool{} // files undone hunk by hunk (no whole content recorded)
	whole := len(rec.Standing()) == len(rec.Hunks)
	for _, f := range rec.Files {
		cur, exists, err := ws.Read(f.Path)
		if err != nil {
			return p, fmt.Errorf("%s: %w", f.Path, err)
		}
		p.before[f.Path] = exists
		if !whole || f.Before == nil || f.After == nil {
			changed := f.After != nil && (exists != f.After.Exists || cur != string(f.After.Data))
			switch {
			case changed && force:
				p.skipped = append(p.skipped, f.Path+": what it held before the session was not recorded")
			case changed:
				p.conflicts = append(p.conflicts, f.Path+": changed since the session wrote it")
			default:
				byHunks[f.Path] = true
			}
			continue
		}
		atBefore := exists == f.Before.Exists && cur == string(f.Before.Data)
		if !atBefore && (exists != f.After.Exists || cur != string(f.After.Data)) {
			// (A file back as it was before is no conflict: an undo killed
			// midway is finished by running it again.)
			if !force {
				p.conflicts = append(p.conflicts, f.Path+": changed since the session wrote it")
				continue
			}
		}
		switch {
		case atBefore:
		case f.Before.Exists:
			p.writes = append(p.writes, workspace.FileWrite{Rel: f.Path, Content: f.Before.Data})
		default:
			p.writes = append(p.writes, workspace.FileWrite{Rel: f.Path, Delete: true})
		}
	}
	var ids []string
	for _, h := range rec.Hunks {
		if h.UndoneBy != "" {
			continue
		}
		if !whole || byHunks[h.Path] || h.Kind == "rename" && byHunks[h.NewPath] {
			ids = append(ids, h.ID)
		} else if f := rec.File(h.Path); f != nil && f.Before != nil {
			p.undone = append(p.undone, h.ID)
		}
	}
	if len(ids) == 0 {
		return p, nil
	}
	hp, err := undo.Reverts(rec, ws, ids)
	if err != nil {
		return p, err
	}
	for _, c := range hp.Conflicts {
		p.conflicts = append(p.conflicts, c.ID+": "+c.Reason)
	}
	var hunks []editapply.Hunk
	for _, r := range hp.Reverts {
		hunks = append(hunks, r.Hunk)
	}
	changes, err := commands.FileChanges(ws, hunks)
	if err != nil {
		return p, err
	}
	for _, c := range changes {
		if _, ok := p.before[c.Rel]; !ok {
			_, exists, _ := ws.Read(c.Rel)
			p.before[c.Rel] = exists
		}
	}
	p.writes = append(p.writes, changes...)
	p.undone = append(p.undone, hp.Undone...)
	return p, nil
}

// asHunks is the undo's writes as whole-file hunks, for its own record.
func (p undoPlan) asHunks() []editapply.Hunk {
	var out []editapply.Hunk
	for i, w := range p.writes {
		h := editapply.Hunk{ID: fmt.Sprintf("u%d", i+1), Path: w.Rel}
		switch {
		case w.Delete:
			h.Kind = editapply.KindDelete
		default:
			h.Kind, h.NewText, h.Created = editapply.KindWrite, string(w.Content), !p.before[w.Rel]
		}
		out = append(out, h)
	}
	return out
}
