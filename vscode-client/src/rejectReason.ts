// Why a hunk was rejected, asked once after a Refactor Preview left hunks
// unticked. In VS Code unticking is the rejection, so the server learns of it
// from the applyEdit and emits `rejected` with no reason; one input box then
// asks why (it may be left empty) and the answer goes to aide.reject as
// `reason`, which the architect is told on the next re-plan (contract §4).
// Pure: no vscode import, tested under node.

import type { SessionEvent } from './status';

export interface RejectArgs {
  session: string;
  hunks: string[];
  reason: string;
}

function hunkIds(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((h): h is string => typeof h === 'string' && h !== '') : [];
}

/**
 * Remembers the rejections the user made through aide.reject (a code action
 * or a command), so that only the hunks left unticked in a preview are asked
 * about: a reject the user chose explicitly already had its chance.
 */
export class RejectReasons {
  private readonly own = new Map<string, Set<string> | 'all'>();

  /** An aide.reject the client sent: `hunks` absent means every pending hunk. */
  noteOwnReject(arg: unknown): void {
    if (typeof arg !== 'object' || arg === null) return;
    const a = arg as { session?: unknown; hunks?: unknown; reason?: unknown };
    if (typeof a.session !== 'string') return;
    if (a.hunks === undefined) {
      this.own.set(a.session, 'all');
      return;
    }
    const prev = this.own.get(a.session);
    const set = prev instanceof Set ? prev : new Set<string>();
    for (const h of hunkIds(a.hunks)) set.add(h);
    this.own.set(a.session, set);
  }

  /** The hunks of a `rejected` event to ask a reason for; empty for any other event. */
  toAsk(ev: SessionEvent): string[] {
    if (ev.event !== 'rejected') return [];
    if (typeof ev.reason === 'string' && ev.reason.trim() !== '') return [];
    const own = this.own.get(ev.session);
    if (own === 'all') {
      this.own.delete(ev.session);
      return [];
    }
    const ask: string[] = [];
    for (const h of hunkIds(ev.hunks)) {
      if (own?.has(h)) own.delete(h);
      else ask.push(h);
    }
    return ask;
  }
}

/** The input box's texts for the hunks left unticked. */
export function reasonPrompt(hunks: readonly string[]): { title: string; prompt: string; placeHolder: string } {
  const which = hunks.length === 1 ? `hunk ${hunks[0]}` : `hunks ${hunks.join(', ')}`;
  return {
    title: `AIDE: why did you reject ${which}?`,
    prompt: 'Optional: the architect is told on the next re-plan. Leave it empty (or press Escape) to give no reason.',
    placeHolder: 'for example: keep the call site',
  };
}

/** The aide.reject argument carrying the reason, or undefined when the user gave none. */
export function rejectReasonArgs(session: string, hunks: readonly string[], reason: string | undefined): RejectArgs | undefined {
  const r = reason?.trim();
  if (!r || hunks.length === 0) return undefined;
  return { session, hunks: [...hunks], reason: r };
}
