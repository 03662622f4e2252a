-- aide.nvim start-up: the :Aide* commands, with nothing started. aide-lsp
-- itself starts from require('aide').setup({ start = true }), from your own
-- vim.lsp.config / vim.lsp.start block, or with vim.lsp.enable('aide') on
-- 0.11+ (lsp/aide.lua); `:checkhealth aide` says whether it is ready.
if vim.g.loaded_aide or vim.fn.has('nvim-0.7') == 0 then
  return
end
vim.g.loaded_aide = true
require('aide').commands()
