import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { undoPicks, undoSummary } from '../commandArgs';

test('undo picks: only sessions with changes to undo, newest first', () => {
  const picks = undoPicks({
    sessions: [
      { session: 's1', task: 'rename Foo\nand Bar', state: 'done', createdAt: '2026-01-01T10:00:00Z', undoable: 3 },
      { session: 's2', task: 'plan only', state: 'waiting for approval', createdAt: '2026-01-01T11:00:00Z' },
      { session: 's3', task: '', state: 'done', createdAt: '2026-01-01T12:00:00Z', undoable: 1 },
    ],
  });
  assert.deepEqual(picks.map((p) => p.session), ['s3', 's1']);
  assert.equal(picks[1].label, 'rename Foo');
  assert.match(picks[1].description, /^3 changes · 2026-01-01 10:00 · s1$/);
  assert.equal(picks[0].label, 's3');
  assert.match(picks[0].description, /^1 change · /);
});

test('undo picks: a result without sessions offers none', () => {
  assert.deepEqual(undoPicks(undefined), []);
  assert.deepEqual(undoPicks({ sessions: 'x' }), []);
});

test('undo summary names the conflicts with their reasons', () => {
  assert.deepEqual(undoSummary({ undone: ['h2', 'h3'], conflicts: [] }), {
    level: 'info',
    text: 'AIDE: 2 changes to undo: review them in the preview.',
  });
  const s = undoSummary({ undone: ['h2'], conflicts: [{ id: 'h1', reason: 'main.go:8: the lines it wrote changed since: "x"' }] });
  assert.equal(s.level, 'warning');
  assert.match(s.text, /1 change to undo/);
  assert.match(s.text, /h1: main.go:8: the lines it wrote changed since/);
  assert.equal(undoSummary({ undone: [], conflicts: [] }).text, 'AIDE: nothing to undo.');
});
