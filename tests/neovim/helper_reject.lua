-- The helper's reject prompt (editors/neovim): with the helper set up, the
-- "AIDE: Reject …" code action's command runs in Neovim (vim.lsp.commands),
-- asks why with vim.ui.input, and sends aide.reject with the reason; an
-- empty answer rejects without one, <Esc> rejects nothing. Run headless by
-- tests/neovim/run.sh with the repository path in AIDE_REPO; prints
-- "N passed, M failed" and exits non-zero on a failure.
local passed, failed = 0, 0
local function check(ok, what)
  if ok then
    passed = passed + 1
  else
    failed = failed + 1
    print('FAIL: ' .. what)
  end
end

vim.opt.runtimepath:append(os.getenv('AIDE_REPO') .. '/editors/neovim')
local aide = require('aide').setup({})
local handler = vim.lsp.commands and vim.lsp.commands['aide.reject']
check(handler ~= nil, 'setup() handles aide.reject in Neovim (vim.lsp.commands)')

local sent = {}
aide.execute = function(command, argument)
  table.insert(sent, { command = command, argument = argument })
end
local answer
vim.ui.input = function(_, on_confirm)
  on_confirm(answer)
end
-- The command as the server puts it in the code action.
local command = { title = 'AIDE: reject', command = 'aide.reject', arguments = { { session = 's1', hunks = { 'h2' } } } }

if handler then
  answer = 'keep the call site'
  handler(command, { bufnr = 0, client_id = 1 })
  check(#sent == 1 and sent[1].command == 'aide.reject' and sent[1].argument.reason == 'keep the call site'
    and sent[1].argument.session == 's1' and sent[1].argument.hunks[1] == 'h2',
    'a reason given is sent with the hunks: ' .. vim.inspect(sent))
  answer = ''
  handler(command, { bufnr = 0, client_id = 1 })
  check(#sent == 2 and sent[2].argument.reason == nil, 'an empty answer rejects without a reason')
  answer = nil
  handler(command, { bufnr = 0, client_id = 1 })
  check(#sent == 2, '<Esc> rejects nothing')
  check(command.arguments[1].reason == nil, 'the code action\'s own arguments are not changed')
end

io.stdout:write(string.format('\n%d passed, %d failed\n', passed, failed))
vim.cmd(failed == 0 and 'qall!' or 'cquit!')
