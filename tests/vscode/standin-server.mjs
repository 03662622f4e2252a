#!/usr/bin/env node
// A stand-in for aide-lsp that plays contract §4–§6 for exactly one scripted
// session, with no model: code actions on any line, aide.architect →
// {session}, the plan document in its virtual form (aide-plan:/<session>.md,
// aide/planDocument + aide/planDocumentChanged), session events, then one
// workspace/applyEdit of annotated edits with needsConfirmation.
//
// It exists to check the extension and the e2e driver against the contract
// while the real engine is not there (run e2e.mjs with --stand-in); the
// real test always runs the built aide-lsp. The edits it proposes are the ones
// the e2e scenario's scripted model asks for, found by text in calc.go.

import fs from 'node:fs';

let buf = Buffer.alloc(0);
let nextId = 1;
const pending = new Map();
const docs = new Map(); // uri → {version, text}
let root;
const log = (...a) => process.stderr.write(`standin: ${a.join(' ')}\n`);

function send(msg) {
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', ...msg }), 'utf8');
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}
const notify = (method, params) => send({ method, params });
const request = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    send({ id, method, params });
  });

process.stdin.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const sep = buf.indexOf('\r\n\r\n');
    if (sep < 0) return;
    const m = /Content-Length: (\d+)/i.exec(buf.subarray(0, sep).toString());
    const len = Number(m[1]);
    if (buf.length < sep + 4 + len) return;
    const msg = JSON.parse(buf.subarray(sep + 4, sep + 4 + len).toString('utf8'));
    buf = buf.subarray(sep + 4 + len);
    handle(msg);
  }
});

const plan = { uri: 'aide-plan:/s1.md', version: 0, text: '' };
function setPlan(state, body) {
  plan.version++;
  plan.text = `# AIDE: rename the function add to sum\n\nState: ${state} · cycle 1/8 · models fake/m → fake/m\n\n${body}`;
  notify('aide/planDocumentChanged', { uri: plan.uri, version: plan.version });
}
const event = (e, fields = {}) => notify('aide/sessionEvent', { session: 's1', event: e, time: new Date().toISOString(), ...fields });

function rangeOf(text, needle) {
  const i = text.indexOf(needle);
  const pos = (off) => {
    const before = text.slice(0, off).split('\n');
    return { line: before.length - 1, character: before[before.length - 1].length };
  };
  return { start: pos(i), end: pos(i + needle.length) };
}

async function architect(args) {
  await new Promise((r) => setTimeout(r, 200));
  setPlan('planning…', '');
  event('architect_pass', { model: 'fake/m', promptTokens: 900, completionTokens: 80, ms: 200, cycle: 1, maxCycles: 8, costUSD: 0.0012 });
  setPlan('editing…', '## Plan\n1. In calc.go, rename the function add to sum and update its caller in Double.\n2. Drop the AI comment above the function.\n## End Plan\n');
  event('plan');
  event('editor_pass', { model: 'fake/m', promptTokens: 700, completionTokens: 60, ms: 150, costUSD: 0.0009 });
  const uri = args.uri;
  const text = docs.get(uri)?.text ?? fs.readFileSync(new URL(uri), 'utf8');
  const version = docs.get(uri)?.version ?? null;
  const edits = [
    { range: rangeOf(text, '// AI: rename the function add to sum\nfunc add('), newText: 'func sum(', annotationId: 'h1' },
    { range: rangeOf(text, 'return add(x, x)'), newText: 'return sum(x, x)', annotationId: 'h2' },
  ];
  event('proposal', { hunks: ['h1', 'h2'] });
  setPlan('proposed', '## Plan\n1. In calc.go, rename the function add to sum and update its caller in Double.\n2. Drop the AI comment above the function.\n## End Plan\n\n## Proposed changes\nh1, h2\n');
  const reply = await request('workspace/applyEdit', {
    label: 'AIDE: rename the function add to sum',
    edit: {
      documentChanges: [{ textDocument: { uri, version }, edits }],
      changeAnnotations: {
        h1: { label: 'h1: rename add to sum', needsConfirmation: true, description: 'calc.go' },
        h2: { label: 'h2: call sum in Double', needsConfirmation: true, description: 'calc.go' },
      },
    },
  });
  log('applyEdit reply', JSON.stringify(reply));
  event(reply?.applied ? 'accepted' : 'rejected');
  event('done');
}

function handle(msg) {
  if (msg.id !== undefined && !msg.method) {
    pending.get(msg.id)?.(msg.result);
    pending.delete(msg.id);
    return;
  }
  const p = msg.params;
  switch (msg.method) {
    case 'initialize':
      root = p.rootUri;
      log('experimental', JSON.stringify(p.capabilities.experimental), 'initOptions', JSON.stringify(p.initializationOptions));
      return send({
        id: msg.id,
        result: {
          capabilities: { textDocumentSync: 1, codeActionProvider: { codeActionKinds: ['refactor.rewrite.aide'] }, executeCommandProvider: { commands: ['aide.architect', 'aide.edit', 'aide.approvePlan', 'aide.replan', 'aide.cancel', 'aide.showPlan', 'aide.sessions', 'aide.cost'] } },
          serverInfo: { name: 'aide-lsp stand-in' },
        },
      });
    case 'shutdown':
      return send({ id: msg.id, result: null });
    case 'exit':
      return process.exit(0);
    case 'textDocument/didOpen':
      docs.set(p.textDocument.uri, { version: p.textDocument.version, text: p.textDocument.text });
      return;
    case 'textDocument/didChange':
      docs.set(p.textDocument.uri, { version: p.textDocument.version, text: p.contentChanges[p.contentChanges.length - 1].text });
      return;
    case 'textDocument/codeAction': {
      const arg = { uri: p.textDocument.uri, range: p.range };
      const line = (docs.get(p.textDocument.uri)?.text ?? '').split('\n')[p.range.start.line] ?? '';
      const task = /^\s*\/\/ AI: (.*)$/.exec(line)?.[1];
      const suffix = task ? `: ${task}` : '';
      const action = (title, command) => ({ title: title + suffix, kind: 'refactor.rewrite.aide', command: { title: title + suffix, command, arguments: [arg] } });
      return send({ id: msg.id, result: [action('AIDE: Architect → Editor', 'aide.architect'), action('AIDE: Edit (one call)', 'aide.edit')] });
    }
    case 'workspace/executeCommand':
      if (p.command === 'aide.architect') {
        send({ id: msg.id, result: { session: 's1' } });
        void architect(p.arguments[0]);
        return;
      }
      if (p.command === 'aide.cost') return send({ id: msg.id, result: { rows: [], total: 0 } });
      return send({ id: msg.id, result: { session: 's1' } });
    case 'aide/planDocument':
      return send({ id: msg.id, result: { uri: plan.uri, version: plan.version, text: plan.text } });
    default:
      if (msg.id !== undefined) send({ id: msg.id, error: { code: -32601, message: `stand-in: ${msg.method} not handled` } });
  }
}
