"""Run Aider's tests that drive a whole Coder, with the Coder replaced by a recorder.

Aider's test_wholefile.py, and the tests of test_editblock.py that build a
Coder, write files, hand the Coder a model reply (partial_response_content,
or a mocked send() that coder.run() calls) and then read the files back.
Here Coder, WholeFileCoder, InputOutput and Model are stubs: when the test
gives the reply, one call is recorded, and it prints one JSON line per call
in the shape tests/editcorpus's TestPeerSuites reads (see record.js):

- "files": what the test wrote before the reply (name -> content). A file
  the test made outside its folder (tempfile.mkstemp, which the reply names
  by its base name) is placed at its base name in the workspace;
- "answer": the reply, as the test gives it;
- "chat": the files the test put in Aider's chat (fnames). Aider reads a
  reply against that list; our binary sees the workspace, not a chat, so
  the list is stated, not used;
- "expect": what the test asserts about the files afterwards: a file read
  back and compared ("file:NAME" be CONTENT), a file that must not exist
  ("absent");
- "notApplicable": set, with its reason, when the test asserts Aider's
  plumbing and not the reply's reading (live rendering of a partial reply,
  a dry run, the user declining Aider's prompt).

The helpers the other tests of test_editblock.py call (find_filename,
find_original_update_blocks, ...) are record_aider.py's; here they stop
the test, so nothing is counted twice.

usage: python3 record_aider_coder.py SUITE TESTFILE
"""

import builtins
import json
import os
import pathlib
import shutil
import sys
import tempfile
import unittest

import aider_stub

suite, test_file = sys.argv[1], sys.argv[2]
calls = []
current = {"test": "", "writes": []}


class NotACoderTest(Exception):
    """Raised by the helpers record_aider.py converts."""


def name_of(p):
    """The workspace name of a path the test used: relative to its folder,
    or the base name for a file it made elsewhere."""
    full = os.path.realpath(os.fspath(p))
    here = os.path.realpath(os.getcwd())
    if full.startswith(here + os.sep):
        return os.path.relpath(full, here).replace(os.sep, "/")
    return os.path.basename(full)


class FileTag(str):
    """A file's content read back after the reply: what the test asserts on."""


class ExistsTag(int):
    """Path.exists() after the reply."""


def tagged(cls, value, path):
    t = cls(value)
    t.rec = (calls[-1], name_of(path))
    return t


def after_reply():
    return calls and calls[-1]["test"] == current["test"]


_open = builtins.open


class _Reader:
    def __init__(self, f, path):
        self.f, self.path = f, path

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.f.close()
        return False

    def read(self, *a):
        return tagged(FileTag, self.f.read(*a), self.path)

    def __getattr__(self, k):
        return getattr(self.f, k)


def rec_open(file, mode="r", *a, **k):
    f = _open(file, mode, *a, **k)
    if isinstance(file, (str, os.PathLike)):
        if any(c in mode for c in "wax+"):
            current["writes"].append(os.path.realpath(os.fspath(file)))
        elif "b" not in mode and after_reply():
            return _Reader(f, file)
    return f


builtins.open = rec_open
_read_text, _write_text, _exists = pathlib.Path.read_text, pathlib.Path.write_text, pathlib.Path.exists


def rec_read_text(self, *a, **k):
    if not after_reply():
        return _read_text(self, *a, **k)
    # A file the reply was to create is read back as the test asserts it.
    s = _read_text(self, *a, **k) if _exists(self) else ""
    return tagged(FileTag, s, self)


def rec_write_text(self, *a, **k):
    current["writes"].append(os.path.realpath(os.fspath(self)))
    return _write_text(self, *a, **k)


def rec_exists(self, *a, **k):
    e = _exists(self, *a, **k)
    return tagged(ExistsTag, e, self) if after_reply() else e


pathlib.Path.read_text = rec_read_text
pathlib.Path.write_text = rec_write_text
pathlib.Path.exists = rec_exists

# Aider's fences, in the order its Coder tries them (base_coder.py at the pin).
FENCES = [("```", "```"), ("````", "````")] + [
    ("<%s>" % n, "</%s>" % n) for n in ("source", "code", "pre", "codeblock", "sourcecode")]


class InputOutput:
    def __init__(self, yes=None, dry_run=False, **k):
        self.yes, self.dry_run = yes, dry_run


class Model:
    def __init__(self, name, *a, **k):
        self.name = name


