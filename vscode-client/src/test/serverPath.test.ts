import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chooseServer, notFoundMessage, resolveServerPath, Lookup } from '../serverPath';

const env = (files: string[], extra: Partial<Lookup> = {}): Lookup => ({
  folder: '/work/proj',
  home: '/home/u',
  pathVar: '/usr/local/bin:/usr/bin',
  platform: 'linux',
  isExecutable: (f) => files.includes(f),
  ...extra,
});

test('a bare name is looked up on PATH, first match wins', () => {
  assert.equal(resolveServerPath('aide-lsp', env(['/usr/bin/aide-lsp', '/usr/local/bin/aide-lsp'])), '/usr/local/bin/aide-lsp');
  assert.equal(resolveServerPath('', env(['/usr/bin/aide-lsp'])), '/usr/bin/aide-lsp', 'empty setting means the default name');
  assert.equal(resolveServerPath('aide-lsp', env([])), undefined);
});

test('paths: absolute, ~, ${workspaceFolder}, relative to the workspace', () => {
  assert.equal(resolveServerPath('/opt/aide/aide-lsp', env(['/opt/aide/aide-lsp'])), '/opt/aide/aide-lsp');
  assert.equal(resolveServerPath('~/go/bin/aide-lsp', env(['/home/u/go/bin/aide-lsp'])), '/home/u/go/bin/aide-lsp');
  assert.equal(resolveServerPath('${workspaceFolder}/bin/aide-lsp', env(['/work/proj/bin/aide-lsp'])), '/work/proj/bin/aide-lsp');
  assert.equal(resolveServerPath('bin/aide-lsp', env(['/work/proj/bin/aide-lsp'])), '/work/proj/bin/aide-lsp');
  assert.equal(resolveServerPath('/opt/none/aide-lsp', env(['/usr/bin/aide-lsp'])), undefined, 'a path is not searched on PATH');
});

test('windows looks for .exe', () => {
  assert.equal(resolveServerPath('aide-lsp', env(['C:\\bin/aide-lsp.exe'], { pathVar: 'C:\\bin', platform: 'win32' })), 'C:\\bin/aide-lsp.exe');
});

test('the not-found message names what was looked for and both fixes', () => {
  const m = notFoundMessage('aide-lsp');
  assert.match(m, /"aide-lsp" was not found on PATH/);
  assert.match(m, /go install github\.com\/aide-lsp\/aide-lsp\/cmd\/aide-lsp@latest/);
  assert.match(m, /aide\.serverPath/);
  assert.doesNotMatch(notFoundMessage('/opt/x/aide-lsp'), /on PATH/);
  assert.doesNotMatch(m, /Remote settings/);
});

test('in a remote window the message says the setting belongs in the Remote settings', () => {
  // VS Code ignores machine-scoped settings in the User settings of a remote window (docs/editors.md).
  const m = notFoundMessage('aide-lsp', 'ssh-remote');
  assert.match(m, /"aide-lsp" was not found on PATH/);
  assert.match(m, /go install /);
  assert.match(m, /"aide\.serverPath" .* in the Remote settings \("Preferences: Open Remote Settings"\)/);
  assert.match(m, /remote window \(ssh-remote\)/);
  assert.match(m, /ignores "aide\.serverPath" in the User settings/);
});

test('the bundled server runs unless aide.serverPath is set; PATH is the last resort', () => {
  const bundled = '/ext/aide-lsp.aide-lsp-0.2.0-linux-x64/server/aide-lsp';
  const both = env([bundled, '/usr/bin/aide-lsp', '/opt/aide-lsp']);
  assert.deepEqual(chooseServer('', bundled, both), { command: bundled, source: 'the server bundled with this extension' });
  assert.deepEqual(chooseServer('  ', bundled, both)?.command, bundled, 'blank is unset');
  assert.deepEqual(chooseServer('/opt/aide-lsp', bundled, both), { command: '/opt/aide-lsp', source: 'aide.serverPath ("/opt/aide-lsp")' });
  assert.equal(chooseServer('aide-lsp', bundled, both)?.command, '/usr/bin/aide-lsp', 'a set bare name is looked up on PATH, not bundled');
  assert.equal(chooseServer('/opt/none', bundled, both), undefined, 'a set path that is missing is not replaced by the bundled one');
  const unbundled = chooseServer('', bundled, env(['/usr/bin/aide-lsp']));
  assert.equal(unbundled?.command, '/usr/bin/aide-lsp');
  assert.match(unbundled?.source ?? '', /on PATH \(this extension carries no server for this platform\)/);
  assert.equal(chooseServer('', bundled, env([])), undefined);
  assert.match(notFoundMessage(''), /carries no server for this platform/);
});
