#!/usr/bin/env bash
# Run the peers' own edit test suites through aide-lsp (docs/edits.md "The
# peers' suites, run for real").
#
#   [CODEX_SCENARIOS=DIR] tests/peers/run.sh CHECKOUT_DIR...
#
# Each CHECKOUT_DIR is a clone of one peer (a work tree or a bare
# repository); the suite is read at the commit pinned below, whatever the
# clone's HEAD is (git show, nothing is checked out or written into it).
# The peer is recognised by its files. openai/codex is too large to clone
# whole: a partial clone does (git clone --filter=blob:none --sparse, then
# git sparse-checkout set codex-rs/apply-patch), passed like the others.
# Without git, CODEX_SCENARIOS=DIR names a plain folder holding Codex's
# codex-rs/apply-patch/tests/fixtures/scenarios exactly as it is at
# CODEX_PIN (DIR is the folder holding codex-rs/, or the scenarios folder
# itself); it is read as it is, so whoever made it vouches for the commit.
# The test files are run by a recorder (record.js, record_aider.py; Codex's
# scenarios are data, converted by record_codex.py) with the peer's
# implementation replaced; tests/editcorpus's TestPeerSuites runs every recorded call
# through the binary and prints, per suite, "as the peer expects / applied
# differently / refused" and every difference. Nothing of a peer is copied
# into this repository: the converted cases live in a temporary folder.
#
# What the conversion adds is stated, so that it measures the peer's
# behaviour and not itself:
# - Cline's constructNewFileContent and Roo's applyDiff are handed a file's
#   text, never its name; the file is named file.txt, a name stating no
#   language (Roo's tests write "test.ts" above blocks holding Python, prose
#   or a JSX fragment: text Roo skips, which we do not take for a name).
# - Aider's chat history gives replies, not files: each reply's workspace is
#   built from the gold SEARCH texts (record_aider_history.py). Those files
#   are fragments, so a refusal by the verifier's syntax row on them alone
#   is reported "not applicable" with its reason, not counted. A /run or
#   /test section's command output (which the model read, not wrote) is not
#   part of the reply, and a backslash-only file name (a reply written on
#   Windows) is the same path with "/". A section holding several of the
#   model's responses (each ends with Aider's "> Tokens:" line; Aider asked
#   again after a failed match, a lint or a test) gives one call per
#   response with blocks ("NNNN/K"), from after the "> " log lines Aider
#   writes before it: one call is one answer of the model.
# - Roo's apply_patch applyChunksToContent is handed parsed chunks: they
#   are written back as the apply_patch text they parse from (our answer),
#   the file named as the test names it.
# - Roo's search_replace / edit_file tools and Cline SDK's editor are given
#   as a call of our edit_file (path, old_text, new_text, replace_all) with
#   the same meaning: file_path/old_string/new_string are renamed, an
#   argument the model left out stays out, Roo's expected_replacements N > 1
#   (replace all N) is replace_all, and Cline's editor without old_text
#   (create the file) is write_file. Cline's insert_line has no tool of
#   ours (not applicable). Roo's tool tests assert the file through the
#   tool's mocks: approval asked or changes saved = the edit goes ahead,
#   the diff view's new text = the file, an error message = a refusal;
#   calls stopped by plumbing (no path, .rooignore, read error,
#   diff view, the user rejecting) are not applicable.
# - Codex's scenario test compares the workspace after the patch with
#   expected/ and nothing else (not the exit status): record_codex.py asks
#   for exactly that state (every file the patch names and expected/ lacks
#   is absent); a scenario whose expected/ is its input/ is one Codex
#   refuses, counted as such.
# Every "not applicable" call is listed in the report with its reason.
#
# Needs node (and esbuild from the npm registry, installed into the temporary
# folder when missing), python3 and go. REPORT=FILE keeps the report.
set -euo pipefail

CLINE_PIN=6eeee7c4e6889f9c9b1151c5130d274edc2b6afa # cline/cline, 2026-06-24 (last with the diff tests)
ROO_PIN=cb836567180a3ff1da6d082f3178b90c3bd22a70   # RooCodeInc/Roo-Code, 2026-04-14
AIDER_PIN=5dc9490bb35f9729ef2c95d00a19ccd30c26339c # Aider-AI/aider, 2026-05-22
CODEX_PIN=${CODEX_PIN:-71163530a46dc568775f9ee95a9b57de3385cd9a} # openai/codex (scenarios 001-022)

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/aide-peers.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ $# -eq 0 ] && [ -z "${CODEX_SCENARIOS:-}" ]; then
	sed -n '2,/^set -e/{/^set -e/!p}' "$0"
	exit 2
fi

if [ -z "${ESBUILD_MODULE:-}" ]; then
	if ! node -e 'require("esbuild")' 2>/dev/null; then
		(cd "$work" && npm install --silent --no-audit --no-fund esbuild@0.25 >/dev/null)
		export ESBUILD_MODULE="$work/node_modules/esbuild"
	fi
fi

# show DIR COMMIT PATH > FILE: one file of a clone at a commit.
show() {
	local g
	if [ -d "$1/.git" ] || [ -f "$1/.git" ]; then g=(git -C "$1"); else g=(git --git-dir="$1"); fi
	"${g[@]}" show "$2:$3"
}
has() {
	show "$1" "$2" "$3" >/dev/null 2>&1
}

