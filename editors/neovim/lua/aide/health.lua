-- :checkhealth aide — is aide-lsp ready in this Neovim? The binary (the
-- command aide.nvim starts, found on PATH, where mason.nvim puts it too), its
-- version, then `aide-lsp doctor` on the workspace: the models reachable, the
-- trust of .aide/config.json, the languages, the watcher (docs/contract.md §2,
-- doctor). Each doctor line becomes one OK / WARNING / ERROR here.
local M = {}

local health = vim.health or require('health')
local start = health.start or health.report_start
local ok = health.ok or health.report_ok
local warn = health.warn or health.report_warn
local error = health.error or health.report_error

local INSTALL = 'install it: a release archive (github.com/aide-lsp/aide-lsp/releases), :MasonInstall aide-lsp, '
  .. 'or go install github.com/aide-lsp/aide-lsp/cmd/aide-lsp@latest'

-- The workspace doctor checks: the root of an attached aide client, else the
-- current directory.
local function workspace()
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  for _, c in ipairs(get({ name = require('aide').config.name })) do
    if c.config.root_dir then
      return c.config.root_dir
    end
  end
  return vim.fn.getcwd()
end

function M.check()
  local aide = require('aide')
  start('aide-lsp binary')
  local name = aide.config.cmd[1]
  local bin = vim.fn.exepath(name)
  if bin == '' then
    error(('"%s" is not found on PATH'):format(name), { INSTALL, "or set require('aide').setup({ cmd = { '/path/to/aide-lsp' } })" })
    return
  end
  ok('found: ' .. bin)
  local version = vim.fn.system({ bin, '--version' })
  if vim.v.shell_error ~= 0 then
    error(('%s --version failed (exit %d): %s'):format(bin, vim.v.shell_error, vim.trim(version)), { INSTALL })
    return
  end
  ok('version: ' .. vim.trim(version))

  local root = workspace()
  start('aide-lsp doctor on ' .. root .. ' (models, trust, languages)')
  local out = vim.fn.system({ bin, 'doctor', '--dir', root })
  local status, seen = vim.v.shell_error, 0
  for _, line in ipairs(vim.split(out, '\n', { plain = true })) do
    local kind, text = line:match('^(%S+)%s+(.*)$')
    if kind == 'ok' then
      ok(text)
    elseif kind == 'warn' then
      warn(text)
    elseif kind == 'FAIL' then
      error(text)
    end
    if kind == 'ok' or kind == 'warn' or kind == 'FAIL' then
      seen = seen + 1
    end
  end
  if seen == 0 then
    error(('aide-lsp doctor printed no check (exit %d): %s'):format(status, vim.trim(out)))
  end
end

return M
