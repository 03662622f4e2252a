// The AIDE extension: starts aide-lsp, passes the `aide` settings, shows plan
// documents (the aide-plan: virtual form of contract §5), offers the palette
// commands of contract §4, and keeps a status bar item from aide/sessionEvent.
// The logic worth testing lives in the pure modules (aiComment, settings,
// status, commandArgs, rejectReason); this file is the wiring to the vscode API.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ConfigurationRequest,
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  StaticFeature,
} from 'vscode-languageclient/node';
import { chooseServer, notFoundMessage } from './serverPath';
import { approveWithModels, costTable, sessionOf, taskArgs, taskSource, undoPicks, undoSummary } from './commandArgs';
import { affectsProcess, affectsServer, serverSettings, ServerKey } from './settings';
import { applyEvent, isSessionEvent, newSession, SessionStatus, statusText, statusTooltip } from './status';
import { reasonPrompt, RejectReasons, rejectReasonArgs } from './rejectReason';

const PLAN_SCHEME = 'aide-plan';

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
const sessions = new Map<string, SessionStatus>();
const rejectReasons = new RejectReasons();
let currentSession: string | undefined;
let plans: PlanDocuments;

/** Advertises the virtual plan document (contract §5) in the initialize request. */
class PlanDocumentCapability implements StaticFeature {
  fillClientCapabilities(capabilities: { experimental?: unknown }): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    experimental.aidePlanDocument = true;
    capabilities.experimental = experimental;
  }
  initialize(): void {}
  getState() {
    return { kind: 'static' as const };
  }
  clear(): void {}
}

/**
 * The aide-plan: content provider. Content comes from `aide/planDocument`;
 * `aide/planDocumentChanged` fires onDidChange so open views refresh. The URI
 * strings the server sends are kept as given and sent back unchanged.
 */
