// End-to-end test of the AIDE extension in a real VS Code: code-server (one
// of the versions tests/vscode/install.sh pins) in headless Chromium, driven by
// playwright-core.
//
//   node tests/vscode/e2e.mjs --cache DIR --code-server VERSION --vsix FILE [--server BIN]
//
// Without --server (what run.sh does) the vsix is a platform-specific one that carries
// aide-lsp (scripts/release.sh): code-server gets a PATH with no aide-lsp on it and no
// aide.serverPath, as a user who only installed the extension, and the server that runs
// must be the one inside the installed extension. --server BIN sets aide.serverPath instead.
//
// code-server runs on the Node install.sh linked as <cache>/code-server-<v>/bin/node
// (Node 24 for 4.139.1), first on its PATH; this script itself runs on the system's Node.
//
// It installs the vsix into a fresh code-server profile, opens a temporary
// workspace holding a Go file with an `AI:` comment, points the extension at
// the built aide-lsp and aide-lsp at a scripted model on 127.0.0.1, then does
// what a user does: Ctrl+. on the comment, "AIDE: Architect → Editor", sees
// the plan document beside the code, sees the Refactor Preview, ticks the
// entries, Applies, saves, and the file on disk must be the expected one.
// Prints one line per check, a screenshot goes to tests/output/, and the last
// line is "N passed, N failed". Exit status 0 only when all passed.
//
// Environment: KEEP=1 keeps the temporary folder; AIDE_E2E_STEP_SHOTS=1 saves
// a screenshot after each step.

import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { startFakeModel } from './fakeModel.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const cache = arg('cache');
const vsix = path.resolve(arg('vsix', path.join(root, 'vscode-client/aide-lsp.vsix')));
const standIn = argv.includes('--stand-in');
const serverArg = arg('server');
const serverBin = standIn ? path.join(here, 'standin-server.mjs') : serverArg && path.resolve(serverArg);
const bundled = !serverBin; // the server inside the vsix, found by the extension alone
const outDir = path.join(root, 'tests/output');
if (!cache) {
  console.error('e2e.mjs: --cache DIR (the folder tests/vscode/install.sh printed) is required');
  process.exit(2);
}
const codeServerVersion = arg('code-server', '4.96.4');
const require = createRequire(path.join(cache, 'package.json'));
const { chromium } = require('playwright-core');
const codeServerDir = path.join(cache, `code-server-${codeServerVersion}`);
const codeServerEntry = path.join(codeServerDir, 'node_modules/code-server/out/node/entry.js');
const codeServerNode = path.join(codeServerDir, 'bin/node');
if (!fs.existsSync(codeServerEntry) || !fs.existsSync(codeServerNode)) {
  console.error(`e2e.mjs: code-server ${codeServerVersion} is not installed in ${cache}: run tests/vscode/install.sh ${codeServerVersion}`);
  process.exit(2);
}
// Output files carry the version, so the runs on two versions keep both.
const tag = `vscode-e2e-${codeServerVersion}`;

// Hang guards only: every wait is for a thing a user would see, and these
// bounds just stop a broken run from hanging CI. A healthy run takes ~25 s in
// all on 2 busy cores; the slowest single step (first workbench load) ~8 s.
const STEP_TIMEOUT_MS = 60_000;
const START_TIMEOUT_MS = 90_000;

// ---- the scenario -------------------------------------------------------
const original = `package calc

// AI: rename the function add to sum
func add(a, b int) int {
\treturn a + b
}

// Double returns x + x.
func Double(x int) int {
\treturn add(x, x)
}
`;
const expected = `package calc

func sum(a, b int) int {
\treturn a + b
}

// Double returns x + x.
func Double(x int) int {
\treturn sum(x, x)
}
`;
const planMarker = 'rename the function add to sum and update its caller in Double';
const script = [
  {
    expectTools: false,
    text: `I read calc.go: \`add\` is defined once and called once, in \`Double\`.\n\n## Plan\n1. In calc.go, ${planMarker}.\n2. Drop the AI comment above the function.\n## End Plan\n`,
  },
  {
    expectTools: true,
    toolCalls: [
      { name: 'edit_file', arguments: JSON.stringify({ path: 'calc.go', old_text: '// AI: rename the function add to sum\nfunc add(a, b int) int {', new_text: 'func sum(a, b int) int {' }) },
      { name: 'edit_file', arguments: JSON.stringify({ path: 'calc.go', old_text: '\treturn add(x, x)', new_text: '\treturn sum(x, x)' }) },
    ],
  },
  // The second task (step 10): cancelled while its Refactor Preview is open.
  {
    expectTools: false,
    text: `I read calc.go.\n\n## Plan\n1. In calc.go, make Double return x * 2.\n## End Plan\n`,
  },
  {
    expectTools: true,
    toolCalls: [{ name: 'edit_file', arguments: JSON.stringify({ path: 'calc.go', old_text: '\treturn add(x, x)', new_text: '\treturn x * 2' }) }],
  },
];
const secondTask = 'make Double return x * 2';

