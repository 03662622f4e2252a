"""Writes a Neovim init file that runs the Neovim 0.7 set-up block of
docs/editors.md as written (only the aide-lsp path is swapped for the binary
under test), then checks that it attaches aide-lsp to a Go file and to a
Markdown file (the plan document) with the right root, with one client.

Usage: docs_snippet.py DOCS BINARY PROJECT OUT_INIT
"""
import re
import sys

docs, binary, project, out = sys.argv[1:5]
text = open(docs, encoding="utf-8").read()
section = text[text.index("### Neovim 0.7:"):]
block = re.search(r"```lua\n(.*?)```", section, re.S).group(1)
if "cmd = { 'aide-lsp' }" not in block:
    sys.exit("docs_snippet: the Neovim 0.7 block of %s no longer starts 'aide-lsp' as expected" % docs)
block = block.replace("cmd = { 'aide-lsp' }", "cmd = { %r }" % binary)

driver = r"""
local function out(s) io.stdout:write(s, '\n') io.stdout:flush() end
local passed, failed = 0, 0
local function check(ok, name, detail)
  if ok then passed = passed + 1 out('ok - ' .. name)
  else failed = failed + 1 out('FAIL - ' .. name .. (detail and ('\n  ' .. detail) or '')) end
end
vim.schedule(function()
  -- Hang guards only: attaching takes well under a second.
  vim.cmd('edit ' .. vim.fn.fnameescape(PROJECT .. '/pkg/calc.go'))
  local attached = vim.wait(20000, function()
    local c = vim.lsp.get_active_clients()[1]
    return c ~= nil and c.initialized and vim.lsp.buf_is_attached(0, c.id)
  end, 20)
  local c = vim.lsp.get_active_clients()[1]
  check(attached and c.config.root_dir == PROJECT, 'docs: the Neovim 0.7 block attaches aide-lsp to a Go file, root at .git',
    vim.inspect(c and c.config.root_dir))
  if c then
    vim.cmd('edit ' .. vim.fn.fnameescape(PROJECT .. '/pkg/notes.md'))
    check(vim.wait(20000, function() return vim.lsp.buf_is_attached(0, c.id) end, 20) and #vim.lsp.get_active_clients() == 1,
      'docs: ... and to a Markdown file (the plan document), with the same client')
    c.stop()
    vim.wait(5000, function() return c.is_stopped() end, 20)
  end
  out(string.format('%d passed, %d failed', passed, failed))
  vim.cmd(failed == 0 and 'qall!' or 'cquit 1')
end)
"""
with open(out, "w", encoding="utf-8") as f:
    f.write("vim.cmd('filetype on')\nlocal PROJECT = %r\n" % project)
    f.write(block)
    f.write(driver)
