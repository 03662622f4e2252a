"""Run one of Aider's own unit test files with Aider replaced by a recorder.

Prints one JSON line per parse or match call the test makes, in the shape
tests/editcorpus's TestPeerSuites reads (see record.js): the answer text,
the file(s) it applies to and what the test asserts about the result.
Aider's parse tests assert the blocks a reply is read as; the workspace is
built from them (each block's SEARCH text is the file, its REPLACE text
what the file becomes), so "as Aider expects" means the reply applies the
way Aider reads it. Tests that drive a whole Coder are record_aider_coder.py's.

usage: python3 record_aider.py SUITE TESTFILE
"""

import json
import os
import sys
import tempfile
import types
import unittest

import aider_stub

suite, test_file = sys.argv[1], sys.argv[2]
calls = []
current = {"test": ""}


class Tag(str):
    """A result the test will assert on."""


def new_call(kind, **kw):
    c = {"kind": kind, "test": current["test"], "expect": None, **kw}
    calls.append(c)
    return c


def find_original_update_blocks(content, fence=None, valid_fnames=None):
    new_call("blocks", answer=content)
    return iter(())


def replace_most_similar_chunk(whole, part, replace):
    c = new_call("chunk", whole=whole, part=part, replace=replace)
    t = Tag("")
    t.call = c
    return t


class TagList(list):
    """A part of a result the test will assert on."""


class RecEdits(list):
    """find_diffs' result: edits[i][0] (the file) and edits[i][1] (the hunk)
    are recorded when the test asserts on them."""

    def __init__(self, call):
        super().__init__()
        self.call = call

    def __getitem__(self, i):
        call = self.call

        class Pair:
            def __getitem__(self, part):
                t = Tag("") if part == 0 else TagList()
                t.rec = (call, i, part)
                return t

        return Pair()


def find_diffs(content):
    c = new_call("udiff", answer=content, parts={})
    return RecEdits(c)


def _stub(*a, **k):
    return types.SimpleNamespace()


aider_stub.install(
    editblock={
        "find_original_update_blocks": find_original_update_blocks,
        "replace_most_similar_chunk": replace_most_similar_chunk,
        "find_filename": lambda *a, **k: None,
        "strip_quoted_wrapping": lambda *a, **k: None,
    },
    find_diffs=find_diffs, coder_create=_stub, whole_file_coder=_stub,
    input_output=_stub, model=_stub)


def last_open():
    for c in reversed(calls):
        if c["test"] == current["test"] and c["expect"] is None:
            return c
    return None


def assert_equal(self, first, second, msg=None):
    rec = getattr(first, "rec", None)
    if rec is not None:
        call, i, part = rec
        call["parts"].setdefault(i, [None, None])[part] = second
        call["expect"] = {"blocks": [tuple(v) for _, v in sorted(call["parts"].items())]}
        return
    if isinstance(first, Tag):
        first.call["expect"] = {"result": second}
        return
    c = last_open()
    if c is not None and c["kind"] in ("blocks", "udiff") and isinstance(second, list):
        c["expect"] = {"blocks": second}


class _Raises:
    def __init__(self):
        self.n = len(calls)
        self.exception = ValueError("")

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        for c in calls[self.n:]:
            c["expect"] = {"fail": True}
        return True


unittest.TestCase.assertEqual = assert_equal
unittest.TestCase.assertRaises = lambda self, *a, **k: _Raises()
for m in ("assertIn", "assertTrue", "assertFalse", "assertNotIn", "assertIsNone"):
    setattr(unittest.TestCase, m, lambda self, *a, **k: None)

src = open(test_file).read()
os.chdir(tempfile.mkdtemp())  # whatever the tests write lands in a scratch folder
ns = {"__name__": "peer_test"}
exec(compile(src, test_file, "exec"), ns)
for obj in list(ns.values()):
    if isinstance(obj, type) and issubclass(obj, unittest.TestCase) and obj is not unittest.TestCase:
        for name in sorted(dir(obj)):
            if not name.startswith("test"):
                continue
            current["test"] = name
            inst = obj(name)
            try:
                inst.setUp()
                getattr(inst, name)()
            except Exception:
                pass

out = []
for c in calls:
    e = c["expect"]
    if e is None:
        continue
    line = {"suite": suite, "test": c["test"], "opts": {}, "expect": []}
    if c["kind"] == "chunk":
        res = e["result"]
        line["files"] = {"file.txt": c["whole"]}
        line["answer"] = "file.txt\n```\n<<<<<<< SEARCH\n%s=======\n%s>>>>>>> REPLACE\n```\n" % (
            c["part"] if c["part"].endswith("\n") or not c["part"] else c["part"] + "\n",
            c["replace"] if c["replace"].endswith("\n") or not c["replace"] else c["replace"] + "\n")
        if res is None:
            line["expect"].append({"field": "success", "how": "be", "value": False})
        else:
            line["expect"].append({"field": "file:file.txt", "how": "be", "value": res})
    elif "fail" in e:
        line["answer"] = c["answer"]
        line["files"] = {}
        line["expect"].append({"field": "success", "how": "be", "value": False})
    else:
        files, want = {}, {}
        for b in e["blocks"]:
            if c["kind"] == "udiff":
                fname, hunk = b[0], b[1]
                before = "".join(l[1:] for l in hunk if l[:1] in (" ", "-"))
                after = "".join(l[1:] for l in hunk if l[:1] in (" ", "+"))
            else:
                if len(b) < 3 or b[0] is None:
                    continue
                fname, before, after = b[0], b[1], b[2]
            if fname == "/dev/null":
                continue
            files[fname] = files.get(fname, "") + before
            want[fname] = want.get(fname, "") + after
        line["answer"] = c["answer"]
        line["files"] = {f: s for f, s in files.items() if s}
        for f, s in want.items():
            line["expect"].append({"field": "file:" + f, "how": "be", "value": s})
    out.append(line)
for l in out:
    print(json.dumps(l))
