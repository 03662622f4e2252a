"""Runs docs/editors.md's Neovim set-up as written: extracts the block for a
Neovim version, (0.9+) the "plan beside the code" block and the "plan
buffers that follow" block, swapping only
the aide-lsp command for the binary under test.

  docs_snippet.py setup DOCS VERSION CMD_JSON OUT
      writes OUT, a Lua file holding those blocks (the end-to-end driver,
      init.lua, sources it as a user's init.lua would run it)
  docs_snippet.py lazy DOCS OUT
      writes OUT, a Lua file returning the lazy.nvim spec of the docs
      (lazy_health.lua calls its config as lazy.nvim does)
  docs_snippet.py check DOCS VERSION BINARY PROJECT OUT_INIT
      writes an init file that runs the blocks, then checks that they attach
      aide-lsp to a Go file and to a Markdown file (the plan document) with
      the right root, with one client

VERSION is the Neovim minor version ("0.7", "0.10", "0.12").
"""
import json
import re
import sys

# The docs heading of the block for each Neovim version.
HEADINGS = [((0, 11), "### Neovim 0.11 and newer"), ((0, 8), "### Neovim 0.8 – 0.10"), ((0, 7), "### Neovim 0.7:")]
BESIDE = "### The plan beside the code"
FOLLOW = "### Plan buffers that follow the session"
LAZY = "### Installing: lazy.nvim"
CMD = "cmd = { 'aide-lsp' }"


def first_lua_block(text, heading, docs):
    if heading not in text:
        sys.exit("docs_snippet: %s has no section %r" % (docs, heading))
    section = text[text.index(heading):]
    return re.search(r"```lua\n(.*?)```", section, re.S).group(1)


def blocks(docs, version, cmd_lua):
    text = open(docs, encoding="utf-8").read()
    v = tuple(int(x) for x in version.split(".")[:2])
    heading = next(h for (least, h) in HEADINGS if v >= least)
    block = first_lua_block(text, heading, docs)
    if CMD not in block:
        sys.exit("docs_snippet: the block under %r of %s no longer starts %s as expected" % (heading, docs, CMD))
    out = "-- %s (docs/editors.md)\n%s" % (heading, block.replace(CMD, "cmd = %s" % cmd_lua))
    if v >= (0, 9):
        out += "-- %s (docs/editors.md)\n%s" % (BESIDE, first_lua_block(text, BESIDE, docs))
    out += "-- %s (docs/editors.md)\n%s" % (FOLLOW, first_lua_block(text, FOLLOW, docs))
    return out


def lua_list(items):
    return "{ " + ", ".join(json.dumps(i) for i in items) + " }"


CHECK = r"""
local function out(s) io.stdout:write(s, '\n') io.stdout:flush() end
local passed, failed = 0, 0
local function check(ok, name, detail)
  if ok then passed = passed + 1 out('ok - ' .. name)
  else failed = failed + 1 out('FAIL - ' .. name .. (detail and ('\n  ' .. detail) or '')) end
end
local clients = vim.lsp.get_clients or vim.lsp.get_active_clients
vim.schedule(function()
  -- Hang guards only: attaching takes well under a second.
  vim.cmd('edit ' .. vim.fn.fnameescape(PROJECT .. '/pkg/calc.go'))
  local attached = vim.wait(20000, function()
    local c = clients()[1]
    return c ~= nil and c.initialized and vim.lsp.buf_is_attached(0, c.id)
  end, 20)
  local c = clients()[1]
  check(attached and c.config.root_dir == PROJECT, 'docs: the Neovim ' .. VERSION .. ' block attaches aide-lsp to a Go file, root at .git',
    vim.inspect(c and c.config.root_dir))
  if c then
    vim.cmd('edit ' .. vim.fn.fnameescape(PROJECT .. '/pkg/notes.md'))
    check(vim.wait(20000, function() return vim.lsp.buf_is_attached(0, c.id) end, 20) and #clients() == 1,
      'docs: ... and to a Markdown file (the plan document), with the same client')
    -- Methods from 0.11 on (0.12 deprecates the field calls), fields before.
    local new = vim.fn.has('nvim-0.11') == 1
    if new then c:stop() else c.stop() end
    vim.wait(5000, function() if new then return c:is_stopped() end return c.is_stopped() end, 20)
  end
  out(string.format('%d passed, %d failed', passed, failed))
  vim.cmd(failed == 0 and 'qall!' or 'cquit 1')
end)
"""


def main():
    mode = sys.argv[1]
    if mode == "setup":
        docs, version, cmd_json, out = sys.argv[2:6]
        with open(out, "w", encoding="utf-8") as f:
            f.write(blocks(docs, version, lua_list(json.loads(cmd_json))))
    elif mode == "check":
        docs, version, binary, project, out = sys.argv[2:7]
        with open(out, "w", encoding="utf-8") as f:
            f.write("vim.cmd('filetype on')\nlocal PROJECT = %r\nlocal VERSION = %r\n" % (project, version))
            f.write(blocks(docs, version, lua_list([binary])))
            f.write(CHECK)
    elif mode == "lazy":
        docs, out = sys.argv[2:4]
        text = open(docs, encoding="utf-8").read()
        with open(out, "w", encoding="utf-8") as f:
            f.write("-- %s (docs/editors.md)\nreturn %s" % (LAZY, first_lua_block(text, LAZY, docs)))
    else:
        sys.exit("docs_snippet: unknown mode %r (setup, lazy or check)" % mode)


main()
