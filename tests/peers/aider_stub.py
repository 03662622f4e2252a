"""The aider package, as far as its tests import it, for the recorders.

record_aider.py and record_aider_coder.py run Aider's own test files with
Aider replaced: each gives the functions and classes it records through,
and install() puts them in sys.modules under Aider's module names, with the
rest of what the tests import (dump, ChdirTemporaryDirectory) as harmless
stand-ins.
"""

import os
import sys
import tempfile
import types


class _Chdir:
    """aider.utils.ChdirTemporaryDirectory: a fresh folder, left after."""

    def __enter__(self):
        self.back = os.getcwd()
        self.d = tempfile.mkdtemp()
        os.chdir(self.d)
        return self.d

    def __exit__(self, *a):
        os.chdir(self.back)
        return False


def install(editblock, find_diffs, coder_create, whole_file_coder, input_output, model):
    """editblock: name -> function of aider.coders.editblock_coder."""
    aider = types.ModuleType("aider")
    coders = types.ModuleType("aider.coders")
    coders.Coder = types.SimpleNamespace(create=coder_create)
    eb = types.ModuleType("aider.coders.editblock_coder")
    for name, fn in editblock.items():
        setattr(eb, name, fn)
    coders.editblock_coder = eb
    ud = types.ModuleType("aider.coders.udiff_coder")
    ud.find_diffs = find_diffs
    wf = types.ModuleType("aider.coders.wholefile_coder")
    wf.WholeFileCoder = whole_file_coder
    dump = types.ModuleType("aider.dump")
    dump.dump = lambda *a, **k: None
    io = types.ModuleType("aider.io")
    io.InputOutput = input_output
    models = types.ModuleType("aider.models")
    models.Model = model
    utils = types.ModuleType("aider.utils")
    utils.ChdirTemporaryDirectory = _Chdir
    for name, mod in {
        "aider": aider, "aider.coders": coders, "aider.coders.editblock_coder": eb,
        "aider.coders.udiff_coder": ud, "aider.coders.wholefile_coder": wf,
        "aider.dump": dump, "aider.io": io, "aider.models": models, "aider.utils": utils,
    }.items():
        sys.modules[name] = mod
