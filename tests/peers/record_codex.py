"""Turn Codex's apply_patch scenarios into calls for TestPeerSuites.

A scenario (codex-rs/apply-patch/tests/fixtures/scenarios/NNN_name) is a
folder: input/ (the workspace before), patch.txt (the answer) and expected/
(the workspace after, compared exactly by Codex's own test, which does not
look at the exit status). Each becomes one JSON line (see record.js for the
shape): the input files, the patch as the answer, every expected file's
exact content, every other input file and every other file the patch names
absent (Codex's snapshot holds no file expected/ lacks); a scenario whose
expected state is its input is one where Codex refuses the patch (each such
scenario at the pinned commit is named for the refusal: "rejects",
"fails", "requires"). A scenario that expects part of a failing patch kept
(015) is a state like any other: we apply answers whole (docs/edits.md
"Deliberate differences").

usage: python3 record_codex.py SUITE SCENARIOS_DIR
"""

import json
import os
import re
import sys

suite, root = sys.argv[1], sys.argv[2]


def tree(d):
    out = {}
    if not os.path.isdir(d):
        return out
    for base, _, files in os.walk(d):
        for f in files:
            p = os.path.join(base, f)
            with open(p, encoding="utf-8", newline="") as fh:
                out[os.path.relpath(p, d).replace(os.sep, "/")] = fh.read()
    return out


for name in sorted(os.listdir(root)):
    d = os.path.join(root, name)
    if not os.path.isdir(d) or not os.path.exists(os.path.join(d, "patch.txt")):
        continue
    before, after = tree(os.path.join(d, "input")), tree(os.path.join(d, "expected"))
    with open(os.path.join(d, "patch.txt"), encoding="utf-8", newline="") as fh:
        patch = fh.read()
    line = {"suite": suite, "test": name, "opts": {}, "answer": patch, "files": before, "expect": []}
    if before == after:
        line["expect"].append({"field": "success", "how": "be", "value": False})
    else:
        for p, s in sorted(after.items()):
            line["expect"].append({"field": "file:" + p, "how": "be", "value": s})
        named = set(re.findall(r"^\s*\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)\s*$", patch, re.M))
        for p in sorted((set(before) | named) - set(after)):
            line["expect"].append({"field": "file:" + p, "how": "absent", "value": ""})
    print(json.dumps(line))
