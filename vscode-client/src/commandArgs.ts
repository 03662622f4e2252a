// The argument objects of the aide.* commands (contract §4), and the decision
// whether the palette commands must ask for a task. Pure: no vscode import.

import { findAIComment } from './aiComment';

export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }

export interface TaskArgs {
  uri: string;
  range?: Range;
  task?: string;
}

/**
 * What a palette command should do about the task at the cursor: `comment`
 * when the cursor is on an AI comment (the server reads the task from it, so
 * no prompt), `ask` otherwise.
 */
export function taskSource(lines: readonly string[], cursorLine: number): { kind: 'comment'; task: string } | { kind: 'ask' } {
  const c = findAIComment(lines, cursorLine);
  return c ? { kind: 'comment', task: c.task } : { kind: 'ask' };
}

/** `{uri, range, task?}` for aide.architect / aide.edit; a blank task is left out so the server uses the comment. */
export function taskArgs(uri: string, range: Range | undefined, task?: string): TaskArgs {
  const args: TaskArgs = { uri };
  if (range) args.range = range;
  const t = task?.trim();
  if (t) args.task = t;
  return args;
}

/** The session id in a command result `{session}`; undefined for anything else. */
export function sessionOf(result: unknown): string | undefined {
  if (typeof result === 'object' && result !== null) {
    const s = (result as { session?: unknown }).session;
    if (typeof s === 'string' && s !== '') return s;
  }
  return undefined;
}

export interface CostRow {
  model: string;
  role: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  costUSD: number;
}

/** The aide.cost result as Markdown table lines, for the output channel and the message. */
export function costTable(result: unknown): string {
  const r = (result ?? {}) as { rows?: CostRow[]; total?: unknown };
  const rows = Array.isArray(r.rows) ? r.rows : [];
  if (rows.length === 0) return 'No model calls yet.';
  const lines = ['| model | role | requests | prompt | completion | USD |', '|---|---|---:|---:|---:|---:|'];
  for (const row of rows) {
    lines.push(`| ${row.model} | ${row.role} | ${row.requests} | ${row.promptTokens} | ${row.completionTokens} | ${Number(row.costUSD ?? 0).toFixed(4)} |`);
  }
  const total = typeof r.total === 'number' ? r.total : typeof r.total === 'object' && r.total !== null ? Number((r.total as { costUSD?: number }).costUSD ?? 0) : rows.reduce((a, x) => a + Number(x.costUSD ?? 0), 0);
  lines.push(`Total: $${total.toFixed(4)}`);
  return lines.join('\n');
}

/**
 * The models "Approve with…" offers: the configured architect and editor
 * models and every model in `aide.prices`, each once, in that order (the
 * plan document prices each of them while the plan waits).
 */
export function approveWithModels(cfg: { architectModel?: unknown; editorModel?: unknown; prices?: unknown }): string[] {
  const out: string[] = [];
  const add = (m: unknown) => {
    if (typeof m === 'string' && /^[^/\s]+\/\S+$/.test(m) && !out.includes(m)) out.push(m);
  };
  add(cfg.editorModel);
  add(cfg.architectModel);
  if (typeof cfg.prices === 'object' && cfg.prices !== null) Object.keys(cfg.prices).sort().forEach(add);
  return out;
}

export interface UndoPick {
  label: string;
  description: string;
  session: string;
}

/**
 * The sessions "Undo session…" offers, from the aide.sessions result: those
 * with accepted changes an undo would revert (`undoable`), newest first.
 */
export function undoPicks(result: unknown): UndoPick[] {
  const list = (result ?? {}) as { sessions?: unknown };
  const rows = Array.isArray(list.sessions) ? list.sessions : [];
  const out: (UndoPick & { at: string })[] = [];
  for (const r of rows as { session?: unknown; task?: unknown; state?: unknown; createdAt?: unknown; undoable?: unknown }[]) {
    const n = typeof r?.undoable === 'number' ? r.undoable : 0;
    if (typeof r?.session !== 'string' || n <= 0) continue;
    const task = typeof r.task === 'string' && r.task.trim() ? r.task.trim().split('\n')[0] : r.session;
    const at = typeof r.createdAt === 'string' ? r.createdAt : '';
    const when = at ? ` · ${at.slice(0, 16).replace('T', ' ')}` : '';
    out.push({ label: task, description: `${n} change${n === 1 ? '' : 's'}${when} · ${r.session}`, session: r.session, at });
  }
  out.sort((a, b) => (a.at === b.at ? b.session.localeCompare(a.session) : b.at.localeCompare(a.at)));
  return out.map(({ label, description, session }) => ({ label, description, session }));
}

/** What to tell the user after aide.undo `{session, undone, conflicts}`. */
export function undoSummary(result: unknown): { level: 'info' | 'warning'; text: string } {
  const r = (result ?? {}) as { undone?: unknown; conflicts?: unknown };
  const undone = Array.isArray(r.undone) ? r.undone.length : 0;
  const conflicts = Array.isArray(r.conflicts) ? (r.conflicts as { id?: unknown; reason?: unknown }[]) : [];
  const left = conflicts.map((c) => `${String(c?.id)}: ${String(c?.reason)}`);
  if (undone === 0 && left.length === 0) return { level: 'info', text: 'AIDE: nothing to undo.' };
  let text = undone > 0 ? `AIDE: ${undone} change${undone === 1 ? '' : 's'} to undo: review them in the preview.` : 'AIDE: nothing was undone.';
  if (left.length > 0) text += ` Not undone (changed since): ${left.join('; ')}`;
  return { level: left.length > 0 ? 'warning' : 'info', text };
}
