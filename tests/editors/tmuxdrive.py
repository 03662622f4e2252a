"""The shared half of the drivers that run a real terminal editor in tmux
(tests/helix/drive.py, tests/emacs/drive.py), as a user does: keys in with
tmux send-keys, the screen read back as text with capture-pane, every check
printed as "ok - ..." / "FAIL - ..." and counted for the final
"N passed, N failed" line the harnesses (tests/editors/harness.sh) tally.

A driver calls setup() first, then uses the functions below, then main(run).
Every wait polls until its condition holds; its limit (the per-step hang
guard given to setup) only ends a hang, so a slow machine just waits longer.
"""
import os
import subprocess
import sys
import time

STEP = 30.0
sock = "aide-%d" % os.getpid()
work = "."
passed = failed = 0


class Abort(Exception):
    """Raised by must(): the flow cannot go on."""


def setup(name, workdir, step):
    """name: the tmux server's socket prefix; workdir: where screen.txt is
    kept on a failure; step: the per-step hang guard in seconds."""
    global sock, work, STEP
    sock, work, STEP = "%s-%d" % (name, os.getpid()), workdir, step


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


def wait_file(path, cond, limit=None):
    deadline = time.monotonic() + (limit or STEP)
    while not cond(read(path) or "") and time.monotonic() < deadline:
        time.sleep(0.1)
    return read(path) or ""


def main(run):
    """Runs the flow, prints the last screen on a failure (kept in
    WORKDIR/screen.txt) and the counts, ends the tmux server and exits 0
    only when every check passed."""
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


def review(steps, goto, pick, code, on_hunk=None):
    """Carries out a scenario's review steps ({"do": "accept" | "reject" |
    "accept all", "match": a line of the hunk}): goto(match) puts the cursor
    on the hunk, on_hunk(n, step) (optional) checks what the editor shows
    there, pick(want, what) picks the first code action whose title want()
    accepts and returns it; an accepted hunk must leave code(screen), the
    code's part of the screen, without the matched line."""
    for n, step in enumerate(steps, 1):
        verb = step["do"]
        goto(step["match"])
        if on_hunk:
            on_hunk(n, step)
        if verb == "accept all":
            want = lambda t: t.startswith("AIDE: Accept all")  # noqa: E731
        else:
            want = lambda t, v=verb.capitalize(): t.startswith("AIDE: %s h" % v)  # noqa: E731
        title = pick(want, "%s for the hunk on %r (step %d)" % (verb, step["match"], n))
        if verb.startswith("accept"):
            s, ok = wait(lambda s, m=step["match"]: m not in code(s))
            check(ok, "step %d: %s changed the buffer" % (n, title), s)
        else:
            check(True, "step %d: %s" % (n, title))
