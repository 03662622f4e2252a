"""Drives a real Helix in tmux through aide-lsp's whole flow, as a user does
(run it through tests/helix/run.sh).

Helix has no headless mode: it runs in a tmux pane of fixed size; the driver
types keys (tmux send-keys) and reads the screen as text (capture-pane).
Every wait polls the screen until its condition holds; the limits are hang
guards only, so a slow machine just waits longer.

The flow (a scenario of tests/neovim/testdata: scenario.json, the file, the
model fake's replies, the expected result), with reviewPlan on (the default):
  open the file on its AI comment, space a, pick "AIDE: Architect → Editor"
  (arrow keys: Helix's code-action menu does not filter by typing) → once
  the plan is complete, Helix 25.01 opens the plan document beside the code
  (window/showDocument, takeFocus false) at "waiting for approval"; 25.07,
  which would open it in place of the code, shows a message naming space A
  with the code still in view → the documented key (editors/helix/config.toml,
  space A) puts the code on the left and the stable plan path beside it →
  (drift: a line of the file changed and saved) → approve with space a in
  the plan → :reload shows the plan proposed → (stale: a hunk's line typed
  over: no accept / reject for it) → per step: the hunk's line, space a,
  accept / reject / accept all → :w → the file on disk is the expected
  result → (cancel: a new AI comment, the architect, :reload in the plan's
  view shows it streaming, "Discard this session", undo) → :qa quits
  (nothing left modified).

Usage: drive.py HX WORKDIR SCENARIO_DIR   (environment: AIDE_HX_TIMEOUT hang guard per
step in seconds, default 30). Prints "ok - ..." / "FAIL - ..." lines and a
final "N passed, N failed"; exit status 0 only when every check passed. On a
failure the last screen is printed and kept in WORKDIR/screen.txt.
"""
import json
import os
import re
import subprocess
import sys
import time

hx, work = sys.argv[1], sys.argv[2]
ws = os.path.join(work, "ws")
here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(os.path.dirname(here))
scenario_dir = sys.argv[3]
# Helix 25.07 and newer open a shown document in place of the current view:
# the server tells them the plan is ready instead (lsp/profile.go planShow).
_version = re.search(r"(\d+)\.(\d+)", subprocess.run([hx, "--version"], capture_output=True, text=True).stdout)
replaces_view = bool(_version) and (int(_version.group(1)), int(_version.group(2))) >= (25, 7)
WIDTH, HEIGHT = 200, 50
sys.path.insert(0, os.path.join(repo, "tests", "editors"))
import tmuxdrive  # noqa: E402
from tmuxdrive import check, keys, main, must, read, review, screen, tmux, typed, wait, wait_file  # noqa: E402

tmuxdrive.setup("aide-hx", work, float(os.environ.get("AIDE_HX_TIMEOUT", "30")))
STEP = tmuxdrive.STEP


def status_lines(s):
    """The status lines of the views, left to right then top to bottom: the
    parts of lines holding the 'N sel(s)  L:C' counter Helix puts at the
    right of each view's status line (views side by side share a row)."""
    found = []
    for line in s.splitlines():
        for part in line.split("│"):
            if re.search(r"\d+ sels? +\d+:\d+", part):
                found.append(part.strip())
    return found


MENU = re.compile(r"AIDE: (?:Architect|Edit|Approve|Re-plan|Discard|Accept|Reject|Undo)\S*(?: \S+)*")


def menu_items(s):
    """The code-action menu's entries, top to bottom: the screen lines holding
    an AIDE action title (Helix draws the menu without a border; a title has
    single spaces only, so two spaces end it). No code or plan line of the
    scenario holds such a title."""
    items = []
    for line in s.splitlines():
        m = MENU.search(line)
        if m:
            items.append(m.group(0).strip())
    return items


def mode(s):
    """The focused view's mode (NOR, INS, SEL): only its status line shows one."""
    for part in status_lines(s):
        m = re.match(r"(NOR|INS|SEL)\b", part)
        if m:
            return m.group(1)
    return None


def normal():
    """Back to normal mode with no menu open. Escape is sent only when
    needed, and the next key only once the screen shows it took effect: an
    Escape read together with the next key is Alt+key to a terminal program."""
    s = screen()
    if mode(s) == "NOR" and not menu_items(s):
        return
    keys("Escape")
    wait(lambda s: mode(s) == "NOR" and not menu_items(s), 10)


