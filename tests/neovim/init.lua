-- Headless Neovim end-to-end test of aide-lsp (run it through run.sh).
--
-- Neovim's own LSP client starts the real aide-lsp binary, set up exactly as
-- docs/editors.md tells users for this Neovim version (AIDE_SETUP, written by
-- docs_snippet.py: the version's block and, on 0.9+, the lines that open the
-- plan beside the code); the test opens a file holding an AI comment, picks "AIDE: Architect → Editor" through
-- vim.lsp.buf.code_action() (with vim.ui.select answered by the script, so
-- Neovim's own code-action handler resolves, applies the edit and sends
-- workspace/executeCommand exactly as it does for a user), waits for the plan
-- to be shown beside the code (a vertical split, the cursor left in the code)
-- "waiting for approval", edits and saves the plan, approves it with
-- the plan document's code action, waits for the proposal diagnostics, then
-- accepts or rejects each hunk through
-- the code actions on its diagnostic, writes the buffer and compares the file
-- on disk with the expected content.
--
-- Runs on Neovim 0.7.2 (Debian bookworm), 0.10 and 0.12 (tests/editors):
-- only APIs all of them have, and vim.ui.select items of both shapes.
-- The server never edits a plan buffer; the set-up re-reads plan buffers on
-- each aide/sessionEvent, and the test checks that the plan on screen
-- follows the session (proposed changes) and that nothing is left modified.
--
-- Environment (set by run.sh):
--   AIDE_BIN       the aide-lsp binary
--   AIDE_WS        the temporary workspace root
--   AIDE_SCENARIO  scenario.json (file, task, hunk steps, expected file)
--   AIDE_SETUP     the docs/editors.md set-up for this version (Lua)
--   AIDE_LOG       where the server writes its log (printed on failure)
--   AIDE_MODEL_LOG the model fake's request log (one JSON body a line)
--   AIDE_REPO      the repository root (for editors/neovim, the helper)
--   AIDE_TIMEOUT_MS  hang guard for the whole test (default 90000)
--   AIDE_NVIM_DEBUG=1  log every LSP message to Neovim's lsp.log
--
-- Output: one line per check ("ok - ..." / "FAIL - ..."), what was seen on a
-- failure, and a final line "N passed, N failed". Exit status 0 only when
-- every check passed (:cquit 1 otherwise).

local uv = vim.loop

-- Opening a Python file makes Neovim probe its Python provider (3.4 s
-- measured here); the test needs no provider.
vim.g.loaded_python3_provider = 0

local env = {
  bin = os.getenv('AIDE_BIN'),
  ws = os.getenv('AIDE_WS'),
  scenario = os.getenv('AIDE_SCENARIO'),
  setup = os.getenv('AIDE_SETUP'),
  log = os.getenv('AIDE_LOG') or '',
  model_log = os.getenv('AIDE_MODEL_LOG') or '',
  repo = os.getenv('AIDE_REPO') or '.',
  timeout_ms = tonumber(os.getenv('AIDE_TIMEOUT_MS') or '') or 90000,
}

-- Per-wait limits. They are hang guards only: every wait returns as soon as
-- its condition holds, so a slow machine just waits longer. The model fake
-- answers at once, so a whole flow takes seconds; 30 s per step leaves room
-- for a loaded 2-core CI machine, and the overall guard (90 s) ends the test
-- whatever happens.
local STEP_WAIT_MS = 30000
-- How often vim.wait re-checks a condition.
local POLL_MS = 20

local passed, failed = 0, 0
local seen = {
  events = {},        -- aide/sessionEvent params, in arrival order
  messages = {},      -- window/showMessage and window/logMessage texts
  exec = {},          -- replies to workspace/executeCommand
  picks = {},         -- titles offered by each vim.ui.select call
  server_exit = nil,  -- {code, signal} when the server process ended
}

local clients = vim.lsp.get_clients or vim.lsp.get_active_clients

-- Headless Neovim prints vim.notify to stderr without a newline, which would
-- run into the driver's lines: record the notifications instead (the helper
-- and deprecation warnings use it).
vim.notify = function(msg)
  table.insert(seen.messages, 'notify: ' .. tostring(msg))
end
-- Neovim 0.7's workspace/applyEdit handler print()s "Workspace edit ...".
print = function(...)
  table.insert(seen.messages, 'print: ' .. table.concat(vim.tbl_map(tostring, { ... }), ' '))
end

