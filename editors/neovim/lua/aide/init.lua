-- aide.nvim: an optional helper for aide-lsp in Neovim 0.7 and newer.
--
-- aide-lsp works in Neovim with no plugin at all: its actions are ordinary
-- code actions (write an `AI:` comment and run vim.lsp.buf.code_action()).
-- This helper only adds what a code action cannot: a prompt for the task
-- (vim.ui.input), a few commands, and the plan document beside the code: a
-- window/showDocument handler that opens plan documents in a vertical split
-- (focus as the server's takeFocus says; the next plan reuses that split), and
-- on Neovim < 0.9 (no showDocument) opening the plan the same way when it is
-- written.
--
--   require('aide').setup({})                -- commands only (start aide-lsp yourself)
--   require('aide').setup({ start = true })  -- also start aide-lsp for the filetypes below
--
-- Commands (a range works too: :'<,'>AideArchitect):
--   :AideArchitect [task]   architect → editor; asks for the task when none is given
--   :AideEdit [task]        one editor call, no plan
--   :AideApprove / :AideReplan [feedback]            the latest session's plan
--   :AideAcceptAll / :AideRejectAll / :AideCancel   for the latest session
--   :AidePlan               open the latest session's plan document
local M = {}

local defaults = {
  -- The aide-lsp command line.
  cmd = { 'aide-lsp' },
  -- With start = true, setup() starts aide-lsp for buffers of these filetypes.
  start = false,
  -- markdown: the plan document, whose approve / re-plan / discard are code actions.
  filetypes = { 'go', 'python', 'javascript', 'typescript', 'typescriptreact', 'rust', 'c', 'cpp', 'java', 'ruby', 'lua', 'markdown' },
  -- The workspace root is the nearest directory holding one of these.
  root_markers = { '.aide', '.git', 'go.mod', 'package.json', 'pyproject.toml', 'Cargo.toml' },
  -- initializationOptions (the configuration keys of the contract, §3).
  init_options = nil,
  -- Open the plan document when it is written. Neovim ≥ 0.9 is sent
  -- window/showDocument by the server and opens it by itself.
  open_plan = vim.fn.has('nvim-0.9') == 0,
  -- setup() makes plan documents shown by window/showDocument open beside
  -- the code for every client (M.handlers() does it for its own client).
  plan_beside = true,
  -- The reject code actions ask why (vim.ui.input; may be left empty):
  -- the reason reaches the architect on the next re-plan.
  ask_reason = true,
  name = 'aide',
}

M.config = vim.deepcopy(defaults)
M.last_session = nil

local function notify(msg, level)
  vim.notify('AIDE: ' .. msg, level or vim.log.levels.INFO)
end

-- The aide-lsp client attached to bufnr (Neovim 0.7 has no filter argument
-- in get_active_clients, so filter by hand; 0.10+ renames it get_clients and
-- 0.12 warns about the old name).
local function client_for(bufnr)
  for _, client in ipairs((vim.lsp.get_clients or vim.lsp.get_active_clients)()) do
    if client.name == M.config.name and vim.lsp.buf_is_attached(bufnr, client.id) then
      return client
    end
  end
  return nil
end

local function utf16_len(line)
  local _, utf16 = vim.str_utfindex(line)
  return utf16
end

-- The LSP range of lines first..last (1-based, inclusive) of bufnr.
local function line_range(bufnr, first, last)
  local last_line = vim.api.nvim_buf_get_lines(bufnr, last - 1, last, false)[1] or ''
  return {
    start = { line = first - 1, character = 0 },
    ['end'] = { line = last - 1, character = utf16_len(last_line) },
  }
end

-- execute sends workspace/executeCommand the way Neovim's code-action
-- handler does, and calls on_reply(err, result) with the server's answer.
function M.execute(command, argument, on_reply, bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    notify('aide-lsp is not attached to this buffer (see :help aide / docs/editors.md)', vim.log.levels.ERROR)
    return nil
  end
  -- A method from Neovim 0.11 on (0.12 deprecates the field call), a plain
  -- function field before.
  local request = vim.fn.has('nvim-0.11') == 1 and function(...)
    return client:request(...)
  end or client.request
  local _, id = request('workspace/executeCommand', { command = command, arguments = { argument } },
    function(err, result)
      if err then
        notify(command .. ': ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      elseif type(result) == 'table' and result.session then
        M.last_session = result.session
      end
      if on_reply then
        on_reply(err, result)
      end
    end, bufnr)
  return id
end

-- reject_with_reason is the client side of the "AIDE: Reject …" code
-- actions (vim.lsp.commands['aide.reject']): it asks why, then sends
-- aide.reject with the reason. An empty answer rejects without one; <Esc>
-- (nil) rejects nothing.
function M.reject_with_reason(command, ctx)
  local arg = vim.deepcopy(((command or {}).arguments or {})[1] or {})
  vim.ui.input({ prompt = 'Reject: why? (optional, the architect is told) ' }, function(reason)
    if reason == nil then
      notify('not rejected')
      return
    end
    if reason ~= '' then
      arg.reason = reason
    end
    M.execute('aide.reject', arg, nil, ctx and ctx.bufnr)
  end)
end

-- start_task runs aide.architect or aide.edit on bufnr's lines first..last.
-- opts.task: the task; nil asks with vim.ui.input; an empty answer lets the
-- server take the task from an AI comment in the range.
local function start_task(command, opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  local row = vim.api.nvim_win_get_cursor(0)[1]
  local first, last = opts.line1 or row, opts.line2 or row
  local function send(task)
    if task == nil then -- the prompt was cancelled
      return
    end
    local arg = { uri = vim.uri_from_bufnr(bufnr), range = line_range(bufnr, first, last) }
    if task ~= '' then
      arg.task = task
    end
    arg.architectModel = opts.architectModel
    arg.editorModel = opts.editorModel
    M.execute(command, arg, opts.on_reply or function(err, result)
      if not err and result and result.session then
        notify('session ' .. result.session .. ' started')
      end
    end, bufnr)
  end
  if opts.task then
    send(opts.task)
  else
    vim.ui.input({ prompt = 'AIDE task (empty: use the AI: comment): ' }, send)
  end
end

--- architect({task?, line1?, line2?, architectModel?, editorModel?, on_reply?})
function M.architect(opts)
  start_task('aide.architect', opts)
end

--- edit({task?, line1?, line2?, on_reply?}): one editor call, no plan.
function M.edit(opts)
  start_task('aide.edit', opts)
end

local function on_latest(command)
  return function()
    if not M.last_session then
      notify('no session yet in this Neovim: run :AideArchitect first', vim.log.levels.WARN)
      return
    end
    M.execute(command, { session = M.last_session })
  end
end

local function plan_path(client, session)
  local root = client.config.root_dir or vim.fn.getcwd()
  return root .. '/.aide/plans/' .. session .. '.md'
end

-- is_plan reports whether path is an aide-lsp plan document
-- (<root>/.aide/plans/<name>.md, docs/contract.md §5).
function M.is_plan(path)
  return type(path) == 'string' and path:find('/%.aide/plans/[^/]+%.md$') ~= nil
end

-- show_plan opens the plan document at path beside the code, in a vertical
-- split: the user checks the plan against the code it talks about, so the
-- code must stay in view (docs/editors.md). A window of this tab page that
-- already shows a plan is reused, so a second plan (re-plan, next session)
-- does not split again. With focus false the cursor stays where it was.
function M.show_plan(path, focus)
  local from = vim.api.nvim_get_current_win()
  local plan_win
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if M.is_plan(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win))) then
      plan_win = win
    end
  end
  if plan_win then
    vim.api.nvim_set_current_win(plan_win)
    -- :buffer, not :edit: it loads the file (filetype, LSP attach) and does
    -- not refuse because the previous plan's buffer has changes.
    vim.cmd('buffer ' .. vim.fn.bufadd(path))
  else
    vim.cmd('rightbelow vsplit ' .. vim.fn.fnameescape(path))
  end
  if not focus and vim.api.nvim_win_is_valid(from) then
    vim.api.nvim_set_current_win(from)
  end
end

function M.open_plan(session, bufnr)
  session = session or M.last_session
  local client = client_for(bufnr or vim.api.nvim_get_current_buf())
  if not session or not client then
    notify('no session or no aide-lsp client here', vim.log.levels.WARN)
    return
  end
  M.show_plan(plan_path(client, session), true)
end

-- reread_plans re-reads every loaded plan buffer without unsaved edits whose
-- file holds another text. aide-lsp never edits a plan buffer (an edit pushed
-- by the server would leave it modified); it rewrites the file on disk as the
-- session moves on (docs/editors.md), so the buffer follows when it is
-- re-read. A buffer the user has changed is left alone: its text is what
-- approving carries out. :edit, not :checktime: up to 0.10 Neovim compares
-- modification times to the second (and allows one second more), so it
-- misses a file rewritten right after it was read.
function M.reread_plans()
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(buf)
    if vim.api.nvim_buf_is_loaded(buf) and not vim.api.nvim_buf_get_option(buf, 'modified') and M.is_plan(name)
      and vim.fn.filereadable(name) == 1
      and not vim.deep_equal(vim.fn.readfile(name), vim.api.nvim_buf_get_lines(buf, 0, -1, false)) then
      vim.api.nvim_buf_call(buf, function()
        vim.cmd('silent edit')
      end)
    end
  end
end

-- on_session_event re-reads the plan buffers when a session event arrives.
-- The server emits the event before it rewrites the plan file (docs/design.md,
-- "Inside the engine": events, state file, plan document, in that order), so
-- it looks again a few times over the next seconds for the write that
-- follows (on a busy machine it can come later than a first look; a look
-- that finds the buffer equal to the file does nothing).
local function on_session_event()
  vim.schedule(M.reread_plans)
  for _, ms in ipairs({ 100, 300, 1000, 3000 }) do
    vim.defer_fn(M.reread_plans, ms)
  end
end

-- show_document is a window/showDocument handler (Neovim 0.9+): plan
-- documents open beside the code (show_plan); every other document goes to
-- the handler that was there before (Neovim's own).
local previous_show_document = vim.lsp.handlers['window/showDocument']
function M.show_document(err, result, ctx, config)
  local path = type(result) == 'table' and type(result.uri) == 'string' and result.uri:match('^file:')
    and vim.uri_to_fname(result.uri)
  if not (path and M.is_plan(path)) or result.external then
    if previous_show_document then
      return previous_show_document(err, result, ctx, config)
    end
    return { success = false }
  end
  local ok, e = pcall(M.show_plan, path, result.takeFocus)
  if not ok then
    notify('cannot open the plan ' .. path .. ': ' .. tostring(e), vim.log.levels.ERROR)
  end
  return { success = ok }
end

-- handlers for aide-lsp's own notifications; merged into the client config.
function M.handlers()
  return {
    ['window/showDocument'] = M.show_document,
    ['aide/sessionEvent'] = function(_, ev, ctx)
      if type(ev) ~= 'table' then
        return
      end
      M.last_session = ev.session or M.last_session
      on_session_event()
      if ev.event == 'plan' and M.config.open_plan then
        local client = vim.lsp.get_client_by_id(ctx.client_id)
        if client then
          local path = plan_path(client, ev.session)
          vim.schedule(function()
            M.show_plan(path, true)
          end)
        end
      elseif ev.event == 'proposal' then
        notify('changes proposed: review them with the code actions on the AIDE diagnostics')
      elseif ev.event == 'error' or ev.event == 'cancelled' or ev.event == 'done' then
        notify(ev.event .. (ev.message and (': ' .. ev.message) or ''),
          ev.event == 'error' and vim.log.levels.ERROR or vim.log.levels.INFO)
      end
    end,
  }
end

-- find_root walks up from fname's directory to the nearest one holding a
-- root marker (written without vim.fs, which Neovim 0.7 lacks).
local function find_root(fname)
  local dir = vim.fn.fnamemodify(fname ~= '' and fname or vim.fn.getcwd() .. '/x', ':p:h')
  while true do
    for _, marker in ipairs(M.config.root_markers) do
      if vim.loop.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

-- client_config is the configuration to start aide-lsp with for bufnr.
function M.client_config(bufnr)
  local root = find_root(vim.api.nvim_buf_get_name(bufnr))
  root = root or vim.fn.getcwd()
  return {
    name = M.config.name,
    cmd = M.config.cmd,
    root_dir = root,
    init_options = M.config.init_options,
    handlers = M.handlers(),
  }
end

-- Neovim 0.7 has no vim.lsp.start: start one client per root and attach.
local clients_by_root = {}
local function start_07(bufnr)
  local cfg = M.client_config(bufnr)
  local id = clients_by_root[cfg.root_dir]
  if not id or vim.lsp.client_is_stopped(id) then
    id = vim.lsp.start_client(cfg)
    clients_by_root[cfg.root_dir] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
end

function M.start(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  if vim.lsp.start then
    vim.lsp.start(M.client_config(bufnr), { bufnr = bufnr })
  else
    start_07(bufnr)
  end
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', vim.deepcopy(defaults), opts or {})
  -- Also for a client started without M.handlers() (a docs/editors.md
  -- block): plan documents beside the code; other documents as before.
  if M.config.plan_beside and vim.lsp.handlers['window/showDocument'] ~= M.show_document then
    vim.lsp.handlers['window/showDocument'] = M.show_document
  end
  -- And its session events (plan buffers re-read, the latest session, the
  -- notices) for such a client too.
  vim.lsp.handlers['aide/sessionEvent'] = M.handlers()['aide/sessionEvent']
  -- The reject code actions ask why: a command in vim.lsp.commands runs in
  -- Neovim instead of going to the server as it is.
  if M.config.ask_reason and vim.lsp.commands then
    vim.lsp.commands['aide.reject'] = M.reject_with_reason
  end
  M.commands()
  if M.config.start then
    vim.api.nvim_create_autocmd('FileType', {
      pattern = M.config.filetypes,
      group = vim.api.nvim_create_augroup('aide_lsp_start', { clear = true }),
      callback = function(ev)
        M.start(ev.buf)
      end,
    })
  end
  return M
end

-- The user commands (plugin/aide.lua defines them at start-up, setup() again).
function M.commands()
  local function cmd(name, fn, desc)
    vim.api.nvim_create_user_command(name, fn, { nargs = '?', range = true, desc = desc })
  end
  local function task_of(a)
    if a.args ~= '' then
      return a.args
    end
    return nil
  end
  cmd('AideArchitect', function(a)
    M.architect({ task = task_of(a), line1 = a.line1, line2 = a.line2 })
  end, 'aide-lsp: architect → editor')
  cmd('AideEdit', function(a)
    M.edit({ task = task_of(a), line1 = a.line1, line2 = a.line2 })
  end, 'aide-lsp: one editor call')
  cmd('AideApprove', on_latest('aide.approvePlan'), 'aide-lsp: approve the latest plan (as it stands in its file)')
  cmd('AideReplan', function(a)
    if not M.last_session then
      notify('no session yet in this Neovim: run :AideArchitect first', vim.log.levels.WARN)
      return
    end
    M.execute('aide.replan', { session = M.last_session, feedback = task_of(a) })
  end, 'aide-lsp: plan again, with optional feedback')
  cmd('AideAcceptAll', on_latest('aide.accept'), 'aide-lsp: accept every pending hunk of the latest session')
  cmd('AideRejectAll', on_latest('aide.reject'), 'aide-lsp: reject every pending hunk of the latest session')
  cmd('AideCancel', on_latest('aide.cancel'), 'aide-lsp: cancel the latest session')
  cmd('AidePlan', function(a)
    M.open_plan(task_of(a))
  end, 'aide-lsp: open the plan document')
end

return M
