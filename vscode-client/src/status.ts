// Session state from aide/sessionEvent notifications (contract §8), and the
// status bar text made from it: state, `cycle n/8` and the session's cost.
// Pure: no vscode import, tested under node.

/** One aide/sessionEvent: `{session, event, time, ...}` with event-specific fields flattened beside. */
export interface SessionEvent {
  session: string;
  event: string;
  time?: string;
  [field: string]: unknown;
}

export interface SessionStatus {
  session: string;
  task?: string;
  /** The plan document's state words (contract §5): planning…, waiting for approval, editing…, proposed, done, cancelled, failed. */
  state: string;
  cycle: number;
  maxCycles: number;
  /** Sum of costUSD over the session's passes; undefined while no pass reported a price. */
  costUSD?: number;
  promptTokens: number;
  completionTokens: number;
  /** Last error or fallback message, shown in the tooltip. */
  note?: string;
  /** True once the session can take no more commands. */
  finished: boolean;
}

const DEFAULT_MAX_CYCLES = 8;

export function newSession(session: string, task?: string, state = 'planning…'): SessionStatus {
  return { session, task, state, cycle: 0, maxCycles: DEFAULT_MAX_CYCLES, promptTokens: 0, completionTokens: 0, finished: false };
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** True when the value looks like a session event; anything else from the wire is ignored. */
export function isSessionEvent(v: unknown): v is SessionEvent {
  return typeof v === 'object' && v !== null && typeof (v as SessionEvent).session === 'string' && typeof (v as SessionEvent).event === 'string';
}

/** The status after one event. Returns a new object; `prev` may be undefined for a session not seen yet. */
export function applyEvent(prev: SessionStatus | undefined, ev: SessionEvent): SessionStatus {
  const s: SessionStatus = prev ? { ...prev } : newSession(ev.session);
  s.task = str(ev.task) ?? s.task;
  const maxCycles = num(ev.maxCycles);
  if (maxCycles !== undefined) s.maxCycles = maxCycles;
  const cycle = num(ev.cycle);
  if (cycle !== undefined) s.cycle = cycle;

  switch (ev.event) {
    case 'architect_pass':
      if (cycle === undefined) s.cycle += 1;
      s.state = 'planning…';
      addUsage(s, ev);
      break;
    case 'plan':
      s.state = ev.reviewPlan === false ? 'editing…' : 'waiting for approval';
      break;
    case 'editor_pass':
      if (s.cycle === 0 && cycle === undefined) s.cycle = 1; // one-call path: no architect pass
      s.state = 'editing…';
      addUsage(s, ev);
      break;
    case 'proposal':
      s.state = 'proposed';
      break;
    case 'accepted':
    case 'rejected':
    case 'stale':
      break;
    case 'fallback':
    case 'drift':
      s.note = str(ev.message) ?? str(ev.reason) ?? ev.event;
      break;
    case 'error':
      s.note = str(ev.message) ?? str(ev.error) ?? 'error';
      break;
    case 'cancelled':
      s.state = 'cancelled';
      s.finished = true;
      break;
    case 'done':
      s.state = str(ev.state) === 'failed' || ev.ok === false ? 'failed' : 'done';
      s.finished = true;
      break;
  }
  // A server that says its state outright is believed over our inference.
  const state = str(ev.state);
  if (state && ev.event !== 'done') s.state = state;
  const total = num(ev.sessionCostUSD);
  if (total !== undefined) s.costUSD = total;
  return s;
}

function addUsage(s: SessionStatus, ev: SessionEvent): void {
  s.promptTokens += num(ev.promptTokens) ?? 0;
  s.completionTokens += num(ev.completionTokens) ?? 0;
  const cost = num(ev.costUSD);
  if (cost !== undefined) s.costUSD = (s.costUSD ?? 0) + cost;
}

/** `$0.0123` with enough digits to show cents of a cent; `$0` stays short. */
export function formatCost(usd: number): string {
  if (usd === 0) return '$0';
  if (usd >= 1) return `$${usd.toFixed(2)}`;
  return `$${usd.toFixed(4)}`;
}

/** `12.3k` tokens. */
export function formatTokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

/** The status bar text. */
export function statusText(s: SessionStatus | undefined): string {
  if (!s) return '$(sparkle) AIDE';
  const parts = [`$(sparkle) AIDE: ${s.state}`];
  if (s.cycle > 0) parts.push(`cycle ${s.cycle}/${s.maxCycles}`);
  if (s.costUSD !== undefined) parts.push(formatCost(s.costUSD));
  else if (s.promptTokens + s.completionTokens > 0) parts.push(`${formatTokens(s.promptTokens + s.completionTokens)} tok`);
  return parts.join(' · ');
}

/** The status bar tooltip: the task, the session id, tokens and the last note. */
export function statusTooltip(s: SessionStatus | undefined): string {
  if (!s) return 'AIDE: no session yet. Put the cursor on an `AI:` comment and press Ctrl+. or run "AIDE: Architect…".';
  const lines = [`AIDE session ${s.session}`];
  if (s.task) lines.push(`Task: ${s.task}`);
  lines.push(`State: ${s.state}`);
  lines.push(`Tokens: ${s.promptTokens} prompt, ${s.completionTokens} completion`);
  if (s.note) lines.push(`Last note: ${s.note}`);
  return lines.join('\n');
}