-- stop_client stops an LSP client: a method from Neovim 0.11 on (0.12
-- prints a deprecation for the field call, into the driver's output), a
-- plain function field up to 0.10.
local function stop_client(c, force)
  if vim.fn.has('nvim-0.11') == 1 then
    return c:stop(force)
  end
  return c.stop(force)
end

local function out(line)
  io.stdout:write(line, '\n')
  io.stdout:flush()
end

local finished = false
local function finish()
  if finished then
    return
  end
  finished = true
  out(string.format('%d passed, %d failed', passed, failed))
  -- Stop what is still running: politely first (shutdown, exit), then by
  -- force; 5 s is ample for a server that replies to shutdown at once.
  for _, c in ipairs(clients()) do
    stop_client(c)
  end
  vim.wait(5000, function()
    return #clients() == 0
  end, POLL_MS)
  for _, c in ipairs(clients()) do
    stop_client(c, true)
  end
  if failed == 0 and passed > 0 then
    -- :qa, not :qa!: the user quits, and nothing may be left modified
    -- (checked buffer by buffer at the end of run()).
    local ok, err = pcall(vim.cmd, 'qa')
    out('FAIL - :qa quits Neovim\n  ' .. tostring(err))
    out(string.format('%d passed, %d failed', passed, failed + 1))
    vim.cmd('cquit 1')
  else
    vim.cmd('cquit 1')
  end
end

local function dump_seen(bufnr)
  out('--- what the test saw ---')
  out('session events: ' .. vim.inspect(seen.events))
  out('messages: ' .. vim.inspect(seen.messages))
  out('executeCommand replies: ' .. vim.inspect(seen.exec))
  out('code actions offered: ' .. vim.inspect(seen.picks))
  if seen.server_exit then
    out('server exited: ' .. vim.inspect(seen.server_exit))
  end
  if bufnr and vim.api.nvim_buf_is_valid(bufnr) then
    out('aide diagnostics: ' .. vim.inspect(vim.diagnostic.get(bufnr)))
    out('buffer:\n' .. table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n'))
  end
  if env.log ~= '' then
    out('server log: ' .. env.log)
  end
end

-- check records one assertion. A failed check is printed with detail.
local function check(ok, name, detail)
  if ok then
    passed = passed + 1
    out('ok - ' .. name)
  else
    failed = failed + 1
    out('FAIL - ' .. name .. (detail and ('\n  ' .. detail) or ''))
  end
  return ok
end

-- Abort is raised by must() to stop the run at a failed step whose later
-- steps depend on it.
local Abort = {}
local function must(ok, name, detail)
  if not check(ok, name, detail) then
    error(Abort)
  end
end

local function wait(cond, ms)
  return vim.wait(ms or STEP_WAIT_MS, cond, POLL_MS)
end

local function read_file(path)
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local s = f:read('*a')
  f:close()
  return s
end

-- model_requests decodes the model fake's request log (one JSON body a line).
local function model_requests()
  local out_ = {}
  for line in (read_file(env.model_log) or ''):gmatch('[^\n]+') do
    local ok, body = pcall(vim.fn.json_decode, line)
    if ok then
      table.insert(out_, body)
    end
  end
  return out_
end

-- contains_text reports whether any string inside v contains needle.
local function contains_text(v, needle)
  if type(v) == 'string' then
    return v:find(needle, 1, true) ~= nil
  elseif type(v) == 'table' then
    for _, x in pairs(v) do
      if contains_text(x, needle) then
        return true
      end
    end
  end
  return false
end

local function command_of(action)
  -- A code action's command is a Command table; a bare Command has the name
  -- in action.command (a string).
  if type(action.command) == 'table' then
    return action.command.command
  end
  return action.command
end

local function aide_diagnostics(bufnr)
  local out_ = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if d.source == 'aide' then
      table.insert(out_, d)
    end
  end
  table.sort(out_, function(a, b)
    return a.lnum < b.lnum or (a.lnum == b.lnum and a.col < b.col)
  end)
  return out_
end

-- The buffer text on the lines a diagnostic covers (0-based, inclusive).
local function covered_text(bufnr, d)
  local last = math.max(d.end_lnum or d.lnum, d.lnum)
  return table.concat(vim.api.nvim_buf_get_lines(bufnr, d.lnum, last + 1, false), '\n')
end

local function find_diagnostic(bufnr, match)
  for _, d in ipairs(aide_diagnostics(bufnr)) do
    if covered_text(bufnr, d):find(match, 1, true) then
      return d
    end
  end
  return nil
end

-- pick runs vim.lsp.buf.code_action() with the cursor at (row0, col0), the
-- way a user does, and chooses the first offered action for which choose()
-- is true. Neovim's own handler then resolves the action if needed, applies
-- its edit and sends its command. Returns the chosen action, or nil and the
-- titles that were offered.
local pending_choose, chosen, offered
-- The code action of a vim.ui.select item: Neovim 0.7-0.9 pass
-- {client_id, action}, 0.10+ pass {action = ..., ctx = ...}.
local function item_action(item)
  return item.action or item[2]
end
vim.ui.select = function(items, opts, on_choice)
  offered = {}
  for _, item in ipairs(items) do
    table.insert(offered, item_action(item).title)
  end
  table.insert(seen.picks, offered)
  for i, item in ipairs(items) do
    if pending_choose and pending_choose(item_action(item)) then
      chosen = item_action(item)
      on_choice(item, i)
      return
    end
  end
  chosen = false
  on_choice(nil, nil)
end

-- focus_buf makes the window showing bufnr current (the user moves to it;
-- the plan and the code are in windows of their own), else shows bufnr in
-- the current window.
local function focus_buf(bufnr)
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    if vim.api.nvim_win_get_buf(win) == bufnr then
      vim.api.nvim_set_current_win(win)
      return
    end
  end
  vim.api.nvim_set_current_buf(bufnr)
end

local function pick(bufnr, row0, col0, choose)
  focus_buf(bufnr)
  vim.api.nvim_win_set_cursor(0, { row0 + 1, col0 })
  pending_choose, chosen, offered = choose, nil, nil
  vim.lsp.buf.code_action()
  wait(function()
    return chosen ~= nil
  end)
  pending_choose = nil
  if chosen then
    return chosen
  end
  return nil, offered
end

local function title_is(pattern)
  return function(action)
    return action.title:lower():find(pattern) ~= nil
  end
end

local function is_per_hunk(verb)
  -- "accept" / "reject" for this hunk, not the accept-all / reject-all actions.
  return function(action)
    local t = action.title:lower()
    return t:find(verb, 1, true) ~= nil and t:find('%f[%a]all%f[%A]') == nil
  end
end

local function run()
  if not (env.bin and env.ws and env.scenario) then
    must(false, 'environment: AIDE_BIN, AIDE_WS and AIDE_SCENARIO are set (run tests/neovim/run.sh)')
  end
  local scenario = vim.fn.json_decode(read_file(env.scenario))
  local scenario_dir = vim.fn.fnamemodify(env.scenario, ':h')
  local path = env.ws .. '/' .. scenario.file
  local expected = read_file(scenario_dir .. '/' .. scenario.expected)
  if expected == nil then
    must(false, 'the expected file ' .. scenario.expected .. ' is readable')
  end

  if os.getenv('AIDE_NVIM_DEBUG') == '1' then
    vim.lsp.set_log_level('debug') -- every message, in Neovim's lsp.log
  end

  -- 1. Start aide-lsp with docs/editors.md's set-up for this version, as a
  -- user's init.lua runs it. The test only observes the client it starts:
  -- vim.lsp.start / start_client are wrapped to chain recording handlers
  -- and on_exit into the config (its own handlers, e.g. the helper's, still
  -- run).
  if not env.setup then
    must(false, 'environment: AIDE_SETUP is set (run tests/neovim/run.sh)')
  end
  -- The session events also go on to the global handler (the set-up's
  -- re-reading of plan buffers, docs/editors.md); the other methods are only
  -- recorded (Neovim 0.7's defaults would print into the driver's output).
  local chain_global = { ['aide/sessionEvent'] = true }
  local function record(fn, name)
    return function(err, result, ctx, c)
      fn(err, result, ctx)
      local global = chain_global[name] and vim.lsp.handlers[name]
      if global then
        return global(err, result, ctx, c)
      end
    end
  end
  local recorders = {
    ['aide/sessionEvent'] = function(_, params)
      table.insert(seen.events, params)
    end,
    ['window/showMessage'] = function(_, params)
      table.insert(seen.messages, params.message)
    end,
    ['window/logMessage'] = function(_, params)
      table.insert(seen.messages, 'log: ' .. tostring(params.message))
    end,
    ['workspace/executeCommand'] = function(err, result, ctx)
      table.insert(seen.exec, { command = ctx and ctx.params and ctx.params.command, err = err, result = result })
    end,
  }
  local function observe(config)
    if type(config) ~= 'table' or config.name ~= 'aide' or config._observed then
      return config
    end
    config._observed = true
    config.handlers = config.handlers or {}
    for name, fn in pairs(recorders) do
      local own = config.handlers[name]
      config.handlers[name] = own and function(err, result, ctx, c)
        fn(err, result, ctx)
        return own(err, result, ctx, c)
      end or record(fn, name)
    end
    local on_exit = config.on_exit
    config.on_exit = function(code, signal, id)
      seen.server_exit = { code = code, signal = signal }
      if on_exit then
        on_exit(code, signal, id)
      end
    end
    return config
  end
  local start_client, start = vim.lsp.start_client, vim.lsp.start
  vim.lsp.start_client = function(config)
    return start_client(observe(config))
  end
  if start then
    vim.lsp.start = function(config, opts)
      return start(observe(config), opts)
    end
  end
  dofile(env.setup)

  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  local code_win = vim.api.nvim_get_current_win()
  local client
  must(wait(function()
    for _, c in ipairs(clients()) do
      if c.name == 'aide' and vim.lsp.buf_is_attached(bufnr, c.id) then
        client = c
      end
    end
    return (client ~= nil and client.initialized) or seen.server_exit ~= nil
  end) and client ~= nil and client.initialized,
    'the docs/editors.md set-up started aide-lsp for the file and it answered initialize',
    'server exit: ' .. vim.inspect(seen.server_exit))
  local client_id = client.id

  local caps = client.server_capabilities or {}
  local exec = caps.executeCommandProvider or {}
  check(vim.tbl_contains(exec.commands or {}, 'aide.architect'),
    'executeCommandProvider lists aide.architect', vim.inspect(exec))
  check(caps.codeActionProvider ~= nil and caps.codeActionProvider ~= false,
    'codeActionProvider is advertised', vim.inspect(caps.codeActionProvider))

  -- 2. Code actions on the AI comment line, requested through the client.
  local comment_row = scenario.aiCommentLine - 1
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = comment_row, character = 3 }, ['end'] = { line = comment_row, character = 3 } },
    context = { diagnostics = {} },
  }
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/codeAction', params, STEP_WAIT_MS) or {}
  local resp = responses[client_id] or {}
  local actions = resp.result or {}
  local architect
  for _, a in ipairs(actions) do
    if command_of(a) == 'aide.architect' then
      architect = a
    end
  end
  local titles = vim.tbl_map(function(a)
    return a.title
  end, actions)
  must(architect ~= nil, 'code actions on the AI comment include aide.architect',
    'error: ' .. vim.inspect(resp.err) .. ' titles: ' .. vim.inspect(titles))
  check(architect.title:find('AIDE: Architect → Editor', 1, true) == 1,
    'the architect action is titled "AIDE: Architect → Editor…"', architect.title)
  check(architect.title:find(scenario.task, 1, true) ~= nil, 'its title carries the task from the AI comment', architect.title)
  check(vim.tbl_contains(vim.tbl_map(command_of, actions), 'aide.edit'), 'an aide.edit (one call) action is offered too',
    vim.inspect(titles))

  -- 3. Run it as a user does: :lua vim.lsp.buf.code_action() on that line.
  local got, offered_titles = pick(bufnr, comment_row, 3, function(a)
    return command_of(a) == 'aide.architect'
  end)
  must(got ~= nil, 'vim.lsp.buf.code_action() offered and ran the architect action', vim.inspect(offered_titles))
  must(wait(function()
    return #seen.exec > 0
  end), 'workspace/executeCommand aide.architect was answered')
  local reply = seen.exec[1]
  must(reply.err == nil and type(reply.result) == 'table' and type(reply.result.session) == 'string',
    'aide.architect replied {session}', vim.inspect(reply))
  local session = reply.result.session

  -- 4. The plan: its file, the plan event, and (no showDocument in 0.7) a message naming the file.
  local plan_path = env.ws .. '/.aide/plans/' .. session .. '.md'
  local function has_event(name)
    for _, ev in ipairs(seen.events) do
      if ev.event == name and ev.session == session then
        return true
      end
    end
    return false
  end
  must(wait(function()
    local text = read_file(plan_path)
    return (text and text:find(scenario.planText, 1, true)) or has_event('error') or has_event('done')
  end) and (read_file(plan_path) or ''):find(scenario.planText, 1, true) ~= nil,
    'the plan file .aide/plans/' .. session .. '.md holds the plan', read_file(plan_path))
  check(wait(function()
    return has_event('plan')
  end), 'an aide/sessionEvent "plan" arrived')
  local plan_file_ready = wait(function()
    return (read_file(plan_path) or ''):find('**State:** waiting for approval', 1, true) ~= nil
  end)
  must(plan_file_ready, 'the plan file reaches "waiting for approval" (reviewPlan is on by default)', read_file(plan_path))

  -- 4a. The plan document on screen, beside the code (docs/editors.md). Neovim
  -- 0.9+ is sent window/showDocument, which the set-up's handler opens in a
  -- vertical split; 0.7 is told the path in a message, and the user opens
  -- it beside the code as docs/editors.md says.
  local has_show = vim.fn.has('nvim-0.9') == 1
  if not has_show then
    check(wait(function()
      for _, m in ipairs(seen.messages) do
        if m:find('.aide/plans/' .. session .. '.md', 1, true) then
          return true
        end
      end
      return false
    end), 'window/showMessage tells the plan file path (Neovim < 0.9 has no showDocument)')
    vim.cmd('rightbelow vsplit ' .. vim.fn.fnameescape(plan_path))
  end
  local function plan_window()
    for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      local name = vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win))
      if name ~= '' and vim.fn.resolve(name) == vim.fn.resolve(plan_path) then
        return win
      end
    end
    return nil
  end
  local plan_win
  must(wait(function()
    plan_win = plan_window()
    return plan_win ~= nil
  end), has_show and 'window/showDocument opened the plan document' or 'the plan document is open')
  local plan_buf = vim.api.nvim_win_get_buf(plan_win)
  local function layout_ok()
    local wins = vim.api.nvim_tabpage_list_wins(0)
    local layout = vim.fn.winlayout()
    return #wins == 2 and layout[1] == 'row' and vim.api.nvim_win_is_valid(code_win)
      and vim.api.nvim_win_get_buf(code_win) == bufnr
      and vim.api.nvim_win_get_position(plan_win)[2] > vim.api.nvim_win_get_position(code_win)[2],
      vim.inspect(layout) .. ' code window ' .. code_win .. ', plan window ' .. plan_win
  end
  local ok_layout, layout_detail = layout_ok()
  check(ok_layout, 'the plan and the code are on screen together: the plan in a vertical split right of the code',
    layout_detail)
  if has_show then
    check(vim.api.nvim_get_current_win() == code_win, 'the cursor stays in the code (the server sent takeFocus: false)')
  end
  check(wait(function()
    return vim.lsp.buf_is_attached(plan_buf, client_id)
  end), 'aide-lsp is attached to the plan document (markdown is in the set-up\'s filetypes)')

  -- 4b. The plan buffer shows the plan "waiting for approval" (the server
  -- shows it once it is complete and never edits the buffer).
  local function plan_text()
    return table.concat(vim.api.nvim_buf_get_lines(plan_buf, 0, -1, false), '\n')
  end
  local function plan_ready()
    local t = plan_text()
    return t:find(scenario.planText, 1, true) ~= nil and t:find('**State:** waiting for approval', 1, true) ~= nil
  end
  check(wait(plan_ready), 'the plan buffer shows the plan, "waiting for approval"', plan_text())
  check(not has_event('proposal') and not has_event('editor_pass'),
    'with reviewPlan the session waits for approval (no editor pass yet)')

  -- 4c. Showing a plan again (the next plan of the session) reuses its
  -- split, and takeFocus false leaves the cursor in the code.
  if has_show then
    local m = 'window/showDocument'
    local handler = (client.handlers or {})[m] or (client.config.handlers or {})[m] or vim.lsp.handlers[m]
    vim.api.nvim_set_current_win(code_win)
    local res = handler(nil, { uri = vim.uri_from_fname(plan_path), takeFocus = false },
      { method = m, client_id = client_id, bufnr = bufnr })
    local ok_again, detail_again = layout_ok()
    check(type(res) == 'table' and res.success and ok_again and plan_window() == plan_win,
      'showing the plan again reuses its split', vim.inspect(res) .. ' ' .. detail_again)
    check(vim.api.nvim_get_current_win() == code_win, 'with takeFocus false the cursor stays in the code')
  end

  -- 4d. The user edits the plan (adds a step), saves it, and approves it
  -- with the code action in the plan document; the editor pass must get
  -- the plan as edited.
  local lines = vim.api.nvim_buf_get_lines(plan_buf, 0, -1, false)
  local end_row
  for i, line in ipairs(lines) do
    if line:match('^## End Plan') then
      end_row = i - 1
    end
  end
  must(end_row ~= nil, 'the plan document has its "## End Plan" line', table.concat(lines, '\n'))
  if scenario.planEdit then
    vim.api.nvim_buf_set_lines(plan_buf, end_row, end_row, false, { scenario.planEdit, '' })
    focus_buf(plan_buf)
    vim.cmd('silent write')
  end
  -- replace_line: the user changes the line holding match in buf to text
  -- (as typing over it does: one change the client sends as didChange).
  local function replace_line(buf, match, text)
    for i, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, -1, false)) do
      if line:find(match, 1, true) then
        vim.api.nvim_buf_set_lines(buf, i - 1, i, false, { text })
        return true
      end
    end
    return false
  end
  -- 4e. Drift: the user changes a file the plan is about, and saves it,
  -- while the plan waits; approving must notice it (contract §7).
  if scenario.driftEdit then
    must(replace_line(bufnr, scenario.driftEdit.match, scenario.driftEdit.text),
      'drift: the code has the line ' .. scenario.driftEdit.match)
    focus_buf(bufnr)
    vim.cmd('silent write')
  end
  local approve, offered_here = pick(plan_buf, end_row, 0, title_is('approve'))
  must(approve ~= nil, 'code actions in the plan document offer "approve"', vim.inspect(offered_here))
  if scenario.planEdit then
    check(wait(function()
      local request = model_requests()[2]
      return request ~= nil and contains_text(request, scenario.planEdit)
    end), 'the editor model was given the plan as edited in the plan document')
  end

  if scenario.driftEdit then
    check(wait(function()
      return has_event('drift')
    end), 'drift: an aide/sessionEvent "drift" arrived after approving', vim.inspect(seen.events))
    check(wait(function()
      return (read_file(plan_path) or ''):find('## Drift', 1, true) ~= nil
    end), 'drift: the plan document has a "## Drift" section naming what changed', read_file(plan_path))
  end

  -- 5. The proposal: one Information diagnostic per hunk, source aide, code aide.proposal.
  local function modified()
    return vim.api.nvim_buf_get_option(bufnr, 'modified')
  end
  must(wait(function()
    return #aide_diagnostics(bufnr) >= scenario.hunks or has_event('error') or has_event('done') or modified()
  end) and #aide_diagnostics(bufnr) == scenario.hunks,
    string.format('%d proposal diagnostics (source aide) are published', scenario.hunks),
    modified() and 'the buffer changed before any review: the proposal was applied (workspace/applyEdit?) '
      .. 'instead of being offered as code actions'
      .. (vim.fn.has('nvim-0.12') == 1 and ' (per-hunk review by default on Neovim 0.12)' or '') or nil)
  for _, d in ipairs(aide_diagnostics(bufnr)) do
    check(d.code == 'aide.proposal' and d.severity == vim.diagnostic.severity.INFO,
      string.format('diagnostic on line %d: code aide.proposal, severity Information', d.lnum + 1), vim.inspect(d))
  end
  check(not modified() and (scenario.driftEdit or read_file(path) == read_file(scenario_dir .. '/' .. scenario.file)),
    'nothing is applied before the user picks it (buffer and disk unchanged)')
  -- 5a. The plan on screen follows the session: re-read from its file on
  -- the session events (the set-up's lines, docs/editors.md), never edited
  -- by the server, so it shows the proposed changes and is not modified.
  check(wait(function()
    return plan_text():find('## Proposed changes', 1, true) ~= nil
  end) and not vim.api.nvim_buf_get_option(plan_buf, 'modified'),
    'the plan buffer follows the session: it shows "## Proposed changes", unmodified',
    'modified: ' .. tostring(vim.api.nvim_buf_get_option(plan_buf, 'modified')) .. '; buffer:\n' .. plan_text()
      .. '\nfile:\n' .. tostring(read_file(plan_path)))
  local first_plan, first_proposal
  for i, ev in ipairs(seen.events) do
    if ev.event == 'plan' and not first_plan then
      first_plan = i
    end
    if ev.event == 'proposal' and not first_proposal then
      first_proposal = i
    end
  end
  check(first_plan and first_proposal and first_plan < first_proposal, 'the plan event comes before the proposal event')

  -- 5b. Stale: the user types over a hunk's lines; that hunk can no longer
  -- apply, so its diagnostic goes (a "stale" event) and the others stay.
  if scenario.staleEdit then
    must(replace_line(bufnr, scenario.staleEdit.match, scenario.staleEdit.text),
      'stale: the code has the line ' .. scenario.staleEdit.match)
    check(wait(function()
      return #aide_diagnostics(bufnr) == scenario.hunks - 1 and find_diagnostic(bufnr, scenario.staleEdit.text) == nil
    end), 'stale: typing over a hunk removes its diagnostic, the other hunks keep theirs',
      vim.inspect(aide_diagnostics(bufnr)))
    check(wait(function()
      return has_event('stale')
    end), 'stale: an aide/sessionEvent "stale" arrived', vim.inspect(seen.events))
  end

  -- 6. Review: each step picks the accept/reject action on its hunk's diagnostic.
  local remaining = {}
  for _, step in ipairs(scenario.steps) do
    table.insert(remaining, step.match)
  end
  for n, step in ipairs(scenario.steps) do
    local d = find_diagnostic(bufnr, step.match)
    must(d ~= nil, string.format('step %d: a proposal diagnostic covers %q', n, step.match))
    local before = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
    local all = step['do']:find(' all', 1, true) ~= nil
    local choose = all and title_is(step['do']) or is_per_hunk(step['do'])
    local action, offered_here = pick(bufnr, d.lnum, d.col, choose)
    must(action ~= nil, string.format('step %d: code actions on the hunk offer "%s"%s', n, step['do'],
      all and '' or ' for it'), vim.inspect(offered_here))
    if all then
      remaining = {}
    else
      table.remove(remaining, 1)
    end
    -- Done when the hunk's diagnostic is gone and the others still cover
    -- their text in the buffer as it is now (re-located after the edit).
    local settled = wait(function()
      local diags = aide_diagnostics(bufnr)
      if #diags ~= #remaining then
        return false
      end
      for _, m in ipairs(remaining) do
        if not find_diagnostic(bufnr, m) then
          return false
        end
      end
      return true
    end)
    must(settled, string.format('step %d: after %s, %d proposal diagnostic(s) remain on the right lines', n,
      step['do'], #remaining))
    local after = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), '\n')
    if step['do']:find('accept', 1, true) then
      check(after ~= before and not after:find(step.match, 1, true), string.format('step %d: the hunk is in the buffer', n))
    else
      check(after == before, string.format('step %d: the rejected hunk left the buffer unchanged', n))
    end
  end
  -- Neovim shows an error for a failed command: every reply must be a result.
  local commands_sent = 1 + #scenario.steps
  check(wait(function()
    return #seen.exec >= commands_sent
  end) and #vim.tbl_filter(function(r)
    return r.err ~= nil
  end, seen.exec) == 0, string.format('all %d workspace/executeCommand requests succeeded', commands_sent),
    vim.inspect(seen.exec))
  check(wait(function()
    return has_event('accepted')
  end), 'an aide/sessionEvent "accepted" arrived')
  local rejects = vim.tbl_filter(function(st)
    return st['do']:find('reject', 1, true) ~= nil
  end, scenario.steps)
  if #rejects > 0 then
    check(wait(function()
      return has_event('rejected')
    end), 'an aide/sessionEvent "rejected" arrived')
  end

  -- 7. Save and compare the file on disk.
  focus_buf(bufnr)
  vim.cmd('silent write')
  local final = read_file(path)
  must(final == expected, 'the file on disk is the expected result',
    'got:\n' .. tostring(final) .. '\nwant:\n' .. expected)

  -- 7b. Undo (contract §4 aide.undo): on a line the session changed, the
  -- code action "AIDE: Undo <task>" proposes the reverts, reviewed like any
  -- proposal (diagnostics with accept/reject); accepting them all puts the
  -- file back as it was before the session.
  if scenario.undo then
    local row
    for i, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
      if line:find(scenario.undo.match, 1, true) then
        row = i - 1
        break
      end
    end
    must(row ~= nil, 'undo: the buffer has the line ' .. scenario.undo.match)
    local undo_action, offered_undo = pick(bufnr, row, 0, function(action)
      return action.title:find('AIDE: Undo ', 1, true) == 1 and action.title:find(' only)', 1, true) == nil
    end)
    must(undo_action ~= nil, 'undo: the code actions on a line the session changed offer "AIDE: Undo <task>"',
      vim.inspect(offered_undo))
    must(wait(function()
      return #aide_diagnostics(bufnr) == scenario.undo.hunks
    end), string.format('undo: %d reverts are proposed as diagnostics', scenario.undo.hunks),
      vim.inspect(aide_diagnostics(bufnr)))
    local d = aide_diagnostics(bufnr)[1]
    local accept_all, offered_all = pick(bufnr, d.lnum, d.col, title_is('accept all'))
    must(accept_all ~= nil, 'undo: "Accept all" is offered on a revert', vim.inspect(offered_all))
    must(wait(function()
      return #aide_diagnostics(bufnr) == 0
    end), 'undo: the reverts are applied (no proposal diagnostic left)', vim.inspect(aide_diagnostics(bufnr)))
    focus_buf(bufnr)
    vim.cmd('silent write')
    local original = read_file(scenario_dir .. '/' .. scenario.file)
    check(read_file(path) == original, 'undo: the file on disk is as it was before the session',
      'got:\n' .. tostring(read_file(path)) .. '\nwant:\n' .. tostring(original))
    check(wait(function()
      return has_event('undone')
    end), 'undo: an aide/sessionEvent "undone" arrived for the session', vim.inspect(seen.events))
  end

  -- 8. The optional helper (editors/neovim): :AideArchitect asks for the
  -- task with vim.ui.input and sends it; the task must reach the architect.
  if scenario.helperTask then
    vim.opt.runtimepath:append(env.repo .. '/editors/neovim')
    local aide = require('aide').setup({})
    vim.ui.input = function(_, on_confirm)
      on_confirm(scenario.helperTask)
    end
    local function architect_replies()
      return #vim.tbl_filter(function(r)
        return r.command == 'aide.architect'
      end, seen.exec)
    end
    local before = architect_replies()
    local helper_reply
    aide.architect({ on_reply = function(err, result)
      helper_reply = { err = err, result = result }
    end })
    must(wait(function()
      return helper_reply ~= nil
    end) and helper_reply.err == nil and type(helper_reply.result.session) == 'string'
      and helper_reply.result.session ~= session,
      'the helper\'s architect() (vim.ui.input task) started a new session', vim.inspect(helper_reply))
    check(architect_replies() == before, 'the helper used its own reply handler')
    check(wait(function()
      local request = model_requests()[3]
      return request ~= nil and contains_text(request, scenario.helperTask)
    end), 'the helper\'s task reached the architect model request')
    -- The new session's plan goes to the split the first plan is in.
    if vim.fn.has('nvim-0.9') == 1 then
      local new_plan = env.ws .. '/.aide/plans/' .. helper_reply.result.session .. '.md'
      local shown = wait(function()
        return vim.api.nvim_win_is_valid(plan_win)
          and vim.fn.resolve(vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(plan_win))) == vim.fn.resolve(new_plan)
      end)
      local ok_after, detail_after = layout_ok()
      check(shown and ok_after, 'the next plan opens in the plan\'s split (the helper\'s showDocument handler)',
        detail_after)
    end
  end

  -- 8a. Cancel while the architect streams: the helper starts a session
  -- whose model stalls mid-plan; :AideCancel stops it, the session says
  -- "cancelled" and the plan document shows it.
  if scenario.cancelTask then
    vim.opt.runtimepath:append(env.repo .. '/editors/neovim')
    local aide = require('aide').setup({})
    focus_buf(bufnr)
    local cancel_reply
    aide.architect({ task = scenario.cancelTask, on_reply = function(err, result)
      cancel_reply = { err = err, result = result }
    end })
    must(wait(function()
      return cancel_reply ~= nil
    end) and cancel_reply.err == nil and type(cancel_reply.result.session) == 'string',
      'cancel: the helper started a session', vim.inspect(cancel_reply))
    local cancel_session = cancel_reply.result.session
    local cancel_plan = env.ws .. '/.aide/plans/' .. cancel_session .. '.md'
    must(wait(function()
      local t = read_file(cancel_plan) or ''
      return t:find('add a doc comment', 1, true) ~= nil and t:find('planning', 1, true) ~= nil
    end), 'cancel: the plan streams in (half a plan, "planning…")', read_file(cancel_plan))
    vim.cmd('AideCancel')
    check(wait(function()
      for _, ev in ipairs(seen.events) do
        if ev.session == cancel_session and ev.event == 'cancelled' then
          return true
        end
      end
      return false
    end), 'cancel: :AideCancel while the architect streams ends the session ("cancelled" event)',
      vim.inspect(seen.events))
    check(wait(function()
      return (read_file(cancel_plan) or ''):find('**State:** cancelled', 1, true) ~= nil
    end), 'cancel: the plan document says "cancelled"', read_file(cancel_plan))
  end

  -- 8b. Nothing is left modified: the server's edits of the plan buffers
  -- and the review left no unsaved change behind, so :qa (finish) quits.
  local modified_bufs = {}
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_option(b, 'modified') then
      table.insert(modified_bufs, vim.api.nvim_buf_get_name(b))
    end
  end
  check(#modified_bufs == 0, 'no buffer is left modified',
    'modified: ' .. table.concat(modified_bufs, ', ')
      .. ' (a plan buffer here: the server\'s whole-buffer applyEdit leaves it modified)')

  -- 9. Quit as Neovim does (shutdown, then exit): the server ends cleanly,
  -- even with a session still running in the background.
  stop_client(client)
  check(wait(function()
    return seen.server_exit ~= nil
  end, 10000) and seen.server_exit.code == 0 and seen.server_exit.signal == 0,
    'aide-lsp exits with status 0 after shutdown and exit', vim.inspect(seen.server_exit))
  return bufnr
end

-- The hang guard: fail the whole test if it has not finished by then.
local guard = uv.new_timer()
guard:start(env.timeout_ms, 0, vim.schedule_wrap(function()
  if not finished then
    check(false, string.format('the test finished within the hang guard (%d ms)', env.timeout_ms))
    dump_seen(vim.api.nvim_get_current_buf())
    finish()
  end
end))

vim.schedule(function()
  local ok, err = xpcall(run, function(e)
    if e == Abort then
      return e
    end
    return debug.traceback(tostring(e), 2)
  end)
  if not ok then
    if err ~= Abort then
      check(false, 'the test script ran without a Lua error', tostring(err))
    end
    dump_seen(vim.api.nvim_get_current_buf())
  end
  guard:stop()
  finish()
end)
