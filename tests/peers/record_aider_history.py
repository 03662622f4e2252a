"""Turn Aider's chat-history fixture into calls for TestPeerSuites.

Aider's test_find_or_blocks.py reads tests/fixtures/chat-history.md (real
replies, split at "#### " headers) and compares the blocks it finds with
tests/fixtures/chat-history-search-replace-gold.txt. Each reply the gold
file lists becomes one JSON line (see record.js for the shape): a workspace
built from the gold blocks (each block's SEARCH text is in its file; a block
whose SEARCH text an earlier block wrote edits that), the reply as the
answer, and every file as the gold blocks leave it; a reply the gold file
lists with an error is one Aider refuses. Shell blocks are left out.

"fragments" names the files the workspace built from SEARCH texts: they
are pieces of Aider's file, not the file, so a verdict of the verifier's
syntax row on them says nothing about the reply (TestPeerSuites counts
such a refusal as not applicable, with its reason).

Two things of the fixture are not the model's reply and are left out or
mapped, each for a stated reason (tests/peers/run.sh):
- a "/run" or "/test" section opens with the command's output and Aider's
  quoted copy of it, which the model read, not wrote (a git diff of other
  files, a test log, a terminal image): the reply starts after that copy,
  and only when every gold block is in what is kept;
- a file name written with backslashes only (a reply written on Windows)
  is the file at the same path with "/": on a POSIX workspace a name
  holding backslashes is a file nobody has;
- a section can hold several of the model's responses (Aider asks again
  after a malformed reply, a failed match, a lint or test failure; each
  response ends with Aider's "> Tokens:" line), each written against the
  file as the previous one left it (and its linter): each response with
  blocks is its own call ("NNNN/K"), its workspace built from its own
  blocks, when every gold block lies inside one response.

usage: python3 record_aider_history.py SUITE CHAT_HISTORY_MD GOLD_TXT
"""

import json
import re
import sys

suite, history, gold = sys.argv[1], sys.argv[2], sys.argv[3]
AT20 = "@" * 20

entries = []  # (header, blocks or None, error)
cur = None
mode = None
buf = []
for line in open(gold, encoding="utf-8").read().split("\n"):
    m = re.match(r"^@@@ (.*) " + AT20 + "$", line)
    if line.startswith("@@@ SEARCH: ") and line.endswith(AT20):
        cur["blocks"].append([line[len("@@@ SEARCH: "):-len(AT20) - 1], "", ""])
        mode, buf = "search", []
        continue
    if line == AT20 and mode == "search":
        cur["blocks"][-1][1] = "\n".join(buf) + ("\n" if buf else "")
        mode, buf = "replace", []
        continue
    if line.startswith("@@@ REPLACE ") and mode == "replace":
        cur["blocks"][-1][2] = "\n".join(buf) + ("\n" if buf else "")
        mode, buf = None, []
        continue
    if line.startswith("@@@ SHELL "):
        mode = "shell"
        cur["shell"] = True
        continue
    if line.startswith("@@@ ENDSHELL "):
        mode = None
        continue
    if m and mode is None:
        cur = {"header": m.group(1), "blocks": [], "error": [], "shell": False}
        entries.append(cur)
        continue
    if mode in ("search", "replace"):
        buf.append(line)
    elif mode is None and cur is not None and line.strip():
        cur["error"].append(line)



def model_reply(header, answer, blocks):
    """The part of a /run or /test section the model wrote (see above)."""
    if not re.match(r"^####\s+/(run|test)\s", header):
        return answer
    # The quoted copy is a run of "> " lines ended by a blank line (a
    # single ">" line may be the raw output's own, as pytest's are).
    lines = answer.split("\n")
    for i in range(3, len(lines)):
        if lines[i] == "" and all(l.startswith(">") for l in lines[i - 3:i]):
            reply = "\n".join(lines[i + 1:])
            if all(s in reply and r in reply for _, s, r in blocks):
                return reply
            break
    return answer


def posix_name(fname):
    if "\\" in fname and "/" not in fname:
        return fname.replace("\\", "/")
    return fname


