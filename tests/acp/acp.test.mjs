// Drives `aide-lsp acp` from the official ACP TypeScript SDK
// (@agentclientprotocol/sdk, pinned in package-lock.json), as a client
// nobody on this project wrote would: the real binary over stdio, the model
// fake (tests/neovim/fakemodel) speaking the real OpenAI wire over loopback.
//
//   AIDE_LSP=bin/aide-lsp FAKEMODEL=bin/fakemodel node --test tests/acp
//
// Every wait is for a condition; the test runner's timeout is a hang guard.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, mkdirSync, existsSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Readable, Writable } from "node:stream";
import { client, ndJsonStream, methods } from "@agentclientprotocol/sdk";

const repo = resolve(import.meta.dirname, "..", "..");
const aide = resolve(repo, process.env.AIDE_LSP ?? "bin/aide-lsp");
const fakemodel = resolve(repo, process.env.FAKEMODEL ?? "bin/fakemodel");

const greetGo = `package greet

func Greet() string {
	return "hi"
}

func Bye() string {
	return "bye"
}
`;
const plan = "I read greet.go.\n\n## Plan\n1. Make Greet say hello\n2. Make Bye say goodbye\n## End Plan\n";
const edit = (oldText, newText, step) => ({
  name: "edit_file",
  arguments: JSON.stringify({ path: "greet.go", old_text: oldText, new_text: newText, step }),
});
const twoEdits = { toolCalls: [edit('return "hi"', 'return "hello"', 1), edit('return "bye"', 'return "goodbye"', 2)] };

async function until(what, cond) {
  while (!cond()) {
    await sleep(20); // polls a condition; the runner's timeout is the hang guard
  }
}

// start: a workspace, the model fake with its script, the user's config
// naming it, and aide-lsp acp connected to a client with handlers.
async function start(t, script, handlers) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "aide-acp-")));
  const root = join(dir, "ws");
  mkdirSync(root);
  writeFileSync(join(root, "greet.go"), greetGo);
  writeFileSync(join(dir, "script.json"), JSON.stringify(script));
  const model = spawn(fakemodel, ["-script", join(dir, "script.json"), "-port-file", join(dir, "port"), "-log", join(dir, "requests.jsonl")], { stdio: "inherit" });
  t.after(() => model.kill());
  await until("the model fake's port", () => existsSync(join(dir, "port")));
  const port = readFileSync(join(dir, "port"), "utf8").trim();
  mkdirSync(join(dir, "config", "aide-lsp"), { recursive: true });
  writeFileSync(join(dir, "config", "aide-lsp", "config.json"), JSON.stringify({
    providers: { fake: { kind: "openai", baseURL: `http://127.0.0.1:${port}/v1` } },
    architectModel: "fake/m", editorModel: "fake/m",
  }));
  const env = { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: join(dir, "config"), XDG_STATE_HOME: join(dir, "state") };
  const agent = spawn(aide, ["acp", "--log", join(dir, "acp.log")], { env, stdio: ["pipe", "pipe", "inherit"] });
  t.after(() => agent.kill());
  const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
  const seen = { updates: [], permissions: [], writes: [] };
  const app = client({ name: "aide-acp-test" })
    .onNotification(methods.client.session.update, ({ params }) => {
      seen.updates.push(params.update);
      handlers.onUpdate?.(params.update);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      seen.permissions.push(params);
      return handlers.permission(seen.permissions.length, params);
    })
    .onRequest(methods.client.fs.readTextFile, ({ params }) => ({ content: handlers.buffers?.[params.path] ?? readFileSync(params.path, "utf8") }))
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      seen.writes.push(params);
      writeFileSync(params.path, params.content);
      return {};
    });
  return { root, seen, app, stream, file: join(root, "greet.go") };
}

// run connects, initializes, opens a session on the root and runs op.
function run(e, op) {
  return e.app.connectWith(e.stream, async (ctx) => {
    const init = await ctx.request(methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
    });
    assert.equal(init.protocolVersion, 1);
    const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: e.root, mcpServers: [] });
    return op(ctx, sessionId);
  });
}

const prompt = (ctx, sessionId, file) => ctx.request(methods.agent.session.prompt, {
  sessionId,
  prompt: [{ type: "text", text: "make the greetings longer" }, { type: "resource_link", name: "greet.go", uri: `file://${file}` }],
});
const choose = (optionId) => ({ outcome: { outcome: "selected", optionId } });
const statusOf = (updates, id) => updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id && u.status).map((u) => u.status).at(-1);

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

  assert.equal(writes.length, 1, "one fs/write_text_file: the accepted hunk");
  assert.equal(writes[0].path, e.file);
  assert.equal(writes[0].content, afterFirst, "exactly the accepted hunk");
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
