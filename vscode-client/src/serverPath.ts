// Finding the aide-lsp binary: the `aide.serverPath` setting when set, else the
// server bundled in a platform-specific extension (server/aide-lsp), else
// aide-lsp on PATH; and the message that says how to fix it when none is
// there. Pure apart from the injected file check, tested under node.

import * as path from 'path';

export const INSTALL_HINT = 'go install github.com/aide-lsp/aide-lsp/cmd/aide-lsp@latest';

/** The binary to run and where it came from, for the output channel. */
export interface ServerChoice {
  command: string;
  source: string;
}

/**
 * aide.serverPath wins when set; otherwise the server bundled in this platform's extension
 * (`bundled`, the path of server/aide-lsp in the extension folder); otherwise aide-lsp on
 * PATH, for an extension packaged without a platform target (no server inside).
 */
export function chooseServer(setting: string, bundled: string, env: Lookup): ServerChoice | undefined {
  const set = setting.trim();
  if (set) {
    const command = resolveServerPath(set, env);
    return command ? { command, source: `aide.serverPath ("${set}")` } : undefined;
  }
  if (env.isExecutable(bundled)) return { command: bundled, source: 'the server bundled with this extension' };
  const command = resolveServerPath('aide-lsp', env);
  return command ? { command, source: 'aide-lsp on PATH (this extension carries no server for this platform)' } : undefined;
}

export interface Lookup {
  /** The first workspace folder, for `${workspaceFolder}` and relative paths. */
  folder?: string;
  home: string;
  /** The PATH variable. */
  pathVar: string;
  platform: NodeJS.Platform;
  isExecutable: (file: string) => boolean;
}

/** Expands `~` and `${workspaceFolder}`, then finds the binary (a bare name on PATH). Undefined when not found. */
export function resolveServerPath(setting: string, env: Lookup): string | undefined {
  let p = setting.trim() || 'aide-lsp';
  if (env.folder) p = p.replace(/\$\{workspaceFolder\}/g, env.folder);
  if (p === '~' || p.startsWith('~/')) p = path.join(env.home, p.slice(1));
  if (p.includes('/') || p.includes('\\')) {
    if (!path.isAbsolute(p) && env.folder) p = path.join(env.folder, p);
    return env.isExecutable(p) ? p : undefined;
  }
  const exts = env.platform === 'win32' ? ['.exe', ''] : [''];
  for (const dir of env.pathVar.split(env.platform === 'win32' ? ';' : ':')) {
    if (!dir) continue;
    for (const ext of exts) {
      const f = path.join(dir, p + ext);
      if (env.isExecutable(f)) return f;
    }
  }
  return undefined;
}

/**
 * The error shown when the binary is missing: what was looked for, and both ways to fix it.
 * `remoteName` is vscode.env.remoteName: in a remote window (code-server, Remote-SSH, WSL,
 * Dev Containers) VS Code reads machine-scoped settings such as aide.serverPath from the
 * remote's settings only and ignores them in the User settings, so say where it must go.
 */
export function notFoundMessage(setting: string, remoteName?: string): string {
  const name = setting.trim() || 'aide-lsp';
  const where = name.includes('/') || name.includes('\\') ? '' : ' on PATH';
  const bundle = setting.trim() ? '' : ' and this extension carries no server for this platform';
  const msg = `AIDE: the language server "${name}" was not found${where}${bundle}. Install the AIDE extension for your platform (it carries the server), or a release binary, or \`${INSTALL_HINT}\`; or set "aide.serverPath" to the full path of the aide-lsp binary`;
  if (!remoteName) return `${msg}.`;
  return `${msg} in the Remote settings ("Preferences: Open Remote Settings"): this is a remote window (${remoteName}), where VS Code ignores "aide.serverPath" in the User settings.`;
}
