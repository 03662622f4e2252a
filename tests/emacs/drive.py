"""Drives a real Emacs (Eglot) in tmux through aide-lsp's whole flow, as a
user does (run it through tests/emacs/run.sh).

Emacs runs in a tmux pane of fixed size (`emacs -nw -Q -l init.el`, the
init file loading editors/emacs/aide.el as written); the driver types keys
(tmux send-keys) and reads the screen as text (capture-pane) and the
cursor's place (display-message). Every wait polls until its condition
holds; the limits are hang guards only, so a slow machine just waits longer.

The flow (a scenario of tests/emacs/testdata: scenario.json, the file, the
model fake's replies, the expected result), with reviewPlan on (the default):
  open the file on its AI comment, C-c a (eglot-code-actions), pick "AIDE:
  Architect → Editor: <task>" → the user goes on typing in the code (end of
  the file) while the plan is made → the plan opens beside the code
  (window/showDocument without takeFocus: Eglot's display-buffer) at
  "waiting for approval", the cursor still in the code and every typed key
  in the code → the typing is taken back → C-x o, M-x aide-approve in the
  plan → auto-revert shows the plan proposed → C-x o back to the code, the
  hunks are Flymake diagnostics (notes, counted in the mode line) → per step: the hunk's line, C-h . shows its change, C-c a, accept /
  reject → C-x C-s → the file on disk is the expected result → C-x C-c
  quits without a question (nothing left modified).

Usage: drive.py EMACS WORKDIR SCENARIO_DIR (environment: AIDE_EMACS_TIMEOUT
hang guard per step in seconds, default 30). Prints "ok - ..." / "FAIL -
..." lines and a final "N passed, N failed"; exit status 0 only when every
check passed. On a failure the last screen is printed and kept in
WORKDIR/screen.txt.
"""
import json
import os
import re
import sys
import time

emacs, work, scenario_dir = sys.argv[1], sys.argv[2], sys.argv[3]
ws = os.path.join(work, "ws")
WIDTH, HEIGHT = 200, 50
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(here), "editors"))
import tmuxdrive  # noqa: E402
from tmuxdrive import check, keys, main, must, read, review, screen, tmux, typed, wait, wait_file  # noqa: E402

tmuxdrive.setup("aide-emacs", work, float(os.environ.get("AIDE_EMACS_TIMEOUT", "30")))
STEP = tmuxdrive.STEP


def cursor():
    """The terminal cursor: (column, row)."""
    x, y = tmux("display-message", "-p", "-t", "aide", "#{cursor_x} #{cursor_y}", check=False).split()
    return int(x), int(y)


def echo_area(s):
    """The last line of the screen: the echo area / minibuffer."""
    lines = s.rstrip("\n").split("\n")
    return lines[-1] if lines else ""


def separator(s):
    """The column of the vertical border between two side-by-side windows
    (Emacs draws it with '|' on every row between the menu bar and the
    mode lines), or None."""
    rows = s.split("\n")[1: HEIGHT - 2]
    cols = None
    for r in rows:
        here = {i for i, c in enumerate(r) if c == "|"}
        cols = here if cols is None else cols & here
    return min(cols) if cols else None


def left(s):
    sep = separator(s)
    return "\n".join(l[:sep] if sep else l for l in s.split("\n"))


def right(s):
    sep = separator(s)
    return "\n".join(l[sep + 1:] for l in s.split("\n")) if sep else ""


def quit_minibuffer():
    keys("C-g")
    wait(lambda s: "Pick an action" not in echo_area(s), 5)


MENU = re.compile(r"AIDE: (?:Architect|Edit|Approve|Re-plan|Discard|Accept|Reject)[^\n]*?(?=  |$)", re.M)


def type_in_minibuffer(text):
    """Types text in a completing minibuffer, where SPC would complete a
    word: each space is quoted (C-q SPC)."""
    for i, part in enumerate(text.split(" ")):
        if i:
            keys("C-q")
            keys("Space")
        if part:
            typed(part)


def code_action(want, what):
    """C-c a (eglot-code-actions at point), ? lists the actions in
    *Completions*; the full title of the first one want() accepts is typed
    and RET picks it. Returns the title."""
    keys("C-c")
    keys("a")
    s, ok = wait(lambda s: "Pick an action" in echo_area(s))
    must(ok, "C-c a asks to pick a code action (%s)" % what, s)
    keys("?")
    # The candidates, from the screen above the minibuffer (whose prompt
    # names the default action).
    s, titles = wait(lambda s: [m.group(0).strip() for m in MENU.finditer(s.rstrip("\n").rsplit("\n", 1)[0])])
    title = next((t for t in titles if want(t)), None)
    if title is None:
        quit_minibuffer()
    must(title is not None, "the code actions offer %s" % what, "\n".join(titles) + "\n" + s)
    type_in_minibuffer(title)
    keys("Enter")
    wait(lambda s: "Pick an action" not in echo_area(s), 10)
    return title


def goto(match):
    """Point on the first line holding match (M-< then isearch)."""
    keys("M-<")
    keys("C-s")
    typed(match)
    keys("Enter")
    keys("C-a")


