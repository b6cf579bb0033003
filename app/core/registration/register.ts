/**
 * Registering this server with an MCP client, removing it, and reporting where it stands.
 *
 * A client may have more than one config file (Claude Desktop on Windows). Every file is read
 * and checked before any is written, so a broken file stops the whole operation with nothing
 * changed. A file whose entry already matches is not written at all: no new backup, no new
 * modification time, and the result says nothing changed.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type ClientDefinition,
  type ClientId,
  CLIENT_IDS,
  type PlatformContext,
  defaultContext,
  getClient,
} from './clients.js';
import { ConfigConflictError, ConfigFileError, type ConfigSnapshot, readConfig, writeConfig } from './config-file.js';
import { ConfigShapeError } from './config-format.js';
import { type JsonObject, type JsonValue, isJsonObject } from './jsonc.js';
import {
  type EntrySummary,
  type ServerEntry,
  SERVER_NAME,
  describeChanges,
  entryProblems,
  mergeEntry,
  summarizeEntry,
} from './server-entry.js';

export interface RegistrationOptions extends Partial<PlatformContext> {
  /** Work out and report the change, but write nothing. */
  dryRun?: boolean;
  /**
   * For registerClient: when the entry sets no interpreter, keep the one already registered
   * with the client rather than removing it (the default removes it: the entry is taken as is).
   */
  keepInterpreter?: boolean;
  /**
   * The folder the person works in (the `register` command's own): what the client itself does
   * with the entry there, such as Gemini CLI's folder trust, is said for it.
   */
  folder?: string;
}

export type FileAction = 'added' | 'updated' | 'removed' | 'unchanged';

export interface FileOutcome {
  path: string;
  action: FileAction;
  /** The entry's old → new differences, for an update. */
  changes: string[];
  backup?: string;
}

export interface RegistrationResult {
  client: ClientId;
  /** The client's display name. */
  name: string;
  paths: string[];
  /** Whether any file was (or, in a dry run, would be) changed. */
  changed: boolean;
  /** The backup of the previous file, when one was written (the first, if several). */
  backup?: string;
  files: FileOutcome[];
  dryRun: boolean;
  /** A sentence or two for the user, including the restart hint when something changed. */
  message: string;
  /** What the client itself does with the entry that the person should know (ClientDefinition.notes), told after the message. */
  notes: string[];
}

/** Writes (or updates) this server's entry in every config file of the client. */
export async function registerClient(
  clientId: string | ClientDefinition,
  entry: ServerEntry,
  opts: RegistrationOptions = {},
): Promise<RegistrationResult> {
  const client = resolveClient(clientId);
  const shaped = client.shapeEntry(entry);
  const merge = { keepInterpreter: opts.keepInterpreter };
  const result = await updateClient(client, opts, 'register', (existing) => mergeEntry(existing, shaped, merge));
  return { ...result, notes: client.notes ? await client.notes(defaultContext(opts), opts.folder) : [] };
}

/** Removes this server's entry from every config file of the client; absent is not an error. */
export async function unregisterClient(
  clientId: string | ClientDefinition,
  opts: RegistrationOptions = {},
): Promise<RegistrationResult> {
  return updateClient(resolveClient(clientId), opts, 'remove', () => undefined);
}

/** A client is named by id, or given as a definition — e.g. a variant such as VS Code Insiders. */
function resolveClient(client: string | ClientDefinition): ClientDefinition {
  return typeof client === 'string' ? getClient(client) : client;
}

/** Retries when a client rewrites its config between our read and our rename. */
const MAX_ATTEMPTS = 5;

interface Plan {
  snapshot: ConfigSnapshot;
  before: JsonValue | undefined;
  after: JsonObject | undefined;
  text: string;
}

async function updateClient(
  client: ClientDefinition,
  opts: RegistrationOptions,
  kind: 'register' | 'remove',
  next: (existing: JsonValue | undefined) => JsonObject | undefined,
): Promise<RegistrationResult> {
  const ctx = defaultContext(opts);
  const paths = client.configPaths(ctx);
  const plan = async (file: string): Promise<Plan> => {
    const snapshot = await readConfig(file, client.format);
    const before = serverEntryIn(snapshot.value, client);
    const after = next(before);
    if (isDeepStrictEqual(before, after)) return { snapshot, before, after, text: snapshot.text };
    try {
      const text = snapshot.document.set([client.serversKey, SERVER_NAME], after);
      return { snapshot, before, after, text };
    } catch (err) {
      if (err instanceof ConfigShapeError) throw new ConfigFileError(file, 'shape', err.message);
      throw err;
    }
  };

  // Read and check all files first: one unreadable file means none is touched.
  const plans = await Promise.all(paths.map(plan));
  const files: FileOutcome[] = [];
  for (let p of plans) {
    let backup: string | undefined;
    for (let attempt = 1; p.text !== p.snapshot.text && !opts.dryRun; attempt++) {
      try {
        backup = (await writeConfig(p.snapshot, p.text)).backup;
        break;
      } catch (err) {
        if (!(err instanceof ConfigConflictError) || attempt >= MAX_ATTEMPTS) throw err;
        p = await plan(p.snapshot.path);
      }
    }
    files.push(outcome(p, backup));
  }
  const changed = files.some((f) => f.action !== 'unchanged');
  return {
    client: client.id,
    name: client.name,
    paths,
    changed,
    backup: files.find((f) => f.backup)?.backup,
    files,
    dryRun: Boolean(opts.dryRun),
    message: resultMessage(client, files, Boolean(opts.dryRun), kind),
    notes: [],
  };
}