cases=()
for dir in "$@"; do
	if has "$dir" $CLINE_PIN apps/vscode/src/core/assistant-message/diff.test.ts; then
		for f in diff.test.ts diff_edge_cases.test.ts diff_edge_cases2.test.ts; do
			show "$dir" $CLINE_PIN "apps/vscode/src/core/assistant-message/$f" >"$work/$f"
			node "$here/record.js" cline-diff "cline:$f" "$work/$f" >>"$work/cline.jsonl"
		done
		f=apply-patch.test.ts
		show "$dir" $CLINE_PIN "sdk/packages/core/src/extensions/tools/executors/$f" >"$work/$f"
		node "$here/record.js" cline-patch "cline-sdk:$f" "$work/$f" >>"$work/cline.jsonl"
		f=editor.test.ts
		show "$dir" $CLINE_PIN "sdk/packages/core/src/extensions/tools/executors/$f" >"$work/$f"
		node "$here/record.js" cline-editor "cline-sdk:$f" "$work/$f" >>"$work/cline.jsonl"
		cases+=("$work/cline.jsonl")
		echo "cline at $CLINE_PIN: $(wc -l <"$work/cline.jsonl") calls" >&2
	elif has "$dir" $ROO_PIN src/core/diff/strategies/__tests__/multi-search-replace.spec.ts; then
		for f in multi-search-replace.spec.ts multi-search-replace-trailing-newline.spec.ts; do
			show "$dir" $ROO_PIN "src/core/diff/strategies/__tests__/$f" >"$work/$f"
			node "$here/record.js" roo-msr "roo:$f" "$work/$f" >>"$work/roo.jsonl"
		done
		f=apply.spec.ts
		show "$dir" $ROO_PIN "src/core/tools/apply-patch/__tests__/$f" >"$work/$f"
		node "$here/record.js" roo-patch "roo:apply-patch/$f" "$work/$f" >>"$work/roo.jsonl"
		for f in searchReplaceTool.spec.ts editFileTool.spec.ts; do
			show "$dir" $ROO_PIN "src/core/tools/__tests__/$f" >"$work/$f"
			node "$here/record.js" roo-tool "roo:$f" "$work/$f" >>"$work/roo.jsonl"
		done
		cases+=("$work/roo.jsonl")
		echo "roo at $ROO_PIN: $(wc -l <"$work/roo.jsonl") calls" >&2
	elif has "$dir" $AIDER_PIN tests/basic/test_editblock.py; then
		for f in test_editblock.py test_udiff.py; do
			show "$dir" $AIDER_PIN "tests/basic/$f" >"$work/$f"
			python3 "$here/record_aider.py" "aider:$f" "$work/$f" >>"$work/aider.jsonl"
		done
		# The tests that drive a whole Coder (record_aider_coder.py): the
		# files the test wrote and the reply it gives; a file it made
		# outside its folder (tempfile.mkstemp, which the reply names by its
		# base name) is placed at that name. Which files are in Aider's chat
		# is stated ("chat"), not used: our binary sees the workspace, not a
		# chat. A test of Aider's plumbing (a dry run, live rendering, the
		# user declining a prompt) is "not applicable", with its reason.
		show "$dir" $AIDER_PIN tests/basic/test_wholefile.py >"$work/test_wholefile.py"
		for f in test_editblock.py test_wholefile.py; do
			python3 "$here/record_aider_coder.py" "aider:$f" "$work/$f" >>"$work/aider.jsonl"
		done
		show "$dir" $AIDER_PIN tests/fixtures/chat-history.md >"$work/chat-history.md"
		show "$dir" $AIDER_PIN tests/fixtures/chat-history-search-replace-gold.txt >"$work/gold.txt"
		python3 "$here/record_aider_history.py" "aider:chat-history.md" "$work/chat-history.md" "$work/gold.txt" >>"$work/aider.jsonl"
		cases+=("$work/aider.jsonl")
		echo "aider at $AIDER_PIN: $(wc -l <"$work/aider.jsonl") calls" >&2
	elif has "$dir" $CODEX_PIN codex-rs/apply-patch/tests/fixtures/scenarios/README.md; then
		# The scenarios: input/, patch.txt, expected/ per folder.
		if [ -d "$dir/.git" ] || [ -f "$dir/.git" ]; then g=(git -C "$dir"); else g=(git --git-dir="$dir"); fi
		"${g[@]}" archive "$CODEX_PIN" codex-rs/apply-patch/tests/fixtures/scenarios | tar -x -C "$work"
		python3 "$here/record_codex.py" "codex:scenarios" "$work/codex-rs/apply-patch/tests/fixtures/scenarios" >"$work/codex.jsonl"
		cases+=("$work/codex.jsonl")
		echo "codex at $CODEX_PIN: $(wc -l <"$work/codex.jsonl") scenarios" >&2
	else
		echo "run.sh: $dir: not a clone of cline, Roo-Code, aider or codex holding the pinned commit" >&2
		exit 2
	fi
done
if [ -n "${CODEX_SCENARIOS:-}" ]; then
	d=$CODEX_SCENARIOS
	[ -d "$d/codex-rs" ] && d=$d/codex-rs/apply-patch/tests/fixtures/scenarios
	if [ ! -f "$d/README.md" ] || [ ! -d "$d/001_add_file" ]; then
		echo "run.sh: CODEX_SCENARIOS=$CODEX_SCENARIOS: not Codex's apply-patch scenarios folder" >&2
		exit 2
	fi
	python3 "$here/record_codex.py" "codex:scenarios" "$d" >"$work/codex.jsonl"
	cases+=("$work/codex.jsonl")
	echo "codex at $CODEX_PIN (folder $CODEX_SCENARIOS): $(wc -l <"$work/codex.jsonl") scenarios" >&2
fi

list=$(IFS=:; echo "${cases[*]}")
report=${REPORT:-$work/report.txt}
cd "$root"
AIDE_PEER_CASES="$list" AIDE_PEER_REPORT="$report" go test -count=1 -timeout 60m -run '^TestPeerSuites$' ./tests/editcorpus/ >"$work/go.log" 2>&1 || {
	cat "$work/go.log" >&2
	exit 1
}
cat "$report"
