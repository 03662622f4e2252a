// The harness of the tests in this folder: the real `aide-lsp acp` over
// stdio, driven by the official ACP TypeScript SDK (@agentclientprotocol/sdk,
// pinned in package-lock.json), the model fake (tests/neovim/fakemodel)
// speaking the real OpenAI wire over loopback. A client profile (handlers)
// says how the client answers: permissions, fs/* reads and writes, and
// messages it sends after one of its own (afterSend: what a real client
// sends on its own initiative, such as a cancel right after an answer).
//
// Every wait is for a condition; the test runner's timeout is a hang guard.
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

export const greetGo = `package greet

func Greet() string {
	return "hi"
}

func Bye() string {
	return "bye"
}
`;
export const plan = "I read greet.go.\n\n## Plan\n1. Make Greet say hello\n2. Make Bye say goodbye\n## End Plan\n";
export const edit = (oldText, newText, step) => ({
  name: "edit_file",
  arguments: JSON.stringify({ path: "greet.go", old_text: oldText, new_text: newText, step }),
});
export const twoEdits = { toolCalls: [edit('return "hi"', 'return "hello"', 1), edit('return "bye"', 'return "goodbye"', 2)] };

export async function until(what, cond) {
  while (!cond()) {
    await sleep(20); // polls a condition; the runner's timeout is the hang guard
  }
}

// start: a workspace, the model fake with its script, the user's config
// naming it, and aide-lsp acp connected to a client with handlers.
export async function start(t, script, handlers) {
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
    .onRequest(methods.client.fs.readTextFile, ({ params }) => ({
      content: handlers.read ? handlers.read(params.path) : handlers.buffers?.[params.path] ?? readFileSync(params.path, "utf8"),
    }))
    .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
      seen.writes.push(params);
      if (handlers.write) handlers.write(params.path, params.content);
      else writeFileSync(params.path, params.content);
      return {};
    });
  return { root, seen, app, stream: withAfterSend(stream, handlers.afterSend), file: join(root, "greet.go") };
}

// withAfterSend writes, after each message the client sends, the messages
// afterSend returns for it (in that order on the wire).
function withAfterSend(stream, afterSend) {
  if (!afterSend) return stream;
  const out = stream.writable.getWriter();
  const writable = new WritableStream({
    async write(msg) {
      await out.write(msg);
      for (const extra of afterSend(msg) ?? []) await out.write(extra);
    },
    close: () => out.close(),
    abort: (why) => out.abort(why),
  });
  return { readable: stream.readable, writable };
}

// run connects, initializes, opens a session on the root and runs op.
export function run(e, op) {
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

export const prompt = (ctx, sessionId, file) => ctx.request(methods.agent.session.prompt, {
  sessionId,
  prompt: [{ type: "text", text: "make the greetings longer" }, { type: "resource_link", name: "greet.go", uri: `file://${file}` }],
});
export const choose = (optionId) => ({ outcome: { outcome: "selected", optionId } });
export const statusOf = (updates, id) => updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id && u.status).map((u) => u.status).at(-1);

