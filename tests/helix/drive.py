"""Drives a real Helix in tmux through aide-lsp's whole flow, as a user does
(run it through tests/helix/run.sh).

Helix has no headless mode: it runs in a tmux pane of fixed size; the driver
types keys (tmux send-keys) and reads the screen as text (capture-pane).
Every wait polls the screen until its condition holds; the limits are hang
guards only, so a slow machine just waits longer.

The flow (the scenario of tests/neovim/testdata/rename, with reviewPlan on):
  open calc.go on its AI comment, space a, pick "AIDE: Architect → Editor"
  (arrow keys: Helix's code-action menu does not filter by typing) → Helix
  opens the plan document (window/showDocument) → the plan reaches "waiting
  for approval" → the documented key (editors/helix/config.toml, space A)
  brings the code back and opens the stable plan path beside it → the plan
  and the code are on screen together → approve with space a in the plan →
  on each hunk ]d, space a, accept / reject / accept → :w → the file on disk
  is the expected result → :qa quits (nothing left modified).

Usage: drive.py HX WORKDIR   (environment: AIDE_HX_TIMEOUT hang guard per
step in seconds, default 30). Prints "ok - ..." / "FAIL - ..." lines and a
final "N passed, N failed"; exit status 0 only when every check passed. On a
failure the last screen is printed and kept in WORKDIR/screen.txt.
"""
import os
import re
import subprocess
import sys
import time

hx, work = sys.argv[1], sys.argv[2]
ws = os.path.join(work, "ws")
here = os.path.dirname(os.path.abspath(__file__))
repo = os.path.dirname(os.path.dirname(here))
scenario_dir = os.path.join(repo, "tests", "neovim", "testdata", "rename")
STEP = float(os.environ.get("AIDE_HX_TIMEOUT", "30"))
sock = "aide-hx-%d" % os.getpid()
WIDTH, HEIGHT = 200, 50
passed = failed = 0


class Abort(Exception):
    pass


def tmux(*args, check=True):
    return subprocess.run(["tmux", "-L", sock] + list(args), check=check, capture_output=True, text=True).stdout


def screen():
    return tmux("capture-pane", "-p", "-t", "aide", check=False)


def keys(*k):
    tmux("send-keys", "-t", "aide", *k)


def typed(text):
    tmux("send-keys", "-t", "aide", "-l", text)


def out(s):
    print(s, flush=True)


def check(ok, name, detail=None):
    global passed, failed
    if ok:
        passed += 1
        out("ok - " + name)
    else:
        failed += 1
        out("FAIL - " + name + ("\n  " + detail if detail else ""))
    return ok


def must(ok, name, detail=None):
    if not check(ok, name, detail):
        raise Abort()


def wait(cond, limit=None):
    """Polls cond(screen) until true; returns the last screen and the result."""
    deadline = time.monotonic() + (limit or STEP)
    while True:
        s = screen()
        r = cond(s)
        if r or time.monotonic() > deadline:
            return s, r
        time.sleep(0.1)


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def status_lines(s):
    """The status lines of the views: the lines holding a mode or a file name
    with the '1 sel' / 'sels' counter Helix puts at the right."""
    return [l for l in s.splitlines() if re.search(r"\d+ sels? +\d+:\d+", l)]


MENU = re.compile(r"AIDE: (?:Architect|Edit|Approve|Re-plan|Discard|Accept|Reject)\S*(?: \S+)*")


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


