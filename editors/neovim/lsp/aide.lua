-- Neovim 0.11+: the default configuration of aide-lsp for vim.lsp.config.
-- With editors/neovim on the runtimepath, `vim.lsp.enable('aide')` is all it
-- takes; override any field with vim.lsp.config('aide', { ... }).
-- (Older Neovim ignores this file; see docs/editors.md.)
return {
  cmd = { 'aide-lsp' },
  filetypes = {
    'go', 'python', 'javascript', 'javascriptreact', 'typescript', 'typescriptreact',
    'rust', 'c', 'cpp', 'java', 'ruby', 'lua',
    -- The plan document (.aide/plans/<session>.md) is Markdown: aide-lsp must
    -- be attached there for its approve / re-plan / discard code actions.
    'markdown',
  },
  root_markers = { '.aide', '.git' },
  handlers = require('aide').handlers(),
}
