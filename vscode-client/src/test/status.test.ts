import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { applyEvent, formatCost, isSessionEvent, newSession, SessionEvent, SessionStatus, statusText, statusTooltip } from '../status';

function run(events: SessionEvent[], start?: SessionStatus): SessionStatus {
  let s = start;
  for (const ev of events) s = applyEvent(s, ev);
  return s!;
}

test('no session: a plain item', () => {
  assert.equal(statusText(undefined), '$(sparkle) AIDE');
  assert.match(statusTooltip(undefined), /AI:/);
});

test('a command just sent shows planning before any event', () => {
  assert.equal(statusText(newSession('s1', 'rename')), '$(sparkle) AIDE: planning…');
});

test('architect pass then plan: waiting for approval, cycle 1/8, cost', () => {
  const s = run([
    { session: 's1', event: 'architect_pass', model: 'fake/m', promptTokens: 1200, completionTokens: 300, ms: 900, costUSD: 0.0021 },
    { session: 's1', event: 'plan' },
  ]);
  assert.equal(statusText(s), '$(sparkle) AIDE: waiting for approval · cycle 1/8 · $0.0021');
});

test('without prices the tokens are shown instead of a cost', () => {
  const s = run([{ session: 's1', event: 'architect_pass', promptTokens: 1200, completionTokens: 300 }]);
  assert.equal(statusText(s), '$(sparkle) AIDE: planning… · cycle 1/8 · 1.5k tok');
});

test('editor pass and proposal add up the cost; done finishes the session', () => {
  const s = run([
    { session: 's1', event: 'architect_pass', costUSD: 0.01 },
    { session: 's1', event: 'plan' },
    { session: 's1', event: 'editor_pass', costUSD: 0.005 },
    { session: 's1', event: 'proposal' },
  ]);
  assert.equal(statusText(s), '$(sparkle) AIDE: proposed · cycle 1/8 · $0.0150');
  const done = applyEvent(s, { session: 's1', event: 'done' });
  assert.equal(done.state, 'done');
  assert.ok(done.finished);
  assert.equal(s.state, 'proposed', 'applyEvent does not mutate its input');
});

test('the server-given cycle, maxCycles, state and session cost win over inference', () => {
  const s = run([
    { session: 's1', event: 'architect_pass', cycle: 3, maxCycles: 5 },
    { session: 's1', event: 'plan', state: 'editing…', sessionCostUSD: 1.5 },
  ]);
  assert.equal(statusText(s), '$(sparkle) AIDE: editing… · cycle 3/5 · $1.50');
});

test('a second architect pass (re-plan) counts a new cycle', () => {
  const s = run([
    { session: 's1', event: 'architect_pass' },
    { session: 's1', event: 'plan' },
    { session: 's1', event: 'architect_pass' },
  ]);
  assert.equal(s.cycle, 2);
});

test('one-call sessions show cycle 1 from the editor pass', () => {
  assert.equal(run([{ session: 's1', event: 'editor_pass' }]).cycle, 1);
});

test('errors and fallbacks are kept as a note; cancelled and failed are final', () => {
  let s = run([{ session: 's1', event: 'error', message: 'edit refused: outside the workspace' }]);
  assert.equal(s.note, 'edit refused: outside the workspace');
  assert.match(statusTooltip(s), /outside the workspace/);
  s = applyEvent(s, { session: 's1', event: 'cancelled' });
  assert.equal(s.state, 'cancelled');
  assert.equal(applyEvent(undefined, { session: 's2', event: 'done', state: 'failed' }).state, 'failed');
});

test('hostile wire values are ignored, not trusted', () => {
  assert.ok(!isSessionEvent(null));
  assert.ok(!isSessionEvent({ session: 1, event: 'plan' }));
  assert.ok(isSessionEvent({ session: 's', event: 'x' }));
  const s = run([{ session: 's1', event: 'architect_pass', promptTokens: 'many', costUSD: Number.NaN, cycle: '2' }]);
  assert.equal(s.promptTokens, 0);
  assert.equal(s.costUSD, undefined);
  assert.equal(s.cycle, 1);
});

test('cost formatting', () => {
  assert.equal(formatCost(0), '$0');
  assert.equal(formatCost(0.00012), '$0.0001');
  assert.equal(formatCost(12.345), '$12.35');
});