class PlanDocuments implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** vscode's normalised uri string → the server's uri string. */
  private readonly serverUris = new Map<string, string>();
  /** Plans already shown once, so a refresh does not steal a column again. */
  private readonly shown = new Set<string>();
  /** The newest version the server announced per plan, and the version each
   * open view holds: a change announced while VS Code was still opening the
   * document, or while a fetch was in flight, is otherwise lost (VS Code
   * ignores onDidChange for a document that is not open yet). */
  private readonly announced = new Map<string, number>();
  private readonly held = new Map<string, number>();

  remember(serverUri: string): vscode.Uri {
    const uri = vscode.Uri.parse(serverUri);
    this.serverUris.set(uri.toString(), serverUri);
    return uri;
  }

  async provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): Promise<string> {
    if (!client || client.state !== State.Running) return '# AIDE\n\nThe aide-lsp server is not running.\n';
    const serverUri = this.serverUris.get(uri.toString()) ?? uri.toString();
    try {
      const doc = await client.sendRequest<{ uri: string; version: number; text: string }>('aide/planDocument', { uri: serverUri }, token);
      if (typeof doc?.version === 'number') {
        this.held.set(uri.toString(), doc.version);
        this.catchUp(uri);
      }
      return doc?.text ?? '';
    } catch (err) {
      output.appendLine(`aide/planDocument ${serverUri}: ${errorText(err)}`);
      return `# AIDE\n\nCould not load the plan: ${errorText(err)}\n`;
    }
  }

  /** aide/planDocumentChanged: refresh, and show the plan the first time it is announced. */
  onServerChange(serverUri: string, version?: number): void {
    const uri = this.remember(serverUri);
    if (typeof version === 'number') {
      this.announced.set(uri.toString(), Math.max(version, this.announced.get(uri.toString()) ?? 0));
    }
    this.changed.fire(uri);
    if (!this.shown.has(uri.toString())) void this.show(uri).then(() => this.catchUp(uri));
  }

  /** Refreshes a view that holds an older version than the server announced. */
  private catchUp(uri: vscode.Uri): void {
    const key = uri.toString();
    const want = this.announced.get(key);
    const have = this.held.get(key);
    if (want !== undefined && (have === undefined || have < want)) {
      setTimeout(() => this.changed.fire(uri), 0);
    }
  }

  /** Opens the plan beside the code, keeping the focus in the code. */
  async show(uri: vscode.Uri): Promise<void> {
    this.shown.add(uri.toString());
    const session = sessionFromPlanUri(uri);
    if (session) setCurrentSession(session);
    const view = vscode.workspace.getConfiguration('aide').get<string>('planView', 'source');
    if (view === 'preview') {
      await vscode.commands.executeCommand('markdown.showPreviewToSide', uri);
      return;
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true, preview: false });
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** `aide-plan:/<session>.md` → session. */
function sessionFromPlanUri(uri: vscode.Uri): string | undefined {
  if (uri.scheme !== PLAN_SCHEME) return undefined;
  const base = uri.path.replace(/^\/+/, '').replace(/\.md$/, '');
  return base || undefined;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function inspectServerKey(key: ServerKey, scope?: vscode.Uri) {
  return vscode.workspace.getConfiguration('aide', scope).inspect(key);
}

function currentServerSettings(scope?: vscode.Uri): Record<string, unknown> {
  return serverSettings((key) => inspectServerKey(key, scope));
}

function isExecutableFile(f: string): boolean {
  try {
    fs.accessSync(f, fs.constants.X_OK);
    return fs.statSync(f).isFile();
  } catch {
    return false;
  }
}

// A zip may lose the executable bit of the bundled server on the way; put it back
// (the file is the extension's own, in its install folder).
function makeExecutable(f: string): void {
  if (process.platform === 'win32' || !fs.existsSync(f) || isExecutableFile(f)) return;
  try {
    fs.chmodSync(f, 0o755);
  } catch (err) {
    output.appendLine(`cannot make the bundled server executable: ${errorText(err)}`);
  }
}

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  const config = vscode.workspace.getConfiguration('aide');
  const setting = config.get<string>('serverPath', '');
  const bundled = path.join(context.extensionPath, 'server', process.platform === 'win32' ? 'aide-lsp.exe' : 'aide-lsp');
  makeExecutable(bundled);
  const choice = chooseServer(setting, bundled, {
    folder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    home: os.homedir(),
    pathVar: process.env.PATH ?? '',
    platform: process.platform,
    isExecutable: isExecutableFile,
  });
  if (!choice) {
    const remote = vscode.env.remoteName;
    const msg = notFoundMessage(setting, remote);
    output.appendLine(msg);
    updateStatus('$(error) AIDE: server not found', msg);
    // Not awaited: the notification stays until dismissed, and activation (or the restart
    // that a settings change triggers) must not wait on it.
    void vscode.window.showErrorMessage(msg, 'Open Settings').then(async (pick) => {
      if (pick !== 'Open Settings') return;
      // In a remote window the setting only counts in the Remote settings.
      if (remote) {
        try {
          await vscode.commands.executeCommand('workbench.action.openRemoteSettings');
          return;
        } catch {
          // Not every remote host has that command: fall back to the Settings editor.
        }
      }
      await vscode.commands.executeCommand('workbench.action.openSettings', 'aide.serverPath');
    });
    return;
  }
  const command = choice.command;
  const args = ['serve', ...config.get<string[]>('serverArgs', [])];
  output.appendLine(`using ${choice.source}: ${command}`);
  output.appendLine(`starting ${command} ${args.join(' ')}`);
  // No `transport`: stdio without the `--stdio` flag that TransportKind.stdio appends (serve takes only its own flags).
  const serverOptions: ServerOptions = { command, args };
  const clientOptions: LanguageClientOptions = {
    // AI comments can be in any language, so every file is the server's business.
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    outputChannel: output,
    initializationOptions: currentServerSettings(),
    middleware: {
      workspace: {
        // Answer `aide` with the explicitly set values only (see settings.ts).
        configuration: (params, token, next) => mergeConfiguration(params, token, next),
      },
      executeCommand: async (command, commandArgs, next) => {
        // Code actions run aide.architect / aide.edit through here: learn the session.
        if (command === 'aide.reject') rejectReasons.noteOwnReject(commandArgs?.[0]);
        const result = await next(command, commandArgs);
        const session = sessionOf(result);
        if (session && (command === 'aide.architect' || command === 'aide.edit')) startedSession(session, commandArgs?.[0]?.task);
        return result;
      },
      window: {
        showDocument: async (params, next) => {
          if (params.uri.startsWith(`${PLAN_SCHEME}:`)) {
            await plans.show(plans.remember(params.uri));
            return { success: true };
          }
          const result = await next(params, new vscode.CancellationTokenSource().token);
          return 'success' in result ? result : { success: false };
        },
      },
    },
  };
  client = new LanguageClient('aide', 'AIDE', serverOptions, clientOptions);
  client.registerFeature(new PlanDocumentCapability());
  client.onNotification('aide/planDocumentChanged', (p: { uri?: unknown; version?: unknown }) => {
    if (typeof p?.uri === 'string') plans.onServerChange(p.uri, typeof p.version === 'number' ? p.version : undefined);
  });
  client.onNotification('aide/sessionEvent', (ev: unknown) => {
    if (!isSessionEvent(ev)) return;
    output.appendLine(`event ${JSON.stringify(ev)}`);
    sessions.set(ev.session, applyEvent(sessions.get(ev.session), ev));
    const unticked = rejectReasons.toAsk(ev);
    if (unticked.length > 0) void askRejectReason(ev.session, unticked);
    if (!currentSession || ev.event === 'architect_pass' || ev.event === 'plan') setCurrentSession(ev.session);
    else refreshStatus();
  });
  try {
    await client.start();
    output.appendLine('aide-lsp started');
    refreshStatus();
  } catch (err) {
    const msg = `AIDE: could not start ${command}: ${errorText(err)}. See the "AIDE" output for the server's log; check "aide.serverPath".`;
    output.appendLine(msg);
    updateStatus('$(error) AIDE: server failed', msg);
    void vscode.window.showErrorMessage(msg, 'Show Log').then((p) => p && output.show());
  }
}