// ---- checks ---------------------------------------------------------------
let passed = 0;
let step = 'set up';
let failed = 0;
const started = Date.now();
const secs = () => ((Date.now() - started) / 1000).toFixed(1);
function ok(name) {
  passed++;
  console.log(`ok   ${name} (${secs()} s)`);
}
function notOk(name, why) {
  failed++;
  console.log(`FAIL ${name}: ${why} (${secs()} s)`);
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

function findFiles(dir, re) {
  const out = [];
  try {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const f = path.join(dir, e.name);
      if (e.isDirectory()) out.push(...findFiles(f, re));
      else if (re.test(e.name)) out.push(f);
    }
  } catch {}
  return out;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(what, fn, timeout = STEP_TIMEOUT_MS) {
  const deadline = Date.now() + timeout;
  let last;
  while (Date.now() < deadline) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${last.message})` : ''}`);
}

// ---- setup ----------------------------------------------------------------
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'aide-vscode-'));
const dirs = {
  userData: path.join(tmp, 'user-data'),
  extensions: path.join(tmp, 'extensions'),
  ws: path.join(tmp, 'ws'),
  xdg: path.join(tmp, 'xdg'),
};
for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
// With the bundled server, PATH keeps no folder that holds an aide-lsp: the extension must
// find its own.
const pathDirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => !(bundled && d && fs.existsSync(path.join(d, 'aide-lsp'))));
const env = {
  ...process.env,
  // The Node this code-server needs, first on its PATH only (the extension host and aide-lsp inherit it).
  PATH: [path.dirname(codeServerNode), ...pathDirs].join(path.delimiter),
  XDG_CONFIG_HOME: path.join(dirs.xdg, 'config'),
  XDG_DATA_HOME: path.join(dirs.xdg, 'data'),
  XDG_CACHE_HOME: path.join(dirs.xdg, 'cache'),
  XDG_STATE_HOME: path.join(dirs.xdg, 'state'),
  XDG_RUNTIME_DIR: path.join(dirs.xdg, 'runtime'),
  // Keys of the real providers must never reach this test.
  OPENAI_API_KEY: '',
  ANTHROPIC_API_KEY: '',
};
for (const k of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_STATE_HOME', 'XDG_RUNTIME_DIR']) fs.mkdirSync(env[k], { recursive: true, mode: 0o700 });

let codeServer;
let browser;
let model;
const serverLog = path.join(tmp, 'aide-lsp.log');

async function cleanup() {
  try {
    await browser?.close();
  } catch {}
  if (codeServer?.pid) {
    try {
      process.kill(-codeServer.pid, 'SIGTERM'); // the whole process group: code-server, its extension host, aide-lsp
    } catch {}
  }
  await model?.close();
}

async function main() {
  fs.mkdirSync(outDir, { recursive: true });
  model = await startFakeModel(script);

  fs.writeFileSync(path.join(dirs.ws, 'calc.go'), original);
  fs.writeFileSync(path.join(dirs.ws, 'go.mod'), 'module example.com/calc\n\ngo 1.22\n');
  // The scripted model as a provider in the user-level config (docs/contract.md: provider
  // definitions from a workspace are not trusted), in this run's own XDG_CONFIG_HOME, which
  // code-server and so aide-lsp inherit.
  const aideConfig = JSON.stringify({ providers: { fake: { kind: 'openai', baseURL: `http://127.0.0.1:${model.port}/v1` } }, architectModel: 'fake/m', reviewPlan: false }, null, 2);
  fs.mkdirSync(path.join(env.XDG_CONFIG_HOME, 'aide-lsp'), { recursive: true });
  fs.writeFileSync(path.join(env.XDG_CONFIG_HOME, 'aide-lsp/config.json'), aideConfig);
  // aide.serverPath and aide.serverArgs are machine settings. code-server's workbench is a
  // remote window, and VS Code reads machine-scoped settings in a remote window from the
  // remote's settings only (Machine/settings.json in code-server's user-data-dir), never from
  // the User settings. 1.96 let them through from User settings when it parsed them before
  // the extension had registered their scope; 1.139 drops them there (most runs), so the
  // extension saw only the default "aide-lsp" (docs/editors.md). See docs/editors.md.
  fs.mkdirSync(path.join(dirs.userData, 'Machine'), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.userData, 'Machine/settings.json'),
    JSON.stringify({ ...(bundled ? {} : { 'aide.serverPath': serverBin }), 'aide.serverArgs': standIn ? [] : ['--log', serverLog, '--log-level', 'debug'] }, null, 2),
  );
  fs.mkdirSync(path.join(dirs.userData, 'User'), { recursive: true });
  fs.writeFileSync(
    path.join(dirs.userData, 'User/settings.json'),
    JSON.stringify(
      {
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'workbench.enableExperiments': false,
        'extensions.ignoreRecommendations': true,
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': false,
        'security.workspace.trust.enabled': false,
        'telemetry.telemetryLevel': 'off',
        'update.mode': 'none',
        'editor.lightbulb.enabled': 'off',
        'files.autoSave': 'off',
        'window.commandCenter': false,
        'chat.commandCenter.enabled': false,
        // VS Code 1.139 opens a Chat view on the right of a new profile; it only takes room here.
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
      },
      null,
      2,
    ),
  );

  step = 'install the vsix';
  // 1. Install the vsix with the same profile folders the server will use.
  const installOut = execFileSync(
    codeServerNode,
    [codeServerEntry, '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, '--install-extension', vsix],
    { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const installed = fs.readdirSync(dirs.extensions).filter((d) => d.startsWith('aide-lsp.aide-lsp-'));
  if (installed.length === 1) ok(`vsix installed into code-server (${installed[0]})`);
  else throw new Error(`vsix not installed: ${installOut}`);

  step = 'start code-server';
  // 2. Start code-server in its own process group (setsid), so stopping it stops all of it.
  const port = await freePort();
  const csLog = fs.openSync(path.join(tmp, 'code-server.log'), 'w');
  codeServer = spawn(
    codeServerNode,
    [codeServerEntry, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
      '--user-data-dir', dirs.userData, '--extensions-dir', dirs.extensions, dirs.ws],
    { env, detached: true, stdio: ['ignore', csLog, csLog] },
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor('code-server /healthz', async () => (await fetch(`${base}/healthz`)).ok, START_TIMEOUT_MS);
  ok(`code-server ${codeServerVersion} is up`);

  step = 'load the workbench in Chromium';
  // 3. The browser.
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const shot = async (name) => {
    if (process.env.AIDE_E2E_STEP_SHOTS) await page.screenshot({ path: path.join(outDir, `${tag}-step-${name}.png`) });
  };
  globalThis.__page = page;
  await page.goto(`${base}/?folder=${encodeURIComponent(dirs.ws)}`, { timeout: START_TIMEOUT_MS }); // a hang guard, like the others
  await page.locator('.monaco-workbench').waitFor({ timeout: START_TIMEOUT_MS });
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'calc.go' }).waitFor({ timeout: START_TIMEOUT_MS });
  ok('workbench loaded with the workspace');
  await shot('workbench');

  step = 'open calc.go; the extension activates and starts the server';
  // 4. Open the file and wait for the extension: its status bar item appears when it activates.
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'calc.go' }).click();
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.locator('.view-lines', { hasText: 'AI: rename the function add to sum' }).waitFor({ timeout: STEP_TIMEOUT_MS });
  await page.locator('.statusbar-item', { hasText: 'AIDE' }).first().waitFor({ timeout: START_TIMEOUT_MS });
  ok('extension activated (AIDE status bar item)');
  if (!standIn) {
    await waitFor('aide-lsp to start (its --log file)', () => fs.existsSync(serverLog) && fs.statSync(serverLog).size > 0);
    ok('extension started aide-lsp');
  }
  if (bundled) {
    // The running server is the binary inside the installed extension, found with no
    // aide-lsp on PATH and no aide.serverPath.
    const ext = path.join(dirs.extensions, installed[0], 'server', 'aide-lsp');
    const exes = () => fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map((p) => { try { return fs.readlinkSync(`/proc/${p}/exe`); } catch { return ''; } });
    await waitFor(`a process running ${ext}`, () => exes().includes(ext));
    const version = execFileSync(ext, ['--version'], { encoding: 'utf8' }).trim();
    ok(`the bundled server runs (${version}), no aide-lsp on PATH, no aide.serverPath`);
  }
  await shot('file');

  step = 'Ctrl+. on the AI comment offers AIDE: Architect → Editor';
  // 5. Cursor on the AI comment, Ctrl+. → the code action.
  await editor.locator('.view-line', { hasText: 'AI: rename the function add to sum' }).click();
  await sleep(500); // the code-action menu ignores Ctrl+. until the editor has settled its focus (recipe: tests/vscode/README.md)
  const widget = page.locator('.action-widget');
  const row = widget.locator('.monaco-list-row', { hasText: 'AIDE: Architect → Editor' });
  await waitFor('the AIDE: Architect → Editor code action', async () => {
    if (!(await widget.isVisible())) {
      await page.keyboard.press('Control+.');
      await sleep(700);
    }
    return (await row.count()) > 0;
  });
  const title = (await row.first().innerText()).replace(/\s+/g, ' ').trim();
  // On an AI comment the title carries the task (contract §4).
  if (!title.includes('rename the function add to sum')) throw new Error(`the code action's title does not carry the AI comment's task: "${title}"`);
  ok(`code action offered: ${title}`);
  await shot('codeaction');
  // Rows cannot be clicked: move the focus with the keyboard to our row, then Enter.
  for (let i = 0; i < 20; i++) {
    const focused = await widget.locator('.monaco-list-row.focused').innerText().catch(() => '');
    if (focused.includes('AIDE: Architect → Editor')) break;
    await page.keyboard.press('ArrowDown');
    await sleep(100);
  }
  await page.keyboard.press('Enter');

  step = 'the plan document opens beside the code';
  // 6. The plan document, beside the code.
  await page.locator('.view-lines', { hasText: planMarker }).first().waitFor({ timeout: STEP_TIMEOUT_MS });
  const planTab = page.locator('.tab', { hasText: '.md' });
  await planTab.first().waitFor({ timeout: STEP_TIMEOUT_MS });
  ok(`plan document shown beside the code (tab ${(await planTab.first().innerText()).replace(/\s+/g, '')})`);
  await shot('plan');

  step = 'the Refactor Preview shows the proposal; tick and Apply';
  // 7. The Refactor Preview, with an entry per change annotation; entries start unchecked.
  const preview = page.locator('.bulk-edit-panel, .pane:has(.bulk-edit-panel)').first();
  const applyInPreview = async (what) => {
  await preview.waitFor({ timeout: STEP_TIMEOUT_MS });
  const treeRows = preview.locator('.monaco-list-row');
  await waitFor('Refactor Preview entries', async () => (await treeRows.count()) > 0);
  ok(`Refactor Preview shown for ${what} (${await treeRows.count()} rows)`);
  await shot(what === 'the proposal' ? 'preview' : 'preview-undo');
  // The tree's checkboxes are plain inputs in VS Code 1.96 and custom toggles with
  // role=checkbox and aria-checked in 1.139; ticking the file row ticks its hunks, so
  // re-read after each click.
  const boxes = preview.locator('.monaco-list-row input[type=checkbox], .monaco-list-row [role=checkbox]');
  const checked = async () => boxes.evaluateAll((els) => els.map((e) => (e instanceof HTMLInputElement ? e.checked : e.getAttribute('aria-checked') === 'true')));
  const n = await boxes.count();
  if (n === 0) throw new Error('no checkboxes in the Refactor Preview');
  for (let i = 0; i < n; i++) {
    if (!(await checked())[i]) await boxes.nth(i).click();
  }
  await waitFor('every entry ticked', async () => {
    const states = await checked();
    return states.length > 0 && states.every(Boolean);
  });
  ok(`ticked ${n} entries`);
  await page.locator('.monaco-button', { hasText: /^Apply$/ }).first().click();
  await preview.waitFor({ state: 'hidden', timeout: STEP_TIMEOUT_MS }).catch(() => {});
  };
  await applyInPreview('the proposal');

  step = 'save all; check the disk';
  // 8. Save all and check the disk.
  const palette = async (title) => {
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget').waitFor();
    await page.keyboard.type(title); // F1 opened the palette with '>' and the focus in its box
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor();
    await page.keyboard.press('Enter');
  };
  await palette('File: Save All');
  const onDisk = await waitFor('calc.go on disk to change', async () => {
    const text = fs.readFileSync(path.join(dirs.ws, 'calc.go'), 'utf8');
    return text !== original ? text : undefined;
  }).catch(() => fs.readFileSync(path.join(dirs.ws, 'calc.go'), 'utf8'));
  if (onDisk === expected) ok('calc.go on disk is the expected result');
  else notOk('calc.go on disk is the expected result', `got:\n${onDisk}`);
  const status = page.locator('.statusbar-item', { hasText: 'AIDE:' }).first();
  // All hunks were accepted, so the session is done (contract §5 states, §8 accepted + done events).
  const wantStatus = /AIDE: done · cycle 1\/8/;
  let statusNow = '';
  await waitFor('the status bar to show the finished session', async () => {
    statusNow = (await status.innerText()).trim();
    return wantStatus.test(statusNow);
  }).catch(() => {});
  if (wantStatus.test(statusNow)) ok(`status bar: ${statusNow}`);
  else notOk('status bar shows "AIDE: done · cycle 1/8"', `it shows "${statusNow}"`);
  if (!standIn) {
    const tools = model.requests.map((r) => (Array.isArray(r.tools) ? r.tools.length : 0));
    if (tools.length === 2 && tools[0] === 0 && tools[1] > 0) ok('the model got an architect call without tools, then an editor call with tools');
    else notOk('model calls: architect without tools, then editor with tools', `tools per request: ${JSON.stringify(tools)}`);
  }
  // 8b. Undo (contract §4 aide.undo): "AIDE: Undo session…" lists the session with its
  // accepted changes; picking it brings the reverts as a Refactor Preview like any proposal;
  // applied and saved, calc.go is as it was before the session.
  if (!standIn) {
    step = 'palette: AIDE: Undo session… lists the session';
    await palette('AIDE: Undo session…');
    const undoRow = page.locator('.quick-input-list .monaco-list-row', { hasText: 'rename the function add to sum' }).first();
    await undoRow.waitFor({ timeout: STEP_TIMEOUT_MS });
    ok(`"AIDE: Undo session…" offers ${(await undoRow.innerText()).replace(/\s+/g, ' ').trim()}`);
    await page.keyboard.press('Enter');
    step = 'the undo\'s Refactor Preview; tick and Apply';
    await applyInPreview('the undo');
    step = 'save all; the undo is on disk';
    await palette('File: Save All');
    const undone = await waitFor('calc.go on disk to be as before the session', async () => {
      const text = fs.readFileSync(path.join(dirs.ws, 'calc.go'), 'utf8');
      return text === original ? text : undefined;
    }).catch(() => fs.readFileSync(path.join(dirs.ws, 'calc.go'), 'utf8'));
    if (undone === original) ok('after the undo, calc.go on disk is as it was before the session');
    else notOk('after the undo, calc.go on disk is as it was before the session', `got:\n${undone}`);
  }
  // 9. Palette commands: off an AI comment, "AIDE: Architect…" asks for the task (Escape: nothing is sent);
  // "AIDE: Show cost" answers from the server.
  step = 'palette: AIDE: Architect… off an AI comment asks for the task';
  await editor.locator('.view-line', { hasText: 'package calc' }).click();
  await palette('AIDE: Architect…');
  await page.locator('.quick-input-widget', { hasText: 'What should change?' }).waitFor({ timeout: STEP_TIMEOUT_MS });
  ok('palette "AIDE: Architect…" off an AI comment asks for the task');
  await page.keyboard.press('Escape');
  step = 'palette: AIDE: Show cost';
  await palette('AIDE: Show cost');
  const toast = page.locator('.notification-toast', { hasText: 'AIDE cost' }).first();
  await toast.waitFor({ timeout: STEP_TIMEOUT_MS });
  ok(`palette "AIDE: Show cost": ${(await toast.innerText()).split('\n')[0].trim()}`);
  // 10. Cancel while the Refactor Preview is open (docs/architecture.md, "The boundary"):
  // VS Code answers a proposal's workspace/applyEdit only when its preview closes. The
  // session must stop at once all the same, and what the user then applies of the preview
  // is recorded as the user's edit: accepted after cancelled, never lost, never done.
  if (!standIn) {
    step = 'a second task; its proposal opens the Refactor Preview';
    const sessionsDir = path.join(dirs.ws, '.aide', 'sessions');
    const secondState = () => {
      for (const f of findFiles(sessionsDir, /\.json$/)) {
        const st = JSON.parse(fs.readFileSync(f, 'utf8'));
        if (st.task === secondTask) return { file: f, state: st.state };
      }
      return undefined;
    };
    await editor.locator('.view-line', { hasText: 'package calc' }).click();
    await palette('AIDE: Architect…');
    await page.locator('.quick-input-widget', { hasText: 'What should change?' }).waitFor({ timeout: STEP_TIMEOUT_MS });
    await page.keyboard.type(secondTask);
    await page.keyboard.press('Enter');
    await preview.waitFor({ timeout: STEP_TIMEOUT_MS });
    await waitFor('Refactor Preview entries', async () => (await preview.locator('.monaco-list-row').count()) > 0);
    const proposed = await waitFor('the second session to be proposed', () => secondState()?.state === 'proposed' && secondState());
    ok(`second proposal in the Refactor Preview (session ${path.basename(proposed.file, '.json')} proposed)`);
    await shot('preview-second');

    step = 'AIDE: Cancel while the preview is open';
    await palette('AIDE: Cancel');
    await waitFor('the session file to say cancelled', () => secondState()?.state === 'cancelled');
    ok('AIDE: Cancel with the preview open: the session file says cancelled');
    let statusNow2 = '';
    await waitFor('the status bar to show the cancelled session', async () => {
      statusNow2 = (await status.innerText()).trim();
      return /AIDE: cancelled/.test(statusNow2);
    }).catch(() => {});
    if (/AIDE: cancelled/.test(statusNow2)) ok(`status bar: ${statusNow2}`);
    else notOk('status bar shows "AIDE: cancelled"', `it shows "${statusNow2}"`);
    if (await preview.isVisible()) ok('the Refactor Preview is still open (its applyEdit unanswered)');
    else notOk('the Refactor Preview is still open after the cancel', 'it closed');

    step = 'apply the preview after the cancel; save all';
    await applyInPreview('the cancelled proposal');
    await palette('File: Save All');
    const landed = await waitFor('calc.go on disk to hold the applied change', async () => {
      const text = fs.readFileSync(path.join(dirs.ws, 'calc.go'), 'utf8');
      return text.includes('\treturn x * 2') ? text : undefined;
    }).catch(() => fs.readFileSync(path.join(dirs.ws, 'calc.go'), 'utf8'));
    if (landed.includes('\treturn x * 2')) ok('what the user applied after the cancel is in calc.go');
    else notOk('what the user applied after the cancel is in calc.go', `got:\n${landed}`);
    const events = () =>
      fs.readFileSync(proposed.file.replace(/\.json$/, '.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).event);
    const names = await waitFor('an accepted event after the cancel', () => {
      const n = events();
      return n.indexOf('accepted') > n.indexOf('cancelled') && n.indexOf('cancelled') >= 0 ? n : undefined;
    }).catch(() => events());
    const lateAccepted = names.indexOf('cancelled') >= 0 && names.indexOf('accepted') > names.indexOf('cancelled');
    if (lateAccepted && !names.includes('done') && !names.includes('rejected') && secondState()?.state === 'cancelled') {
      ok(`the late apply is recorded as the user's: ${names.join(' ')}; the session stays cancelled`);
    } else {
      notOk('the late apply is recorded accepted after cancelled, with no done or rejected', `events ${names.join(' ')}; state ${secondState()?.state}`);
    }
  }
  await page.screenshot({ path: path.join(outDir, `${tag}.png`) });
  console.log(`screenshot: tests/output/${tag}.png`);
}

let exitCode = 0;
try {
  await main();
} catch (err) {
  notOk(`step "${step}"`, err.message.split('\n')[0]);
  const aideOutput = findFiles(path.join(dirs.userData, 'logs'), /-AIDE\.log$/)[0];
  if (aideOutput) console.log(`--- the AIDE output channel (last 30 lines)\n${fs.readFileSync(aideOutput, 'utf8').split('\n').slice(-30).join('\n')}`);
  try {
    await globalThis.__page?.screenshot({ path: path.join(outDir, `${tag}-failure.png`) });
    console.log(`screenshot: tests/output/${tag}-failure.png`);
  } catch {}
  for (const [name, file] of [['aide-lsp log', serverLog], ['code-server log', path.join(tmp, 'code-server.log')]]) {
    if (fs.existsSync(file)) console.log(`--- ${name} (last 40 lines)\n${fs.readFileSync(file, 'utf8').split('\n').slice(-40).join('\n')}`);
  }
  console.log(`--- model requests: ${model?.requests.length ?? 0}`);
}
await cleanup();
if (failed > 0) exitCode = 1;
if (failed > 0 || process.env.KEEP === '1') console.log(`kept ${tmp}`);
else fs.rmSync(tmp, { recursive: true, force: true });
console.log(`e2e run time: ${secs()} s`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(exitCode);