class StubCoder:
    def __init__(self, edit_format, io=None, fnames=None, dry_run=False, **k):
        self.edit_format = edit_format
        self.io = io or InputOutput()
        self.fnames = [os.fspath(f) for f in (fnames or [])]
        self.dry_run = dry_run
        self.fence = FENCES[0]
        self.partial_response_content = ""
        self.partial_response_function_call = None

    def choose_fence(self):
        # The first fence no line of the chat files starts with (Aider
        # builds the test's reply with it).
        lines = []
        for f in self.fnames:
            lines += _read_text(pathlib.Path(f)).splitlines()
        for fo, fc in FENCES:
            if not any(l.startswith(fo) or l.startswith(fc) for l in lines):
                self.fence = (fo, fc)
                return
        self.fence = FENCES[0]

    def reply(self, na=None):
        """Record the reply the test has given, with the files as they are."""
        files = {}
        for p in current["writes"] + [os.path.realpath(f) for f in self.fnames]:
            if os.path.isfile(p):
                files[name_of(p)] = _read_text(pathlib.Path(p), encoding="utf-8")
        if self.dry_run or self.io.dry_run:
            na = na or ("a dry run: Aider's option not to write the edits it reads, "
                        "not a reading of the reply")
        if self.io.yes is False:
            na = na or ("the user declines: InputOutput(yes=False) answers no to Aider's "
                        "prompt to create a file not in the chat (our edits are proposals "
                        "the user reviews)")
        calls.append({"test": current["test"], "format": self.edit_format,
                      "answer": self.partial_response_content, "files": files,
                      "chat": [name_of(f) for f in self.fnames], "expect": [], "na": na})

    def apply_updates(self):
        self.reply()
        return set()

    def run(self, with_message=None, **k):
        self.send([{"role": "user", "content": with_message}])
        self.reply()

    def render_incremental_response(self, final):
        self.reply("live rendering: render_incremental_response shows a partial reply, "
                   "it writes no file")
        return ""

    def get_edits(self, mode="update"):
        self.reply("live rendering: get_edits(mode=\"diff\") renders the diff of a "
                   "partial reply, it writes no file")
        return ""


def stop(*a, **k):
    raise NotACoderTest()


aider_stub.install(
    editblock={f: stop for f in ("find_original_update_blocks", "replace_most_similar_chunk",
                                 "find_filename", "strip_quoted_wrapping")},
    find_diffs=stop,
    coder_create=lambda main_model=None, edit_format=None, **k: StubCoder(edit_format, **k),
    whole_file_coder=lambda main_model=None, **k: StubCoder("whole", **k),
    input_output=InputOutput, model=Model)


def expect(t, how, value):
    call, name = t.rec
    e = {"field": "file:" + name, "how": how}
    if how == "be":
        e["value"] = str(value)
    call["expect"].append(e)


def assert_equal(self, first, second, msg=None):
    if isinstance(second, FileTag) and not isinstance(first, FileTag):
        first, second = second, first
    if isinstance(first, FileTag):
        expect(first, "be", second)


def assert_true(self, x, msg=None):
    if isinstance(x, ExistsTag):
        expect(x, "contain", "")


def assert_false(self, x, msg=None):
    if isinstance(x, ExistsTag):
        expect(x, "absent", None)


unittest.TestCase.assertEqual = assert_equal
unittest.TestCase.assertTrue = assert_true
unittest.TestCase.assertFalse = assert_false
for m in ("assertIn", "assertNotIn", "assertIsNone", "assertLess", "assertNotEqual"):
    setattr(unittest.TestCase, m, lambda self, *a, **k: None)

src = _open(test_file).read()
# Whatever the tests write (their folders, tempfile.mkstemp's files) lands in
# a scratch folder, removed at the end.
scratch = tempfile.mkdtemp()
tempfile.tempdir = scratch
os.chdir(tempfile.mkdtemp())
ns = {"__name__": "peer_test"}
exec(compile(src, test_file, "exec"), ns)
for obj in list(ns.values()):
    if isinstance(obj, type) and issubclass(obj, unittest.TestCase) and obj is not unittest.TestCase:
        for name in sorted(dir(obj)):
            if not name.startswith("test"):
                continue
            current["test"], current["writes"] = name, []
            inst = obj(name)
            try:
                inst.setUp()
                try:
                    getattr(inst, name)()
                finally:
                    inst.tearDown()
            except NotACoderTest:
                pass

os.chdir("/")
shutil.rmtree(scratch, ignore_errors=True)
for c in calls:
    line = {"suite": suite, "test": c["test"], "format": c["format"], "chat": c["chat"],
            "files": c["files"], "answer": c["answer"], "opts": {}, "expect": c["expect"]}
    if c["na"]:
        line["notApplicable"] = c["na"]
    print(json.dumps(line))