function mergeConfiguration(params: { items: { section?: string; scopeUri?: string }[] }, token: vscode.CancellationToken, next: ConfigurationRequest.HandlerSignature) {
  // Some items are not ours: let the default handler answer them, then put ours in.
  return Promise.resolve(next(params as never, token)).then((answer) => {
    if (!Array.isArray(answer)) return answer;
    return params.items.map((item, i) =>
      item.section === 'aide' ? currentServerSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined) : answer[i],
    );
  });
}

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.stop();
    } catch (err) {
      output.appendLine(`stopping aide-lsp: ${errorText(err)}`);
    }
  }
}

function setCurrentSession(session: string): void {
  currentSession = session;
  void vscode.commands.executeCommand('setContext', 'aide.hasSession', true);
  refreshStatus();
}

function startedSession(session: string, task?: string): void {
  if (!sessions.has(session)) sessions.set(session, newSession(session, typeof task === 'string' ? task : undefined));
  setCurrentSession(session);
}

function refreshStatus(): void {
  const s = currentSession ? sessions.get(currentSession) : undefined;
  updateStatus(statusText(s), statusTooltip(s));
}

function updateStatus(text: string, tooltip: string): void {
  statusItem.text = text;
  statusItem.tooltip = tooltip;
  statusItem.show();
}

/** workspace/executeCommand aide.* with one argument object. */
async function execute(command: string, arg: object): Promise<unknown> {
  if (!client || client.state !== State.Running) {
    throw new Error('the aide-lsp server is not running. Check "aide.serverPath" and the "AIDE" output.');
  }
  output.appendLine(`${command} ${JSON.stringify(arg)}`);
  return client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] });
}

