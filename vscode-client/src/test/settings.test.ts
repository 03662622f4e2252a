import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { affectsProcess, affectsServer, explicitValue, serverSettings, SERVER_KEYS, Inspected } from '../settings';

test('only values the user set reach the server, never the contributed defaults', () => {
  const inspected: Record<string, Inspected> = {
    architectModel: { globalValue: 'openai/gpt-4.1' },
    reviewPlan: { workspaceValue: false, globalValue: true },
    maxCycles: {}, // default only
    providers: { workspaceFolderValue: { fake: { kind: 'openai', baseURL: 'http://127.0.0.1:1/v1' } }, workspaceValue: {} },
  };
  assert.deepEqual(serverSettings((k) => inspected[k]), {
    architectModel: 'openai/gpt-4.1',
    reviewPlan: true,
    workspaceSettings: { reviewPlan: false },
  });
});

test('workspace and folder values are sent as workspaceSettings, never as the user\'s', () => {
  const inspected: Record<string, Inspected> = {
    architectModel: { globalValue: 'ollama/mine', workspaceValue: 'openai/gpt-4.1' },
    requestTimeoutSeconds: { workspaceFolderValue: 999999, workspaceValue: 60 },
    delivery: { workspaceValue: 'applyEdit' },
  };
  assert.deepEqual(serverSettings((k) => inspected[k]), {
    architectModel: 'ollama/mine',
    workspaceSettings: { architectModel: 'openai/gpt-4.1', requestTimeoutSeconds: 999999, delivery: 'applyEdit' },
  });
});

test('routing keys come from user settings only; deny lists of every scope are unioned', () => {
  const inspected: Record<string, Inspected> = {
    providers: { globalValue: { mine: { kind: 'openai', baseURL: 'https://llm.example/v1' } }, workspaceValue: { evil: { kind: 'openai' } } },
    deny: { globalValue: ['secret/**'], workspaceValue: [] },
  };
  assert.deepEqual(serverSettings((k) => inspected[k]), {
    providers: { mine: { kind: 'openai', baseURL: 'https://llm.example/v1' } },
    deny: ['secret/**'],
  });
});

test('an empty model string means unset, so editorModel follows architectModel on the server', () => {
  assert.deepEqual(serverSettings((k) => (k === 'editorModel' ? { globalValue: '  ' } : undefined)), {});
});

test('falsy values the user set are still sent', () => {
  const s = serverSettings((k) => (k === 'reviewPlan' ? { globalValue: false } : k === 'deny' ? { globalValue: [] } : undefined));
  assert.deepEqual(s, { reviewPlan: false, deny: [] });
});

test('client-only settings are never sent (the server reports unknown keys)', () => {
  const asked: string[] = [];
  serverSettings((k) => {
    asked.push(k);
    return { globalValue: 1 };
  });
  assert.deepEqual(asked, [...SERVER_KEYS]);
  assert.ok(!asked.includes('serverPath' as never));
});

test('the contributed settings mirror contract §3 (every key, with its default)', () => {
  const pkg = require('../../package.json');
  const props = pkg.contributes.configuration.properties;
  const defaults: Record<string, unknown> = {
    architectModel: 'ollama/qwen2.5-coder:14b', editorModel: '', providers: {}, reviewPlan: true, maxCycles: 8,
    editorFailureThreshold: 2, maxMistakes: 3, onDrift: 'continue', delivery: 'auto', repoMapTokens: 1024,
    deny: [], prices: {}, requestTimeoutSeconds: 300,
  };
  for (const key of SERVER_KEYS) {
    const p = props[`aide.${key}`];
    assert.ok(p, `aide.${key} is contributed`);
    assert.ok(p.markdownDescription || p.description, `aide.${key} has a description`);
    assert.deepEqual(p.default, defaults[key], `default of aide.${key}`);
  }
  assert.deepEqual(props['aide.onDrift'].enum, ['continue', 'replan', 'stop']);
  assert.deepEqual(props['aide.delivery'].enum, ['auto', 'applyEdit', 'codeActions']);
  assert.equal(props['aide.serverPath'].default, '', 'empty: the bundled server (serverPath.ts)');
});

test('explicit value precedence: folder over workspace over user', () => {
  assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2, workspaceFolderValue: 3 }), 3);
  assert.equal(explicitValue({ globalValue: 1, workspaceValue: 2 }), 2);
  assert.equal(explicitValue({ globalValue: 1 }), 1);
  assert.equal(explicitValue(undefined), undefined);
});

test('which changes restart the process and which notify the server', () => {
  const only = (name: string) => (s: string) => s === name;
  assert.ok(affectsServer(only('aide.maxCycles')));
  assert.ok(!affectsServer(only('aide.serverPath')));
  assert.ok(affectsProcess(only('aide.serverPath')));
  assert.ok(!affectsProcess(only('aide.architectModel')));
});
