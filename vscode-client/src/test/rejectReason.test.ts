import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { RejectReasons, reasonPrompt, rejectReasonArgs } from '../rejectReason';

test('hunks left unticked in the preview are asked about, once, in one box', () => {
  const r = new RejectReasons();
  assert.deepEqual(r.toAsk({ session: 's1', event: 'rejected', hunks: ['h2', 'h3'] }), ['h2', 'h3']);
  assert.equal(reasonPrompt(['h2', 'h3']).title, 'AIDE: why did you reject hunks h2, h3?');
  assert.equal(reasonPrompt(['h2']).title, 'AIDE: why did you reject hunk h2?');
});

test('other events, and rejections that already carry a reason, ask nothing', () => {
  const r = new RejectReasons();
  assert.deepEqual(r.toAsk({ session: 's1', event: 'accepted', hunks: ['h1'] }), []);
  assert.deepEqual(r.toAsk({ session: 's1', event: 'stale', hunks: ['h1'] }), []);
  assert.deepEqual(r.toAsk({ session: 's1', event: 'rejected', hunks: ['h2'], reason: 'keep the call site' }), []);
  assert.deepEqual(r.toAsk({ session: 's1', event: 'rejected', hunks: 'h2' }), []);
});

test('a reject the user chose (code action, reject all) is not asked again', () => {
  const r = new RejectReasons();
  r.noteOwnReject({ session: 's1', hunks: ['h1'] });
  assert.deepEqual(r.toAsk({ session: 's1', event: 'rejected', hunks: ['h1', 'h4'] }), ['h4']);
  // Remembered once: a later preview that leaves h1 unticked again is asked about.
  assert.deepEqual(r.toAsk({ session: 's1', event: 'rejected', hunks: ['h1'] }), ['h1']);
  r.noteOwnReject({ session: 's2' });
  assert.deepEqual(r.toAsk({ session: 's2', event: 'rejected', hunks: ['h1', 'h2'] }), []);
  assert.deepEqual(r.toAsk({ session: 's2', event: 'rejected', hunks: ['h3'] }), ['h3']);
});

test('an empty answer sends nothing; a reason goes to aide.reject trimmed', () => {
  assert.equal(rejectReasonArgs('s1', ['h2'], undefined), undefined);
  assert.equal(rejectReasonArgs('s1', ['h2'], '   '), undefined);
  assert.deepEqual(rejectReasonArgs('s1', ['h2'], ' keep the call site '), { session: 's1', hunks: ['h2'], reason: 'keep the call site' });
});