def pick(want, what):
    """space a, then move down to the first entry containing want, Enter."""
    keys("Space")
    keys("a")
    s, items = wait(lambda s: menu_items(s))
    must(bool(items), "space a opens the code-action menu (%s)" % what, s)
    index = next((i for i, t in enumerate(items) if want(t)), None)
    must(index is not None, "the menu offers %s" % what, "\n".join(items))
    for _ in range(index):
        keys("Down")
    keys("Enter")
    wait(lambda s: not menu_items(s), 5)
    return items[index]


def architect(task):
    """space a on the cursor's AI comment and pick the architect action for
    task (aide attaches in the background: retry until its actions show)."""
    deadline = time.monotonic() + STEP
    while True:
        normal()
        keys("Space")
        keys("a")
        s, items = wait(lambda s: menu_items(s), 3)
        if any(t.startswith("AIDE: Architect") for t in items) or time.monotonic() > deadline:
            break
        normal()
        time.sleep(0.3)
    title = "AIDE: Architect → Editor: " + task
    must(any(t.startswith(title) for t in items), 'space a on the AI comment offers "%s"' % title, s)
    for _ in range(next(i for i, t in enumerate(items) if t.startswith(title))):
        keys("Down")
    keys("Enter")


def command(text):
    normal()
    typed(text)
    keys("Enter")


