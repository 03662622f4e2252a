import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { commentText, findAIComment } from '../aiComment';
import { approveWithModels, taskArgs, taskSource, sessionOf, costTable } from '../commandArgs';

const goFile = [
  'package main', //                                   0
  '',
  '// AI: extract the retry loop into a helper', //     2
  '// and give it a name that says what it retries', // 3
  'func fetch() error {', //                            4
  '\t// plain comment', //                              5
  '\treturn nil',
  '}',
];

test('cursor on the AI: line gives the task with its continuation lines', () => {
  const c = findAIComment(goFile, 2);
  assert.deepEqual(c, { line: 2, endLine: 3, task: 'extract the retry loop into a helper and give it a name that says what it retries' });
});

test('cursor on a continuation line finds the same comment', () => {
  assert.equal(findAIComment(goFile, 3)?.line, 2);
});

test('cursor on code or on an ordinary comment is not on an AI comment', () => {
  assert.equal(findAIComment(goFile, 4), undefined);
  assert.equal(findAIComment(goFile, 5), undefined);
  assert.equal(findAIComment(goFile, 0), undefined);
  assert.equal(findAIComment(goFile, 99), undefined);
  assert.equal(findAIComment(goFile, -1), undefined);
});

test('comment styles of other languages', () => {
  assert.equal(findAIComment(['    # AI: add type hints'], 0)?.task, 'add type hints');
  assert.equal(findAIComment(['-- AI: index the users table'], 0)?.task, 'index the users table');
  assert.equal(findAIComment(['/* AI: simplify this */'], 0)?.task, 'simplify this');
  assert.equal(findAIComment(['<!-- AI: add alt text -->'], 0)?.task, 'add alt text');
  assert.equal(findAIComment(['; AI: fold the constants'], 0)?.task, 'fold the constants');
});

test('AI: must open the comment text, and an empty task is no task', () => {
  assert.equal(findAIComment(['// note AI: not a task'], 0), undefined);
  assert.equal(findAIComment(['// ai: lower case is not the marker'], 0), undefined);
  assert.equal(findAIComment(['x := 1 // AI: trailing comments are code lines'], 0), undefined);
  assert.equal(findAIComment(['// AI:'], 0), undefined);
  assert.equal(findAIComment(['// AI:', '// the task is on the next line'], 0)?.task, 'the task is on the next line');
});

test('a second AI comment right below starts a new task', () => {
  const lines = ['// AI: first', '// AI: second'];
  assert.equal(findAIComment(lines, 0)?.task, 'first');
  assert.equal(findAIComment(lines, 1)?.task, 'second');
});

test('commentText strips openers and block closers', () => {
  assert.equal(commentText('  /// doc'), 'doc');
  assert.equal(commentText('x = 1'), undefined);
  assert.equal(commentText(' * AI: in a block'), 'AI: in a block');
});

test('palette commands ask for a task only off an AI comment', () => {
  assert.deepEqual(taskSource(goFile, 2), { kind: 'comment', task: 'extract the retry loop into a helper and give it a name that says what it retries' });
  assert.deepEqual(taskSource(goFile, 6), { kind: 'ask' });
});

test('command arguments follow contract §4', () => {
  const range = { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } };
  assert.deepEqual(taskArgs('file:///w/a.go', range), { uri: 'file:///w/a.go', range });
  assert.deepEqual(taskArgs('file:///w/a.go', range, '  rename x  '), { uri: 'file:///w/a.go', range, task: 'rename x' });
  assert.deepEqual(taskArgs('file:///w/a.go', undefined, '   '), { uri: 'file:///w/a.go' });
  assert.equal(sessionOf({ session: 's1' }), 's1');
  assert.equal(sessionOf({ session: '' }), undefined);
  assert.equal(sessionOf(null), undefined);
  assert.equal(sessionOf('s1'), undefined);
});

test('cost table', () => {
  assert.equal(costTable({ rows: [] }), 'No model calls yet.');
  assert.equal(costTable(undefined), 'No model calls yet.');
  const t = costTable({ rows: [{ model: 'fake/m', role: 'architect', requests: 1, promptTokens: 100, completionTokens: 20, costUSD: 0.0015 }], total: 0.0015 });
  assert.match(t, /\| fake\/m \| architect \| 1 \| 100 \| 20 \| 0\.0015 \|/);
  assert.match(t, /Total: \$0\.0015$/);
});

test('approve with: the configured models and the priced ones, each once, valid ids only', () => {
  assert.deepEqual(
    approveWithModels({ architectModel: 'anthropic/claude', editorModel: 'ollama/qwen:7b', prices: { 'openai/gpt-4o-mini': {}, 'anthropic/claude': {}, 'bad id': {} } }),
    ['ollama/qwen:7b', 'anthropic/claude', 'openai/gpt-4o-mini'],
  );
  assert.deepEqual(approveWithModels({ editorModel: '' }), []);
});

// The server's language table (treesitter/langtable.go) is checked against
// tests/testdata/languages.json by a Go test; here every line-comment
// marker listed there must open a comment the client reads, so the palette
// never prompts for a task on an AI comment the server recognises.
test('every comment marker of the shared language fixture opens an AI comment', () => {
  const fixture = path.join(__dirname, '..', '..', '..', 'tests', 'testdata', 'languages.json');
  const langs = JSON.parse(fs.readFileSync(fixture, 'utf8')) as { name: string; comments?: string[] }[];
  let markers = 0;
  for (const lang of langs) {
    for (const marker of lang.comments ?? []) {
      markers++;
      assert.equal(commentText(`  ${marker} AI: rename it`), 'AI: rename it', `${lang.name}: ${marker}`);
      const c = findAIComment([`${marker} AI: rename the helper`, `${marker} and its callers`, 'code'], 1);
      assert.equal(c?.task, 'rename the helper and its callers', `${lang.name}: ${marker}`);
    }
  }
  assert.ok(markers > 5, `only ${markers} markers read from ${fixture}`);
});
