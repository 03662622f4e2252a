-- The plugin installed as lazy.nvim installs it, then :checkhealth aide.
-- Run headless by tests/neovim/run.sh (Neovim 0.10 and newer), with:
--   AIDE_REPO   the repository folder, what lazy.nvim's clone would be
--   AIDE_SPEC   the spec of docs/editors.md (docs_snippet.py lazy)
--   AIDE_WS     a workspace holding a Go file; PATH has aide-lsp (the binary
--               under test) and the user config points the models at the fake
-- lazy.nvim calls a spec's config(plugin, opts) with plugin.dir the clone:
-- that is done here with the repository folder itself, no file copied.
-- Prints one line per check and "N passed, M failed"; exits non-zero on a failure.
local passed, failed = 0, 0
local function out(s)
  io.stdout:write(s, '\n')
  io.stdout:flush()
end
local function check(ok, name, detail)
  if ok then
    passed = passed + 1
    out('ok - ' .. name)
  else
    failed = failed + 1
    out('FAIL - ' .. name .. (detail and ('\n  ' .. detail) or ''))
  end
end
vim.notify = function() end

local repo, ws = os.getenv('AIDE_REPO'), os.getenv('AIDE_WS')
local spec = dofile(os.getenv('AIDE_SPEC'))
check(spec[1] == 'aide-lsp/aide-lsp', 'the documented spec names this repository', vim.inspect(spec[1]))
local loaded, err = pcall(spec.config, { dir = repo, name = 'aide-lsp' }, {})
check(loaded, "the spec's config runs with plugin.dir = the repository folder", tostring(err))
check(vim.fn.exists(':AideArchitect') == 2, 'the :Aide* commands exist')
local rtp = vim.opt.runtimepath:get()
check(vim.tbl_contains(rtp, repo .. '/editors/neovim'), 'editors/neovim is on the runtimepath, from the repository folder')

vim.cmd('filetype on') -- --clean leaves it off; a user's Neovim has it on
vim.cmd('cd ' .. vim.fn.fnameescape(ws))
vim.cmd('edit ' .. vim.fn.fnameescape(ws .. '/calc.go'))
local get = vim.lsp.get_clients or vim.lsp.get_active_clients
local attached = vim.wait(30000, function()
  return #get({ name = 'aide', bufnr = 0 }) == 1
end, 20)
check(attached, 'setup({ start = true }) attached aide-lsp to a Go file')

vim.cmd('checkhealth aide')
local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
local text = table.concat(lines, '\n')
local function has(pattern)
  return text:find(pattern) ~= nil
end
check(has('OK found: ' .. vim.pesc(vim.fn.exepath('aide-lsp'))), ':checkhealth aide: binary found', text)
check(has('OK version: aide%-lsp %S+ %(commit %S+, go%d'), ':checkhealth aide: version with commit and Go version', text)
check(has('OK fake: reachable at http://127%.0%.0%.1:%d+/v1, model m available'), ':checkhealth aide: models reachable', text)
check(has('OK %.aide/config%.json: none'), ':checkhealth aide: trust of the workspace config', text)
check(not has('ERROR') and not has('WARNING'), ':checkhealth aide: no ERROR, no WARNING', text)
out(('%d passed, %d failed'):format(passed, failed))
vim.cmd(failed == 0 and 'qall!' or 'cquit 1')
