// Settings → the `aide` configuration object the server reads (contract §3),
// sent as initializationOptions and as the answer to workspace/configuration.
//
// Only values set somewhere (user, workspace or folder settings) are sent,
// never the contributed defaults, which would silently override the user's
// own config file. Workspace and folder values go in `workspaceSettings`,
// ranked by the server as the workspace's settings. Client-only keys
// (serverPath, serverArgs, trace) are not sent: the server reports unknown
// keys. Pure: no vscode import, tested under node.
//
// A repository's .vscode/settings.json is workspace input (contract §8): the
// routing keys (ROUTING_KEYS) are sent only from the user's own settings
// (inspect().globalValue), and deny lists of every scope are unioned, so a
// workspace can add to the user's deny list but never take from it.

/** The keys of contract §3, in its order. */
export const SERVER_KEYS = [
  'architectModel',
  'editorModel',
  'providers',
  'reviewPlan',
  'maxCycles',
  'editorFailureThreshold',
  'maxMistakes',
  'onDrift',
  'delivery',
  'repoMapTokens',
  'deny',
  'prices',
  'requestTimeoutSeconds',
] as const;

export type ServerKey = (typeof SERVER_KEYS)[number];

/** Keys that route requests and keys: sent from user settings only (docs/contract.md §3, trust-only). */
export const ROUTING_KEYS: readonly ServerKey[] = ['providers'];

/** The shape of WorkspaceConfiguration.inspect's answer that we use. */
export interface Inspected {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

/** The value the user set, most specific scope first; undefined when only the default applies. */
export function explicitValue(inspected: Inspected | undefined): unknown {
  if (!inspected) return undefined;
  for (const v of [inspected.workspaceFolderValue, inspected.workspaceValue, inspected.globalValue]) {
    if (v !== undefined) return v;
  }
  return undefined;
}

/** The value a workspace (its .vscode/settings.json or the folder's) set, folder first. */
export function workspaceValue(inspected: Inspected | undefined): unknown {
  if (!inspected) return undefined;
  return inspected.workspaceFolderValue !== undefined ? inspected.workspaceFolderValue : inspected.workspaceValue;
}

function sendable(key: ServerKey, value: unknown): boolean {
  if (value === undefined || value === null) return false;
  return !(typeof value === 'string' && value.trim() === '' && (key === 'architectModel' || key === 'editorModel'));
}

/**
 * The configuration object for the server. The user's own settings
 * (globalValue) are sent as they are; what a workspace set (its
 * .vscode/settings.json, the folder's settings) goes in `workspaceSettings`,
 * which the server ranks and limits as the workspace's own
 * .aide/config.json (contract §3): below your settings and environment,
 * never routing keys, never less review, bounded. An empty string for a
 * model means "not set" (the settings UI cannot unset a string), so it is
 * left out and the server's own rule (editorModel follows architectModel)
 * applies.
 */
export function serverSettings(inspect: (key: ServerKey) => Inspected | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const workspace: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const inspected = inspect(key);
    if (key === 'deny') {
      const value = unionDeny(inspected);
      if (value !== undefined) out[key] = value;
      continue;
    }
    const user = inspected?.globalValue;
    if (sendable(key, user)) out[key] = user;
    const ws = ROUTING_KEYS.includes(key) ? undefined : workspaceValue(inspected);
    if (sendable(key, ws)) workspace[key] = ws;
  }
  if (Object.keys(workspace).length > 0) out.workspaceSettings = workspace;
  return out;
}

/** True when a configuration change touches a key the server reads. */
export function affectsServer(affects: (section: string) => boolean): boolean {
  return SERVER_KEYS.some((key) => affects(`aide.${key}`));
}

/** True when a configuration change needs the server process restarted. */
export function affectsProcess(affects: (section: string) => boolean): boolean {
  return affects('aide.serverPath') || affects('aide.serverArgs');
}

/** The deny globs of every scope, user first, without repeats; undefined when no scope sets any. */
export function unionDeny(inspected: Inspected | undefined): unknown {
  if (!inspected) return undefined;
  const scopes = [inspected.globalValue, inspected.workspaceValue, inspected.workspaceFolderValue].filter((v) => v !== undefined);
  if (scopes.length === 0) return undefined;
  const out: unknown[] = [];
  for (const v of scopes) {
    if (!Array.isArray(v)) continue;
    for (const g of v) if (!out.includes(g)) out.push(g);
  }
  return out;
}
