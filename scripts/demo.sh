#!/usr/bin/env bash
# The README's main job: build aide-lsp and run the whole architect → editor
# flow on a copy of examples/shop, against a RECORDED model exchange
# (examples/cassettes/shop-total.json), so it needs no model and no network.
# It prints the plan and the unified diff, applies the edits to the copy, and
# runs the example's tests on the result.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
go build -o bin/aide-lsp ./cmd/aide-lsp

work=$(mktemp -d "${TMPDIR:-/tmp}/aide-demo.XXXXXX")
xdg=$(mktemp -d "${TMPDIR:-/tmp}/aide-demo-xdg.XXXXXX")
trap 'rm -rf "$work" "$xdg"' EXIT
cp -R examples/shop/. "$work/"
# The recorded answers come from --replay (a command line choice, never a
# workspace config file's), and the run says that no model is called. A
# fresh XDG config and state folder keep the user's own config out of it.
export XDG_CONFIG_HOME="$xdg/config" XDG_STATE_HOME="$xdg/state"

cat <<'MSG'
────────────────────────────────────────────────────────────────────────────
 aide-lsp demo — RECORDED model exchange (examples/cassettes/shop-total.json)
 No model is called: the architect's plan and the editor's tool calls were
 recorded. Everything else (repository map, plan parsing, edit matching,
 syntax check, diff, apply) runs for real on a copy of examples/shop.
 Task, from the AI comment in cart.go:
MSG
grep -h '// AI:' "$work/cart.go" | sed 's/^/   /'
echo "────────────────────────────────────────────────────────────────────────────"
echo
"$root/bin/aide-lsp" run --dir "$work" --file cart.go --apply --replay "$root/examples/cassettes/shop-total.json"
echo
echo "── go test on the edited copy ──"
(cd "$work" && go test ./...)
echo
echo "Session events: .aide/sessions/*.jsonl in the copy; try it for real with your own model:"
echo "  aide-lsp doctor   and   aide-lsp run --dir examples/shop --file cart.go"

echo
cat <<'MSG'
────────────────────────────────────────────────────────────────────────────
 aide-lsp bench --history — RECORDED model calls (examples/history/cassettes)
 A small repository (examples/history/make-repo.sh: ten commits, fixed
 dates) is built; its recent commits become tasks; the recorded answers of
 wire-level fakes (one right, one that does not build, one refusal, one
 edit of the wrong file) replay through the real engine, and `go build`
 checks each result. A check of the instrument, not of any model.
MSG
echo "────────────────────────────────────────────────────────────────────────────"
sh examples/history/make-repo.sh "$work/history"
printf '{"prices": {"fake/scripted-architect": {"input": 3, "output": 15}, "fake/scripted-editor": {"input": 0.25, "output": 1.25}}}\n' > "$xdg/prices.json"
"$root/bin/aide-lsp" bench --history 4 --dir "$work/history" --cassettes "$root/examples/history/cassettes" \
	--config "$xdg/prices.json" --check 'go build ./...'