/** One input box after a preview left hunks unticked; a reason given goes to aide.reject. */
async function askRejectReason(session: string, hunks: string[]): Promise<void> {
  const reason = await vscode.window.showInputBox({ ...reasonPrompt(hunks), ignoreFocusOut: true });
  const arg = rejectReasonArgs(session, hunks, reason);
  if (!arg) return;
  try {
    await execute('aide.reject', arg);
  } catch (err) {
    output.appendLine(`aide.reject with a reason: ${errorText(err)}`);
    void vscode.window.showErrorMessage(`AIDE: the reason was not recorded: ${errorText(err)}`);
  }
}

/** Runs a palette command, turning failures into one error message. */
function guarded(fn: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await fn();
    } catch (err) {
      output.appendLine(`error: ${errorText(err)}`);
      void vscode.window.showErrorMessage(`AIDE: ${errorText(err)}`);
    }
  };
}

/** Architect… / Edit…: the task from the AI comment at the cursor, else from an input box. */
async function runTask(command: 'aide.architect' | 'aide.edit'): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.uri.scheme === PLAN_SCHEME) {
    throw new Error('open the file to change and put the cursor in it (or on an "AI:" comment) first.');
  }
  const doc = editor.document;
  const lines = Array.from({ length: doc.lineCount }, (_, i) => doc.lineAt(i).text);
  const source = taskSource(lines, editor.selection.active.line);
  let task: string | undefined;
  if (source.kind === 'ask') {
    task = await vscode.window.showInputBox({
      title: command === 'aide.architect' ? 'AIDE: Architect → Editor' : 'AIDE: Edit (one call)',
      prompt: 'What should change? (Or write an "AI: …" comment in the code and run this on it.)',
      placeHolder: 'e.g. extract the retry loop into a helper',
      ignoreFocusOut: true,
    });
    if (!task?.trim()) return;
  }
  const sel = editor.selection;
  const range = { start: { line: sel.start.line, character: sel.start.character }, end: { line: sel.end.line, character: sel.end.character } };
  const result = await execute(command, taskArgs(doc.uri.toString(), range, task));
  const session = sessionOf(result);
  if (session) startedSession(session, task ?? (source.kind === 'comment' ? source.task : undefined));
}

