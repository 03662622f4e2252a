;;; aide.el --- Architect → editor with LLMs: aide-lsp through Eglot  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The aide-lsp authors

;; Author: The aide-lsp authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "30.1"))
;; Keywords: tools, convenience
;; URL: https://github.com/aide-lsp/aide-lsp
;; SPDX-License-Identifier: MIT

;;; Commentary:

;; aide-lsp (the language server, a separate binary on PATH: a release
;; archive, or go install) in Emacs 30 through Eglot.  Install this
;; package from the repository with package-vc (Emacs 30):
;;
;;   (package-vc-install
;;    '(aide :url "https://github.com/aide-lsp/aide-lsp" :lisp-dir "editors/emacs"))
;;
;; then in your init file:
;;
;;   (require 'aide)
;;
;; docs/editors.md ("Emacs") shows the same set-up as a few lines to copy
;; instead.  Requiring it leaves Eglot's settings as they are and adds:
;; - aide-lsp as the Eglot server of the modes in `aide-modes' and of the
;;   plan documents (.aide/plans/*.md, in `aide-plan-mode'), one server per
;;   project for all of them: the plan and the code must reach the same
;;   server, which holds the session;
;; - auto-revert in plan buffers: aide-lsp never edits a plan buffer, it
;;   rewrites the plan file as the session moves on (waiting for approval,
;;   proposed, done), and auto-revert shows each state;
;; - C-c a: `eglot-code-actions' (the AIDE actions: architect, approve,
;;   accept and reject a hunk, ...);
;; - M-x aide-approve in a plan buffer: approve that plan.
;;
;; Eglot manages one server per buffer: in the modes listed here aide-lsp
;; replaces your usual server (pylsp, gopls, ...).

;;; Code:

(require 'eglot)
(require 'autorevert)
(require 'seq)

(defgroup aide nil
  "aide-lsp through Eglot."
  :group 'tools)

(defcustom aide-lsp-command '("aide-lsp" "serve")
  "The command that starts aide-lsp, as a list of strings."
  :type '(repeat string))

(defcustom aide-modes '(python-mode python-ts-mode go-mode go-ts-mode
                        js-mode js-ts-mode typescript-ts-mode rust-ts-mode)
  "Major modes whose buffers aide-lsp serves (Eglot starts it there).
Set it before loading this file."
  :type '(repeat symbol))

;;;###autoload
(define-derived-mode aide-plan-mode text-mode "AIDE-Plan"
  "Mode of aide-lsp's plan documents, .aide/plans/*.md.
Its code actions (C-c a) approve, re-plan or discard the session; edit
the \"## Plan\" section first to change what is carried out.  The buffer
follows the file, which aide-lsp rewrites as the session moves on."
  (auto-revert-mode 1))

;;;###autoload
(add-to-list 'auto-mode-alist '("/\\.aide/plans/[^/]*\\.md\\'" . aide-plan-mode))

;; One entry for the code and the plans: Eglot starts one server per entry
;; and project. The plan is Markdown to the server.
(add-to-list 'eglot-server-programs
             `((,@aide-modes (aide-plan-mode :language-id "markdown")) . ,aide-lsp-command))

(dolist (mode (cons 'aide-plan-mode aide-modes))
  (add-hook (intern (format "%s-hook" mode)) #'eglot-ensure))

(define-key eglot-mode-map (kbd "C-c a") #'eglot-code-actions)

;;;###autoload
(defun aide-approve ()
  "Approve the plan of this plan buffer: its \"AIDE: Approve\" code action."
  (interactive)
  (let ((approve (seq-find (lambda (a) (string-prefix-p "AIDE: Approve the plan" (plist-get a :title)))
                           (eglot-code-actions (point-min) (point-min)))))
    (unless approve
      (user-error "aide: no plan waiting for approval in this buffer"))
    (eglot-execute (eglot-current-server) approve)))

(provide 'aide)
;;; aide.el ends here