def goto(match):
    """Puts the cursor on the first line holding match (search from the top;
    Helix searches a regex, so match is escaped)."""
    normal()
    keys("g")
    keys("g")
    typed("/" + re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", match))
    keys("Enter")


def left(s):
    """The left view of a split screen (the code)."""
    return "\n".join(l.split("│")[0] for l in s.splitlines())


def right(s):
    """The right view of a split screen (the plan)."""
    return "\n".join(l.split("│", 1)[1] for l in s.splitlines() if "│" in l)


def insert(text):
    """Types text in insert mode (entered by the key just sent) and goes
    back to normal mode, each step waited for on screen so no key lands in
    the wrong mode."""
    s, ok = wait(lambda s: mode(s) == "INS")
    must(ok, "Helix is in insert mode to type %r" % text, s)
    typed(text)
    s, ok = wait(lambda s: text in s)
    must(ok, "the typed text %r is on screen" % text, s)
    keys("Escape")
    s, ok = wait(lambda s: mode(s) == "NOR")
    must(ok, "Helix is back in normal mode", s)


def retype_line(match, text):
    """The user selects the line holding match and types text over it."""
    goto(match)
    keys("x")  # select the line,
    keys("_")  # without its line break,
    keys("c")  # and change it: insert mode
    insert(text)



def run():
    scenario = json.load(open(os.path.join(scenario_dir, "scenario.json"), encoding="utf-8"))
    expected = read(os.path.join(scenario_dir, scenario["expected"]))
    name = scenario["file"]
    path = os.path.join(ws, name)
    original = read(path)
    # 1. Helix on the file, cursor on the AI comment.
    tmux("new-session", "-d", "-s", "aide", "-x", str(WIDTH), "-y", str(HEIGHT), "-c", ws,
         "exec %s --log %s/helix.log %s:%d" % (hx, work, name, scenario["aiCommentLine"]))
    tmux("set-option", "-t", "aide", "remain-on-exit", "on")
    first_line = original.splitlines()[0]
    s, ok = wait(lambda s: first_line in s and name in s)
    must(ok, "Helix shows " + name, s)

    # 2. The architect action from the code-action menu, picked with the
    # arrow keys.
    architect(scenario["task"])

    # 3. Helix 25.01: the plan document is shown (window/showDocument,
    # takeFocus false: a split beside the code) and reaches "waiting for
    # approval" on screen. Helix 25.07 would open it in place of the code
    # whatever takeFocus says, so the server tells it instead: a message
    # naming space A, the code still the view, the cursor in it.
    if replaces_view:
        s, ok = wait(lambda s: "AIDE plan ready" in s)
        must(ok, "Helix 25.07 is told the plan is ready (window/showMessage)", s)
        m = re.search(r"\.aide/plans/(\S+)\.md", s)
        must(m and "space A" in s, "the message names space A and the plan file", s)
        session = m.group(1)
        sl = status_lines(s)
        check(first_line in s and len(sl) == 1 and name in sl[0],
              "the code is still the only view, the cursor in it", "\n".join(sl) + "\n" + s)
        plan_path = os.path.join(ws, ".aide", "plans", session + ".md")
        text = wait_file(plan_path, lambda t: "waiting for approval" in t)
        must("waiting for approval" in text, 'the plan file is "waiting for approval" when the message comes', text)
    else:
        s, ok = wait(lambda s: "# AIDE session" in s)
        must(ok, "Helix opens the plan document (window/showDocument)", s)
        session = re.search(r"# AIDE session (\S+)", s).group(1)
        plan_path = os.path.join(ws, ".aide", "plans", session + ".md")
        s, ok = wait(lambda s: any("%s.md" % session in l for l in status_lines(s)))
        check(ok, "the plan view is .aide/plans/%s.md" % session, "\n".join(status_lines(s)))
        s, ok = wait(lambda s: "waiting for approval" in s and scenario["planText"] in s)
        must(ok, 'the plan on screen reaches "waiting for approval"',
             "the plan buffer does not follow the plan file (contract §5)\n" + s)
        check(first_line in left(s), "the plan opens beside the code", s)

    # 3b. The repository's .aide/config.json asked for no plan approval and
    # applyEdit (run.sh): ignored, so the plan waits and the file is as it
    # was; the server said why (contract §3).
    check(read(path) == original, "the repository's .aide/config.json "
          '{"reviewPlan": false, "delivery": "applyEdit"} is ignored: the plan waits, %s unchanged on disk' % name,
          read(path))
    check("may only make review stricter" in read(os.path.join(work, "server.log")),
          "the server says the repository's review keys were ignored (server.log)")

    # 4. The documented key (editors/helix/config.toml): the code on the
    # left, the newest plan (.aide/plans/latest.md) beside it.
    keys("Space")
    keys("A")
    def beside(s):
        sl = status_lines(s)
        return len(sl) == 2 and name in sl[0] and "latest.md" in sl[1] and first_line in left(s) \
            and scenario["planText"] in s
    s, ok = wait(beside)
    must(ok, "after space A the plan and the code are on screen together: %s left, "
         ".aide/plans/latest.md right" % name, "\n".join(status_lines(s)) + "\n" + s)
    plan_view = "latest.md"

    # 5. Drift: while the plan waits, the user changes a line of the file the
    # plan is about and saves it (left view).
    if scenario.get("driftEdit"):
        keys("C-w")
        keys("h")
        retype_line(scenario["driftEdit"]["match"], scenario["driftEdit"]["text"])
        command(":w")
        wait_file(path, lambda t: scenario["driftEdit"]["text"] in t)
        keys("C-w")
        keys("l")

    # 6. Approve in the plan view (right).
    title = pick(lambda t: t.startswith("AIDE: Approve"), '"AIDE: Approve the plan" in %s' % plan_view)
    text = wait_file(plan_path, lambda t: "Proposed changes" in t)
    must("Proposed changes" in text, "after approving, the editor pass proposes the changes", text)
    if scenario.get("driftEdit"):
        check("## Drift" in text, 'drift: the plan document has a "## Drift" section', text)
    # The plan view follows the session when re-read: the server never edits
    # the buffer (so :qa is never refused), it rewrites the file.
    wait_file(plan_path, lambda t: "**State:** proposed" in t)
    command(":reload")
    s, ok = wait(lambda s: "**State:** proposed" in right(s))
    check(ok, "after :reload the plan view shows the session's newest state (proposed)", s)

    # 7. Back to the code view (left). Stale: typing over a hunk's line; then
    # each step: find the hunk's line, space a, accept / reject.
    normal()
    keys("C-w")
    keys("h")
    if scenario.get("staleEdit"):
        retype_line(scenario["staleEdit"]["match"], scenario["staleEdit"]["text"])
        goto(scenario["staleEdit"]["text"])
        keys("Space")
        keys("a")
        # The task-less actions are offered everywhere, so the menu shows
        # whenever the server has answered.
        s, items = wait(lambda s: menu_items(s))
        normal()
        check(items and not any(t.startswith("AIDE: Accept h") or t.startswith("AIDE: Reject h") for t in items),
              "stale: the hunk typed over offers no accept / reject any more", s)
        text = wait_file(plan_path, lambda t: "stale" in t)
        check("stale" in text, "stale: the plan document marks the hunk stale", text)
    review(scenario["steps"], goto, pick, left)

    # 8. Save, compare the file on disk.
    command(":w")
    got = wait_file(path, lambda t: t == expected)
    must(got == expected, "after :w the file on disk is the expected result", "got:\n%s\nwant:\n%s" % (got, expected))

    # 8b. Undo (contract §4 aide.undo): on a line the session changed, space a
    # offers "AIDE: Undo <task>"; the reverts come back as proposals
    # (diagnostics with accept / reject); "Accept all", then :w, and the
    # file is as it was before the session.
    if scenario.get("undo"):
        match = scenario["undo"]["match"]

        def menu_offering(want, what):
            """space a on match until the menu offers want (the server's
            answer may come after the menu first shows), then picks it."""
            deadline = time.monotonic() + STEP
            while True:
                goto(match)
                keys("Space")
                keys("a")
                s, items = wait(lambda s: menu_items(s), 3)
                if any(want(t) for t in items) or time.monotonic() > deadline:
                    break
                normal()
                time.sleep(0.3)
            must(any(want(t) for t in items), "undo: the menu on %r offers %s" % (match, what), s)
            index = next(i for i, t in enumerate(items) if want(t))
            for _ in range(index):
                keys("Down")
            keys("Enter")
            wait(lambda s: not menu_items(s), 5)
            return items[index]

        title = menu_offering(lambda t: t.startswith("AIDE: Undo ") and not t.endswith("only)"),
                              '"AIDE: Undo <task>" (a line the session changed)')
        check(True, "undo: the menu on %r offers %s" % (match, title))
        # The reverts are proposed like any proposal: accept them all.
        menu_offering(lambda t: t.startswith("AIDE: Accept all"), "the reverts (Accept all)")
        s, ok = wait(lambda s: match not in left(s))
        check(ok, "undo: accepting the reverts changed the buffer", s)
        command(":w")
        got = wait_file(path, lambda t: t == original)
        check(got == original, "undo: after :w the file on disk is as it was before the session",
              "got:\n%s\nwant:\n%s" % (got, original))

    # 9. Cancel while the architect streams: a new AI comment, the architect
    # action; the plan is shown only once complete, so the user goes to the
    # plan view (latest.md, the newest session) and :reload shows the plan
    # streaming (the model fake stalls); "Discard this session" from its
    # code actions; back in the code, undo the comment.
    if scenario.get("cancelTask"):
        goto(first_line)
        keys("o")
        insert("// AI: " + scenario["cancelTask"])
        architect(scenario["cancelTask"])
        latest = os.path.join(ws, ".aide", "plans", "latest.md")
        wait_file(latest, lambda t: "planning" in t and session not in t)
        normal()
        keys("C-w")
        keys("l")
        command(":reload")
        def new_session(s):
            ids = [i for i in re.findall(r"# AIDE session (\S+)", right(s)) if i != session]
            return ids[0] if ids and "planning" in right(s) else None
        s, second = wait(new_session)
        must(second, "cancel: after :reload the plan view shows the new session, planning", s)
        # The plan document offers "Discard this session" while it streams
        # (Helix 25.01's :lsp-workspace-command takes no argument).
        title = pick(lambda t: t.startswith("AIDE: Discard"), '"AIDE: Discard this session" in the streaming plan')
        check(title.endswith("session " + second), "cancel: the action names the session latest.md shows", title)
        text = wait_file(os.path.join(ws, ".aide", "plans", second + ".md"), lambda t: "**State:** cancelled" in t)
        check("**State:** cancelled" in text, "cancel: discarding while the architect streams ends the session "
              "(the plan says cancelled)", text)
        # A plan complete (here: cancelled) is shown: Helix 25.01 opens it in
        # a split of its own (the cursor goes there); 25.07 is told, and
        # :reload in the plan view shows it.
        if replaces_view:
            command(":reload")
        s, ok = wait(lambda s: "# AIDE session " + second in s and "**State:** cancelled" in s)
        check(ok, "cancel: the plan on screen says cancelled", s)
        normal()
        for _ in range(2):  # back to the code, the leftmost view
            keys("C-w")
            keys("h")
        s, ok = wait(lambda s: (status_lines(s) or [""])[0].startswith("NOR") and name in status_lines(s)[0])
        must(ok, "cancel: the cursor is back in %s" % name, s)
        keys("u")  # the AI comment goes again: the buffer is as saved
        s, ok = wait(lambda s: "[+]" not in (status_lines(s) or [""])[0])
        check(ok, "cancel: undo leaves %s as saved" % name, s)

    # 10. :qa quits: nothing is left modified.
    command(":qa")
    s, ok = wait(lambda s: tmux("list-panes", "-t", "aide", "-F", "#{pane_dead}", check=False).strip() == "1", 10)
    must(ok, ":qa quits Helix (no buffer left modified)",
         "a plan buffer left modified is the old bug (Helix's dirty plan buffer)\n" + s)



main(run)