def responses(answer, blocks):
    """The section split into the model's responses, each with its gold
    blocks: [(text, blocks)], or None when it is one response or a block
    cannot be placed inside one."""
    lines = answer.splitlines(keepends=True)
    turn, at = 0, 0
    turn_of = []  # per line
    for l in lines:
        turn_of.append(turn)
        if l.startswith("> Tokens: "):
            turn += 1
    if turn == 0:
        return None
    offsets = []
    for l in lines:
        offsets.append(at)
        at += len(l)

    def turn_at(pos):
        k = 0
        while k + 1 < len(offsets) and offsets[k + 1] <= pos:
            k += 1
        return turn_of[k] if turn_of else 0

    placed, cursor = {}, 0
    for b in blocks:
        _, search, replace = b
        first = search if search else replace
        if not first:
            return None
        i = answer.find(first, cursor)
        if i < 0:
            return None
        end = i + len(first)
        if search and replace:
            j = answer.find(replace, end)
            if j < 0:
                return None
            end = j + len(replace)
        if turn_at(i) != turn_at(max(i, end - 1)):
            return None
        placed.setdefault(turn_at(i), []).append(b)
        cursor = end
    if len(placed) < 2:
        return None
    out = []
    for k in sorted(placed):
        own = [l for l, t in zip(lines, turn_of) if t == k]
        # Aider's log opens a response ("> " lines: the files added, its
        # quoted copy of a malformed reply it asks to have fixed): the
        # model's text starts after it.
        while own and (own[0].startswith(">") or not own[0].strip()):
            own.pop(0)
        text = "".join(own)
        if not all(b[1] in text and b[2] in text for b in placed[k]):
            return None
        out.append((text, placed[k]))
    return out


def emit(test, answer, blocks):
    line = {"suite": suite, "test": test, "opts": {}, "answer": answer, "expect": []}
    start, now = {}, {}
    for fname, search, replace in blocks:
        fname = posix_name(fname)
        have = now.get(fname)
        if search == "":
            if have is None:
                now[fname] = replace
            else:
                now[fname] = have + replace
            continue
        if have is None or search not in have:
            start[fname] = start.get(fname, "") + search
            now[fname] = (have or "") + search
        now[fname] = now[fname].replace(search, replace, 1)
    line["files"] = start
    line["fragments"] = sorted(start)
    for f, s in now.items():
        line["expect"].append({"field": "file:" + f, "how": "be", "value": s})
    print(json.dumps(line))


content = open(history, encoding="utf-8").read()
sections = re.split(r"(?=####\s)", content)
gi = 0
for n, section in enumerate(sections):
    if "editblock_coder.py" in section or "test_editblock.py" in section or not section.strip():
        continue
    header = section.split("\n")[0].strip()
    if gi >= len(entries) or entries[gi]["header"] != header:
        continue
    # Headers repeat ("#### ...⋮..."): the gold file lists only replies in
    # which Aider found blocks (or failed on one), so a reply with no marker
    # line is not the one listed (unless all it found is shell commands).
    e = entries[gi]
    if not e["shell"] or e["blocks"]:
        if not re.search(r"^(<{5,}|={5,}|>{5,})", section, re.M):
            continue
    gi += 1
    if e["shell"] and not e["blocks"]:
        continue  # shell commands only: no file edit to compare
    answer = model_reply(header, "".join(section.splitlines(keepends=True)[1:]), e["blocks"])
    line = {"suite": suite, "test": "%04d %s" % (n, header[:70]), "opts": {}, "answer": answer, "expect": []}
    if not e["blocks"]:
        line["files"] = {}
        line["expect"].append({"field": "success", "how": "be", "value": False})
        print(json.dumps(line))
        continue
    split = responses(answer, e["blocks"])
    if split is None:
        emit(line["test"], answer, e["blocks"])
        continue
    for k, (text, blocks) in enumerate(split):
        emit("%04d/%d %s" % (n, k + 1, header[:70]), text, blocks)