def run():
    expected = read(os.path.join(scenario_dir, "expected.go"))
    path = os.path.join(ws, "calc.go")
    original = read(path)
    # 1. Helix on calc.go, cursor on the AI comment (line 3).
    tmux("new-session", "-d", "-s", "aide", "-x", str(WIDTH), "-y", str(HEIGHT), "-c", ws,
         "exec %s --log %s/helix.log calc.go:3" % (hx, work))
    tmux("set-option", "-t", "aide", "remain-on-exit", "on")
    s, ok = wait(lambda s: "package calc" in s and "calc.go" in s)
    must(ok, "Helix shows calc.go", s)

    # 2. The architect action from the code-action menu (aide attaches in
    # the background: retry until its actions are there).
    deadline = time.monotonic() + STEP
    while True:
        keys("Space")
        keys("a")
        s, items = wait(lambda s: menu_items(s), 3)
        if any(t.startswith("AIDE: Architect") for t in items) or time.monotonic() > deadline:
            break
        keys("Escape")
        time.sleep(0.3)
    must(any(t.startswith("AIDE: Architect → Editor: rename the function add to sum") for t in items),
         'space a on the AI comment offers "AIDE: Architect → Editor: rename the function add to sum"', s)
    index = next(i for i, t in enumerate(items) if t.startswith("AIDE: Architect"))
    for _ in range(index):
        keys("Down")
    keys("Enter")

    # 3. The plan document is shown (window/showDocument) and reaches
    # "waiting for approval" on screen, streamed in by the server.
    s, ok = wait(lambda s: "# AIDE session" in s)
    must(ok, "Helix opens the plan document (window/showDocument)", s)
    m = re.search(r"# AIDE session (\S+)", s)
    session = m.group(1)
    check(any(".aide/plans/%s.md" % session in l or "%s.md" % session in l for l in status_lines(s)),
          "the plan view is .aide/plans/%s.md" % session, "\n".join(status_lines(s)))
    s, ok = wait(lambda s: "waiting for approval" in s and "rename the function `add` to `sum`" in s)
    must(ok, 'the plan on screen reaches "waiting for approval"',
         "the plan buffer does not follow the plan file (issue 18)\n" + s)
    check("package calc" not in s,
          "(measured) Helix opens a shown document in place of the code (takeFocus true)", s)

    # 4. The documented key (editors/helix/config.toml): the code comes back
    # and the newest plan (.aide/plans/latest.md) opens beside it.
    keys("Space")
    keys("A")
    s, ok = wait(lambda s: len(status_lines(s)) == 2 and "package calc" in s and "## Plan" in s)
    must(ok, "after space A the plan and the code are on screen together (two views side by side)",
         "issue 18's stable plan path .aide/plans/latest.md (%s)\n%s" % (
             "missing" if read(os.path.join(ws, ".aide/plans/latest.md")) is None else "present", s))
    sl = status_lines(s)
    check(any("calc.go" in l and "latest.md" in l for l in sl) or
          (any("calc.go" in l for l in sl) and any("latest.md" in l for l in sl)) or
          ("calc.go" in sl[0] and "latest.md" in sl[0]),
          "the views are calc.go and .aide/plans/latest.md", "\n".join(sl))

    # 5. Approve from the stable plan path (the server maps it to the session).
    pick(lambda t: t.startswith("AIDE: Approve"), '"AIDE: Approve the plan" in the plan')
    plan_path = os.path.join(ws, ".aide", "plans", session + ".md")
    deadline = time.monotonic() + STEP
    while "Proposed changes" not in (read(plan_path) or "") and time.monotonic() < deadline:
        time.sleep(0.1)
    must("Proposed changes" in (read(plan_path) or ""), "after approving, the editor pass proposes the changes",
         read(plan_path))
    # Back to the code view (left); each hunk: find its line (/), space a,
    # accept / reject it; an accepted hunk shows in the buffer.
    keys("Escape")
    keys("C-w")
    keys("h")
    steps = [("Accept", "func add", "func sum"), ("Reject", 'Greeting = "hello"', None), ("Accept", "return add", "return sum")]
    for n, (verb, match, after) in enumerate(steps, 1):
        keys("Escape")
        keys("g")
        keys("g")
        typed("/" + match)
        keys("Enter")
        title = pick(lambda t, verb=verb: t.startswith("AIDE: %s h" % verb), "%s for the hunk on %r (step %d)" % (verb.lower(), match, n))
        if after:
            s, ok = wait(lambda s, after=after: after in s)
            check(ok, "step %d: %s applied the hunk to the buffer (%s)" % (n, title, after), s)
        else:
            check(True, "step %d: %s" % (n, title))
    # 6. Save, compare the file on disk.
    typed(":w")
    keys("Enter")
    deadline = time.monotonic() + STEP
    while read(path) == original and time.monotonic() < deadline:
        time.sleep(0.1)
    must(read(path) == expected, "after :w the file on disk is the expected result",
         "got:\n%s\nwant:\n%s" % (read(path), expected))
    # 7. :qa quits: nothing is left modified.
    keys("Escape")
    typed(":qa")
    keys("Enter")
    s, ok = wait(lambda s: "Pane is dead" in s or tmux("list-panes", "-t", "aide", "-F", "#{pane_dead}", check=False).strip() == "1", 10)
    must(ok, ":qa quits Helix (no buffer left modified)",
         "a plan buffer left modified is issue 18 (Helix's dirty plan buffer)\n" + s)


def main():
    status = 1
    try:
        run()
    except Abort:
        pass
    except Exception as e:  # a bug of the driver: report it as a failure
        check(False, "the driver ran without an error", repr(e))
    s = screen()
    if failed:
        with open(os.path.join(work, "screen.txt"), "w", encoding="utf-8") as f:
            f.write(s)
        out("--- last screen (also in %s/screen.txt) ---\n%s" % (work, s))
    else:
        status = 0
    tmux("kill-server", check=False)
    out("%d passed, %d failed" % (passed, failed))
    sys.exit(0 if status == 0 and failed == 0 and passed > 0 else 1)


main()
