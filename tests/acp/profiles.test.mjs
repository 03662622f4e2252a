// Two scripted client profiles that do what CodeCompanion.nvim and
// agent-shell do today, through the official SDK client (harness.mjs):
// the whole flow (keep planning then approve, accept one, reject one,
// cancel after reject, exact files, a final status for every hunk) must
// hold under each. The real clients cannot run in CI; each behaviour
// copied is cited below (repository, file, function), read from their
// public sources, not copied.
//
// CodeCompanion.nvim (github.com/olimorris/codecompanion.nvim):
//   - options are labelled from their kind, not their name, and one key
//     per kind answers: lua/codecompanion/interactions/chat/acp/
//     request_permission.lua, ACP_OPTIONS and build_choices (a choice per
//     option, its label and key from ACP_OPTIONS[kind]; two allow_once
//     options get the same key, the later mapping wins) and build_kind_map
//     (kind → optionId: the last option of a kind);
//   - fs/read_text_file is answered from the disk, never the buffer:
//     lua/codecompanion/interactions/chat/acp/fs.lua, M.read_text_file
//     (uv.fs_stat, then utils/files.lua M.read);
//   - fs/write_text_file into an open buffer splits the text into lines and
//     saves it, so a text ending in a newline gets one more:
//     interactions/chat/acp/fs.lua M.write_text_file → utils/buffers.lua
//     M.write (vim.split on "\n", nvim_buf_set_lines, "silent update!");
//     with no buffer, utils/files.lua M.write_to_path writes the text as is.
//
// agent-shell (github.com/xenodium/agent-shell):
//   - choosing a reject_once option interrupts at once ("no point in
//     rejecting the change but letting the agent continue"):
//     agent-shell-ui-helpers.el, the permission buttons' action (after
//     agent-shell--send-permission-response, agent-shell-interrupt with
//     force) and agent-shell--make-diff-viewing-function (the same on a
//     reject from the diff view); "Keep planning" is reject_once, so it is
//     followed by a cancel too;
//   - the interrupt answers every permission request it still tracks with
//     "cancelled", then sends session/cancel: agent-shell.el,
//     agent-shell-interrupt; the request just answered is answered again
//     ("cancelled" after the user's choice: the double answer);
//   - one key per kind, on the first option of that kind:
//     agent-shell-ui-helpers.el, agent-shell--make-permission-action
//     (acp-seen-kinds);
//   - fs/read_text_file reads the open buffer, unsaved changes included,
//     and writes replace the buffer's contents: agent-shell.el,
//     agent-shell--on-fs-read-text-file-request (find-buffer-visiting) and
//     agent-shell--on-fs-write-text-file-request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { greetGo, plan, twoEdits, start, run, choose, statusOf } from "./harness.mjs";
import { methods } from "@agentclientprotocol/sdk";

const approveThenAcceptReject = ["keep", "approve", "accept", "reject"]; // what the user picks, in turn
const afterFirst = greetGo.replace('"hi"', '"hello"');

// byKind is the option a client that answers by kind picks: CodeCompanion
// the last of that kind, agent-shell the first.
const byKind = (params, kind, last) => {
  const of = params.options.filter((o) => o.kind === kind);
  return (last ? of.at(-1) : of[0])?.optionId;
};
const kindOf = { keep: "reject_once", approve: "allow_once", accept: "allow_once", reject: "reject_once" };

// flow runs the whole flow: the prompt (its plan kept: "Keep planning"),
// "/approve", accept the first hunk, reject the second.
async function flow(e) {
  const prompts = [];
  await run(e, async (ctx, sessionId) => {
    const ask = (text, file) => ctx.request(methods.agent.session.prompt, {
      sessionId,
      prompt: file ? [{ type: "text", text }, { type: "resource_link", name: "greet.go", uri: `file://${file}` }] : [{ type: "text", text }],
    });
    prompts.push(await ask("make the greetings longer", e.file));
    prompts.push(await ask("/approve"));
  });
  return prompts;
}

// sessionEvents are the aide session's events, from its session file.
function sessionEvents(root) {
  const dir = join(root, ".aide", "sessions");
  const file = readdirSync(dir).find((f) => f.endsWith(".jsonl"));
  return readFileSync(join(dir, file), "utf8").trim().split("\n").map((l) => JSON.parse(l).event);
}

// finalStatuses: every hunk's tool call ends completed or failed.
function hunkStatuses(updates) {
  const hunks = updates.filter((u) => u.sessionUpdate === "tool_call" && u.kind === "edit");
  return hunks.map((h) => statusOf(updates, h.toolCallId));
}

