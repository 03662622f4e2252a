// Drives `aide-lsp acp` from the official ACP TypeScript SDK
// (@agentclientprotocol/sdk, pinned in package-lock.json), as a client
// nobody on this project wrote would (harness.mjs).
//
//   AIDE_LSP=bin/aide-lsp FAKEMODEL=bin/fakemodel node --test tests/acp
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { methods } from "@agentclientprotocol/sdk";
import { greetGo, plan, twoEdits, start, run, prompt, choose, statusOf } from "./harness.mjs";

test("prompt, plan entries, approve, one diff per hunk, accept one, reject one", async (t) => {
  const e = await start(t, [{ text: plan }, twoEdits], {
    permission: (n) => choose(n === 1 ? "approve" : n === 2 ? "accept" : "reject"),
  });
  const resp = await run(e, (ctx, sid) => prompt(ctx, sid, e.file));
  assert.equal(resp.stopReason, "end_turn");
  const { updates, permissions, writes } = e.seen;

  const text = updates.filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text").map((u) => u.content.text).join("");
  assert.match(text, /1\. Make Greet say hello/, "the architect's text streams");
  const plans = updates.filter((u) => u.sessionUpdate === "plan");
  assert.deepEqual(plans[0].entries.map((x) => [x.content, x.status]), [["Make Greet say hello", "pending"], ["Make Bye say goodbye", "pending"]]);
  assert.deepEqual(plans.at(-1).entries.map((x) => x.status), ["completed", "completed"]);

  const approve = updates.filter((u) => u.sessionUpdate === "tool_call" && u.kind === "switch_mode");
  assert.equal(approve.length, 1);
  assert.equal(approve[0].title, "Approve plan");
  assert.match(approve[0].rawInput.plan, /Make Bye say goodbye/);
  assert.ok(permissions[0].options.some((o) => o.kind === "allow_once" && o.name.startsWith("Approve with fake/m (~")));
  assert.ok(permissions[0].options.some((o) => o.kind === "reject_once" && o.name === "Keep planning"));

  const hunks = updates.filter((u) => u.sessionUpdate === "tool_call" && u.kind === "edit");
  assert.equal(hunks.length, 2, "one tool call per hunk");
  const afterFirst = greetGo.replace('"hi"', '"hello"');
  for (const [i, h] of hunks.entries()) {
    assert.equal(h.content.length, 1);
    assert.equal(h.content[0].type, "diff");
    assert.equal(h.content[0].oldText, i === 0 ? greetGo : afterFirst, "oldText is the whole current file");
  }
  assert.equal(hunks[0].content[0].newText, afterFirst);
  assert.equal(hunks[1].content[0].newText, afterFirst.replace('"bye"', '"goodbye"'));
  assert.equal(permissions.length, 3);
  assert.deepEqual(permissions[1].options.map((o) => o.kind), ["allow_once", "reject_once"]);

  // The client's read showed the disk's text: no unsaved edit it could
  // lose, so the server's writer writes the disk (never a whole text over
  // a buffer the read may not have shown).
  assert.equal(writes.length, 0, "no fs/write_text_file: the file had no unsaved edit");
  assert.equal(readFileSync(e.file, "utf8"), afterFirst, "exactly the accepted hunk");
  assert.equal(statusOf(updates, hunks[0].toolCallId), "completed");
  assert.equal(statusOf(updates, hunks[1].toolCallId), "failed");
  assert.ok(updates.some((u) => u.sessionUpdate === "usage_update" && u.used > 0 && u._meta?.aide?.roles?.editor));
});

test("cancel while the plan streams answers cancelled", async (t) => {
  let cancel;
  // More than the border holds back for redaction (clienttext.Stream), so
  // some of the plan reaches the client before the stall.
  const e = await start(t, [{ text: "## Plan\n1. Make Greet say hello\n" + "thinking it over\n".repeat(64), stall: true }], {
    permission: () => ({ outcome: { outcome: "cancelled" } }),
    onUpdate: (u) => { if (u.sessionUpdate === "agent_message_chunk") cancel?.(); },
  });
  const resp = await run(e, (ctx, sessionId) => {
    cancel = () => { cancel = undefined; ctx.notify(methods.agent.session.cancel, { sessionId }); };
    return prompt(ctx, sessionId, e.file);
  });
  assert.equal(resp.stopReason, "cancelled");
  assert.equal(readFileSync(e.file, "utf8"), greetGo);
});

test("a user edit between hunks withdraws the stale hunk", async (t) => {
  const buffers = {};
  const e = await start(t, [{ text: plan }, twoEdits], {
    buffers,
    permission: (n, p) => {
      if (n === 1) return choose("approve");
      if (n === 2) buffers[e.file] = greetGo.replace('return "bye"', 'return "see you"'); // typed while asked about hunk 1
      return choose("accept");
    },
  });
  const resp = await run(e, (ctx, sid) => prompt(ctx, sid, e.file));
  assert.equal(resp.stopReason, "end_turn");
  const { updates, permissions, writes } = e.seen;
  assert.equal(permissions.length, 2, "the stale hunk is never asked about");
  assert.equal(writes.length, 1);
  assert.equal(writes[0].content, greetGo.replace('return "bye"', 'return "see you"').replace('"hi"', '"hello"'));
  const stale = updates.find((u) => u.sessionUpdate === "tool_call" && u.title.includes("(h2)"));
  assert.ok(stale, "the withdrawn hunk has its tool call");
  assert.equal(statusOf(updates, stale.toolCallId), "failed");
});