def run():
    scenario = json.load(open(os.path.join(scenario_dir, "scenario.json"), encoding="utf-8"))
    expected = read(os.path.join(scenario_dir, scenario["expected"]))
    name = scenario["file"]
    path = os.path.join(ws, name)
    original = read(path)
    first_line = original.splitlines()[0]

    # 1. Emacs on the file, point on the AI comment; Eglot starts aide-lsp.
    tmux("new-session", "-d", "-s", "aide", "-x", str(WIDTH), "-y", str(HEIGHT), "-c", ws,
         "exec %s -nw -Q -l %s/home/init.el +%d %s" % (emacs, work, scenario["aiCommentLine"], name))
    tmux("set-option", "-t", "aide", "remain-on-exit", "on")
    # Connected: Eglot's echo "Connected!", or its mode-line lighter once a
    # warning (the repository's review keys, run.sh) took the echo area.
    s, ok = wait(lambda s: first_line in s and ("eglot" in s.lower() and "Connected" in s
                                                or re.search(r"\[eglot:[^\]/]+\]", s)))
    must(ok, "Emacs shows %s and Eglot connects aide-lsp" % name, s)

    # 2. The architect action from Eglot's code actions.
    title = code_action(lambda t: t.startswith("AIDE: Architect → Editor: " + scenario["task"]),
                        '"AIDE: Architect → Editor: %s"' % scenario["task"])

    # 3. The user goes on working in the code while the plan is made: a
    # new last line, typed one key at a time, until the plan is on screen
    # and some more. Every key must land in the code (Eglot takes any
    # takeFocus, even false, as true: the server leaves it out for Eglot).
    keys("M->")
    note, seen_plan = "", 0
    deadline = time.monotonic() + STEP
    while time.monotonic() < deadline and seen_plan < 6:
        note += "x"
        typed("x")
        time.sleep(0.25)
        if "# AIDE session" in screen():
            seen_plan += 1
    s, ok = wait(lambda s: "waiting for approval" in right(s) and scenario["planText"] in right(s))
    must(ok, 'the plan opens beside the code (right) at "waiting for approval"', s)
    check(first_line in left(s), "the code is still on screen (left)", s)
    session = re.search(r"# AIDE session (\S+)", right(s)).group(1)
    plan_path = os.path.join(ws, ".aide", "plans", session + ".md")
    s, ok = wait(lambda s: note in left(s))
    check(ok and note not in right(s), "all %d keys typed while the plan came landed in the code, none in the plan" % len(note), s)
    x, _ = cursor()
    sep = separator(s)
    check(sep is not None and x < sep, "the cursor is in the code (left) after the plan opened", "cursor column %d, border %s" % (x, sep))
    check("really edit" not in s, 'no "changed on disk; really edit?" question', s)
    for _ in note:  # take the typing back: the buffer is as the file again
        keys("BSpace")
    s, ok = wait(lambda s: note[:1] * 2 not in left(s))
    must(ok, "the typed keys are taken back", s)

    # 3b. The repository's .aide/config.json and .dir-locals.el
    # (eglot-workspace-configuration) asked for no plan approval and
    # applyEdit (run.sh): ignored, so the plan waited and the file is as it
    # was; the server said why for both (contract §3).
    check(read(path) == original, "the repository's .aide/config.json and .dir-locals.el "
          '{"reviewPlan": false, "delivery": "applyEdit"} are ignored: the plan waits, %s unchanged on disk' % name,
          read(path))
    log = read(os.path.join(work, "server.log"))
    check("may only make review stricter" in log and "workspace/configuration" in log,
          "the server says the review keys of both were ignored (server.log)",
          "\n".join(l for l in log.splitlines() if "stricter" in l or "workspace/configuration" in l)[-2000:])

    # 4. Approve from the plan buffer (M-x aide-approve of editors/emacs/aide.el).
    keys("C-x")
    keys("o")
    keys("M-x")
    typed("aide-approve")
    keys("Enter")
    text = wait_file(plan_path, lambda t: "**State:** proposed" in t)
    must("Proposed changes" in text, "after M-x aide-approve in the plan, the editor pass proposes the changes", text)
    s, ok = wait(lambda s: "**State:** proposed" in right(s))
    check(ok, "auto-revert shows the plan proposed in its buffer", s)

    # 5. Back in the code: each hunk is a Flymake diagnostic, counted as a
    # note in the code's mode line ("Flymake[errors warnings notes]").
    keys("C-x")
    keys("o")
    s, ok = wait(lambda s: re.search(r"\[0 0 %d\]" % scenario["hunks"], left(s)))
    check(ok, "Flymake counts the %d hunks as notes in the code's mode line" % scenario["hunks"],
          "\n".join(l for l in left(s).split("\n") if "Flymake" in l or "lymake" in l) + "\n" + s)

    # 6. Each step: the hunk's line, its change on C-h ., accept / reject.
    def change_shown(n, step):
        # C-h . shows the diagnostic at point in the *eldoc* window; ElDoc
        # collects it once point has rested on the line (until then it
        # says "ElDoc buffer doesn't exist"), so the user presses it again.
        deadline = time.monotonic() + STEP
        while True:
            keys("C-h")
            keys(".")
            s, ok = wait(lambda s: "AIDE proposal" in s and "→" in s, 2)
            if ok or time.monotonic() > deadline:
                break
        check(ok, "step %d: C-h . on the hunk shows its change (AIDE proposal … → …)" % n, s)

    review(scenario["steps"], goto, code_action, left, change_shown)

    # 7. Save, compare the file on disk.
    keys("C-x")
    keys("C-s")
    got = wait_file(path, lambda t: t == expected)
    must(got == expected, "after C-x C-s the file on disk is the expected result", "got:\n%s\nwant:\n%s" % (got, expected))

    # 8. C-x C-c quits without a question: nothing is left modified (the
    # plan buffer was never edited by the server) and Eglot's process needs
    # no confirmation.
    keys("C-x")
    keys("C-c")
    s, ok = wait(lambda s: tmux("list-panes", "-t", "aide", "-F", "#{pane_dead}", check=False).strip() == "1", 15)
    must(ok, "C-x C-c quits Emacs without a question", s)



main(run)
