"""Turn Aider's chat-history fixture into calls for TestPeerSuites.

Aider's test_find_or_blocks.py reads tests/fixtures/chat-history.md (real
replies, split at "#### " headers) and compares the blocks it finds with
tests/fixtures/chat-history-search-replace-gold.txt. Each reply the gold
file lists becomes one JSON line (see record.js for the shape): a workspace
built from the gold blocks (each block's SEARCH text is in its file; a block
whose SEARCH text an earlier block wrote edits that), the reply as the
answer, and every file as the gold blocks leave it; a reply the gold file
lists with an error is one Aider refuses. Shell blocks are left out.

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
    answer = "".join(section.splitlines(keepends=True)[1:])
    line = {"suite": suite, "test": "%04d %s" % (n, header[:70]), "opts": {}, "answer": answer, "expect": []}
    if not e["blocks"]:
        line["files"] = {}
        line["expect"].append({"field": "success", "how": "be", "value": False})
        print(json.dumps(line))
        continue
    start, now = {}, {}
    for fname, search, replace in e["blocks"]:
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
    for f, s in now.items():
        line["expect"].append({"field": "file:" + f, "how": "be", "value": s})
    print(json.dumps(line))