function outcome(p: Plan, backup: string | undefined): FileOutcome {
  const file = p.snapshot.path;
  if (p.text === p.snapshot.text) return { path: file, action: 'unchanged', changes: [] };
  const action: FileAction = p.after === undefined ? 'removed' : p.before === undefined ? 'added' : 'updated';
  const changes = p.after === undefined ? [] : describeChanges(p.before, p.after);
  return backup ? { path: file, action, changes, backup } : { path: file, action, changes };
}

function resultMessage(
  client: ClientDefinition,
  files: FileOutcome[],
  dryRun: boolean,
  kind: 'register' | 'remove',
): string {
  const lines: string[] = [];
  for (const f of files) {
    switch (f.action) {
      case 'unchanged':
        lines.push(
          kind === 'remove'
            ? `${client.name} has no Python Session entry in ${f.path}; nothing changed.`
            : `${client.name} already has the current Python Session entry in ${f.path}; nothing changed.`,
        );
        break;
      case 'added':
        lines.push(`${dryRun ? 'Would add' : 'Added'} Python Session to ${client.name} in ${f.path}.`);
        break;
      case 'updated':
        lines.push(
          `${dryRun ? 'Would update' : 'Updated'} the Python Session entry of ${client.name} in ${f.path}` +
            (f.changes.length ? `: ${f.changes.join('; ')}.` : '.'),
        );
        break;
      case 'removed':
        lines.push(`${dryRun ? 'Would remove' : 'Removed'} Python Session from ${client.name} in ${f.path}.`);
        break;
    }
    if (f.backup) lines.push(`  The previous file is saved as ${f.backup}.`);
  }
  if (dryRun) lines.push('Dry run: nothing was written.');
  else if (files.some((f) => f.action !== 'unchanged')) lines.push(client.restartHint);
  return lines.join('\n');
}

function serverEntryIn(doc: JsonObject | undefined, client: ClientDefinition): JsonValue | undefined {
  const servers = doc?.[client.serversKey];
  return isJsonObject(servers) ? servers[SERVER_NAME] : undefined;
}

export type FileState = 'current' | 'stale' | 'registered' | 'absent' | 'unreadable';
export type ClientState = 'current' | 'stale' | 'registered' | 'not-registered' | 'not-installed' | 'unreadable';

export interface FileStatus {
  path: string;
  exists: boolean;
  state: FileState;
  entry?: EntrySummary;
  /** Why the entry is stale, or why the file cannot be read. */
  problems: string[];
}

export interface ClientStatus {
  client: ClientId;
  name: string;
  installed: boolean;
  /**
   * `current`/`stale` when an expected entry was given, `registered` when not;
   * `not-installed` when there is neither an entry nor a config folder.
   */
  state: ClientState;
  paths: string[];
  files: FileStatus[];
  problems: string[];
  /** For a registered client: what it does with the entry that the person should know (ClientDefinition.notes). */
  notes: string[];
}

export interface StatusOptions extends Partial<PlatformContext> {
  /** What this install would register; without it entries are reported, not judged. */
  expected?: ServerEntry;
  clients?: readonly ClientId[];
  /** The folder the person works in, for the notes; without it, the notes speak in general. */
  folder?: string;
}

/** Where each client stands: installed or not, registered or not, current or stale. */
export async function registrationStatus(opts: StatusOptions = {}): Promise<ClientStatus[]> {
  const ctx = defaultContext(opts);
  const ids = opts.clients ?? CLIENT_IDS;
  return Promise.all(ids.map((id) => clientStatus(getClient(id), ctx, opts.expected, opts.folder)));
}

async function clientStatus(client: ClientDefinition, ctx: PlatformContext, expected?: ServerEntry, folder?: string): Promise<ClientStatus> {
  const paths = client.configPaths(ctx);
  const shaped = expected && client.shapeEntry(expected);
  const files = await Promise.all(paths.map((p) => fileStatus(client, p, shaped)));
  const installed = client.isInstalled(ctx);
  const present = files.filter((f) => f.state !== 'absent');
  let state: ClientState;
  const problems: string[] = [];
  if (files.some((f) => f.state === 'unreadable')) {
    state = 'unreadable';
  } else if (present.length === 0) {
    state = installed ? 'not-registered' : 'not-installed';
  } else if (files.every((f) => f.state === 'current')) {
    state = 'current';
  } else if (!shaped && files.every((f) => f.state === 'registered')) {
    state = 'registered';
  } else {
    state = 'stale';
  }
  for (const f of files) {
    if (f.state === 'absent' && present.length > 0) problems.push(`not registered in ${f.path}`);
    else for (const problem of f.problems) problems.push(files.length > 1 ? `${f.path}: ${problem}` : problem);
  }
  const registered = state === 'current' || state === 'stale' || state === 'registered';
  const notes = registered && client.notes ? await client.notes(ctx, folder) : [];
  return { client: client.id, name: client.name, installed, state, paths, files, problems, notes };
}

async function fileStatus(client: ClientDefinition, file: string, expected?: JsonObject): Promise<FileStatus> {
  let snapshot: ConfigSnapshot;
  try {
    snapshot = await readConfig(file, client.format);
  } catch (err) {
    if (!(err instanceof ConfigFileError)) throw err;
    return { path: file, exists: true, state: 'unreadable', problems: [err.detail] };
  }
  const found = serverEntryIn(snapshot.value, client);
  if (found === undefined) return { path: file, exists: snapshot.exists, state: 'absent', problems: [] };
  const entry = summarizeEntry(found);
  const problems = expected ? entryProblems(found, expected) : [];
  const state: FileState = !expected ? 'registered' : problems.length ? 'stale' : 'current';
  return { path: file, exists: true, state, ...(entry && { entry }), problems };
}