/** The session a session command applies to: the plan in front, else the current one, else ask. */
async function pickSession(): Promise<string | undefined> {
  const front = vscode.window.activeTextEditor?.document.uri;
  const fromPlan = front && sessionFromPlanUri(front);
  if (fromPlan) return fromPlan;
  if (currentSession) return currentSession;
  const list = (await execute('aide.sessions', {})) as { sessions?: { session: string; task?: string; state?: string }[] };
  const items = (list?.sessions ?? []).map((s) => ({ label: s.task || s.session, description: s.state, session: s.session }));
  if (items.length === 0) throw new Error('no session yet: run "AIDE: Architect…" first.');
  const pick = await vscode.window.showQuickPick(items, { title: 'AIDE: which session?' });
  return pick?.session;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('AIDE');
  plans = new PlanDocuments();
  statusItem = vscode.window.createStatusBarItem('aide.status', vscode.StatusBarAlignment.Left, 10);
  statusItem.name = 'AIDE';
  statusItem.command = 'aide.client.showPlan';
  refreshStatus();
  context.subscriptions.push(output, statusItem, plans, vscode.workspace.registerTextDocumentContentProvider(PLAN_SCHEME, plans));

  const reg = (id: string, fn: () => Promise<void>) => context.subscriptions.push(vscode.commands.registerCommand(id, guarded(fn)));
  reg('aide.client.architect', () => runTask('aide.architect'));
  reg('aide.client.edit', () => runTask('aide.edit'));
  reg('aide.client.approvePlan', async () => {
    const session = await pickSession();
    if (!session) return;
    await execute('aide.approvePlan', { session });
    const s = sessions.get(session);
    if (s) sessions.set(session, { ...s, state: 'editing…' });
    refreshStatus();
  });
  reg('aide.client.approveWith', async () => {
    const session = await pickSession();
    if (!session) return;
    const c = vscode.workspace.getConfiguration('aide');
    const models = approveWithModels({ architectModel: c.get('architectModel'), editorModel: c.get('editorModel'), prices: c.get('prices') });
    const model = await vscode.window.showQuickPick(models, {
      title: 'AIDE: Approve with…',
      placeHolder: 'The editor call runs on this model (the plan document shows each one\'s estimate)',
      ignoreFocusOut: true,
    });
    if (!model) return;
    await execute('aide.approvePlan', { session, editorModel: model });
    const s = sessions.get(session);
    if (s) sessions.set(session, { ...s, state: 'editing…' });
    refreshStatus();
  });
  reg('aide.client.replan', async () => {
    const session = await pickSession();
    if (!session) return;
    const feedback = await vscode.window.showInputBox({ title: 'AIDE: Re-plan', prompt: 'What should the new plan do differently? (optional)', ignoreFocusOut: true });
    if (feedback === undefined) return;
    await execute('aide.replan', feedback.trim() ? { session, feedback: feedback.trim() } : { session });
  });
  reg('aide.client.cancel', async () => {
    const session = await pickSession();
    if (session) await execute('aide.cancel', { session });
  });
  reg('aide.client.showCost', async () => {
    const table = costTable(await execute('aide.cost', {}));
    output.appendLine(table);
    output.show(true);
    const total = table.split('\n').pop() ?? table;
    void vscode.window.showInformationMessage(`AIDE cost — ${total} (table in the AIDE output)`);
  });
  reg('aide.client.showPlan', async () => {
    const session = await pickSession();
    if (!session) return;
    const r = (await execute('aide.showPlan', { session })) as { uri?: string };
    if (typeof r?.uri !== 'string') throw new Error(`no plan document for session ${session} yet.`);
    if (r.uri.startsWith(`${PLAN_SCHEME}:`)) await plans.show(plans.remember(r.uri));
    else await vscode.window.showTextDocument(vscode.Uri.parse(r.uri), { viewColumn: vscode.ViewColumn.Beside });
  });
  reg('aide.client.undo', async () => {
    // The sessions with accepted changes still standing; the reverts come
    // back as a proposal reviewed in the Refactor Preview like any other.
    const items = undoPicks(await execute('aide.sessions', {}));
    if (items.length === 0) throw new Error('no accepted change to undo in this workspace.');
    const pick = await vscode.window.showQuickPick(items, {
      title: 'AIDE: Undo session…',
      placeHolder: 'The changes it made are reverted where they still stand; what you typed since stays',
      matchOnDescription: true,
    });
    if (!pick) return;
    const summary = undoSummary(await execute('aide.undo', { session: pick.session }));
    if (summary.level === 'warning') void vscode.window.showWarningMessage(summary.text);
    else void vscode.window.showInformationMessage(summary.text);
  });
  reg('aide.client.showLog', async () => output.show());
  reg('aide.client.restartServer', async () => {
    await stopClient();
    await startClient(context);
  });

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (affectsProcess((s) => e.affectsConfiguration(s))) {
        output.appendLine('aide.serverPath or aide.serverArgs changed: restarting aide-lsp');
        await stopClient();
        await startClient(context);
        return;
      }
      if (client?.state === State.Running && affectsServer((s) => e.affectsConfiguration(s))) {
        // The server re-reads the `aide` section through workspace/configuration.
        await client.sendNotification(DidChangeConfigurationNotification.type, { settings: { aide: currentServerSettings() } });
      }
    }),
  );
  await startClient(context);
}

export async function deactivate(): Promise<void> {
  await stopClient();
}