test("CodeCompanion.nvim: labels by kind, reads from disk, a newline more on write", async (t) => {
  const buffers = {}; // path → the Neovim buffer's text, unsaved edits included
  let n = 0;
  const labels = [];
  const e = await start(t, [{ text: plan }, twoEdits], {
    permission: (_, params) => {
      // What the user sees: a label per kind, so two approve options
      // would read the same and the key would pick the later one.
      labels.push(params.options.map((o) => o.kind));
      return choose(byKind(params, kindOf[approveThenAcceptReject[n++]], true));
    },
    read: (path) => readFileSync(path, "utf8"), // fs.lua M.read_text_file: the disk
    write: (path, content) => {
      if (buffers[path] === undefined) return writeFileSync(path, content); // files.lua M.write_to_path
      buffers[path] = content.split("\n").join("\n") + "\n"; // buffers.lua M.write: lines, then "silent update!"
      writeFileSync(path, buffers[path]);
    },
  });
  // The user has greet.go open with an unsaved note at its end.
  const unsaved = greetGo + "\n// the user's unsaved note\n";
  buffers[e.file] = unsaved;

  const [first, second] = await flow(e);
  assert.equal(first.stopReason, "end_turn", "Keep planning ends the turn");
  assert.equal(second.stopReason, "end_turn");
  const { updates, permissions, writes } = e.seen;
  assert.equal(permissions.length, 4, "approval twice, then one per hunk");
  for (const p of permissions.slice(0, 2)) {
    assert.equal(p.options.filter((o) => o.kind === "allow_once").length, 1, "one approve option: a label by kind cannot mislead");
    assert.equal(byKind(p, "allow_once", true), "approve");
  }
  assert.equal(writes.length, 0, "no whole text built on the disk is written over the user's buffer");
  assert.equal(buffers[e.file], unsaved, "the unsaved edit is kept");
  assert.equal(readFileSync(e.file, "utf8"), afterFirst, "exactly the accepted hunk, no newline more");
  assert.deepEqual(hunkStatuses(updates), ["completed", "failed"]);
  const events = sessionEvents(e.root);
  assert.ok(events.includes("accepted") && events.includes("rejected"), `events ${events}`);
});

test("agent-shell: a cancel after every reject and Keep planning, and the double answer", async (t) => {
  const buffers = {};
  let n = 0;
  let lastSession;
  const e = await start(t, [{ text: plan }, twoEdits], {
    buffers, // agent-shell--on-fs-read-text-file-request: the open buffer
    permission: (_, params) => {
      lastSession = params.sessionId;
      return choose(byKind(params, kindOf[approveThenAcceptReject[n++]], false));
    },
    write: (path, content) => {
      if (buffers[path] !== undefined) buffers[path] = content; // replaces the buffer's contents
      writeFileSync(path, content);
    },
    // After a reject_once answer: the interrupt answers the same request
    // again with "cancelled", then sends session/cancel.
    afterSend: (msg) => {
      const chosen = msg.result?.outcome?.optionId;
      if (msg.id === undefined || !["keep-planning", "reject"].includes(chosen)) return [];
      return [
        { jsonrpc: "2.0", id: msg.id, result: { outcome: { outcome: "cancelled" } } },
        { jsonrpc: "2.0", method: "session/cancel", params: { sessionId: lastSession } },
      ];
    },
  });
  const [first, second] = await flow(e);
  // The cancel races the turn's end (the answer is read first): the turn
  // answers cancelled, or ended already and the cancel finds nothing.
  assert.ok(["cancelled", "end_turn"].includes(first.stopReason), `Keep planning, then the cancel: ${first.stopReason}`);
  assert.ok(["cancelled", "end_turn"].includes(second.stopReason), `the reject, then the cancel: ${second.stopReason}`);
  const { updates, permissions } = e.seen;
  assert.equal(permissions.length, 4, "the kept plan was asked about again at /approve");
  assert.equal(readFileSync(e.file, "utf8"), afterFirst, "exactly the accepted hunk");
  const statuses = hunkStatuses(updates);
  assert.deepEqual(statuses, ["completed", "failed"], "every hunk has its final status before the cancelled answer");
  const rejected = updates.filter((u) => u.sessionUpdate === "tool_call_update" && u.rawOutput?.decision === "rejected");
  assert.equal(rejected.length, 1, "the reject stands: the double answer is ignored");
  const events = sessionEvents(e.root);
  assert.ok(events.includes("accepted") && events.includes("rejected"), `events ${events}`);
});
