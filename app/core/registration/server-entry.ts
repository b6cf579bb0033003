/**
 * Our server entry inside a client's config: what it holds, how a new one is merged into an
 * existing one, and how an existing one is judged against what this install would write.
 *
 * The entry belongs to us only in part. The user (or the client's own UI) may have added keys
 * to it — `disabled`, `alwaysAllow`, extra environment variables such as `PYTHON_MCP_HOME` — and
 * those survive a re-registration. What we own and always set: `type` (where the client wants
 * it), `command`, `args`, and the environment variables listed in OWNED_ENV.
 */
import { isDeepStrictEqual } from 'node:util';
import { type JsonObject, type JsonValue, isJsonObject } from './jsonc.js';

/** The name of our entry under the client's servers key. */
export const SERVER_NAME = 'python-session';
export const INTERPRETER_ENV = 'PYTHON_MCP_INTERPRETER';
/** Makes an Electron binary behave as plain Node; set when the tray app registers itself. */
export const ELECTRON_RUN_AS_NODE_ENV = 'ELECTRON_RUN_AS_NODE';
/**
 * Environment variables that describe this install. They are replaced on every registration,
 * and removed when the new entry does not set them (unless the caller asks to keep the
 * interpreter already registered — see MergeOptions).
 */
export const OWNED_ENV: readonly string[] = [INTERPRETER_ENV, ELECTRON_RUN_AS_NODE_ENV];

/** What runs the server: a command line plus environment, independent of any client's format. */
export interface ServerEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** The readable part of an entry found in a config, for status output. */
export interface EntrySummary {
  command?: string;
  args?: string[];
  interpreter?: string;
}

export interface MergeOptions {
  /**
   * When the new entry sets no interpreter, keep the one already registered instead of
   * removing it. Lets "register again after an upgrade" refresh the command without undoing
   * the user's choice of interpreter.
   */
  keepInterpreter?: boolean;
}

/**
 * The entry to write, given the one already in the file (if any) and the client-shaped entry
 * for this install. Keys the user added are kept in their original order.
 */
export function mergeEntry(existing: JsonValue | undefined, shaped: JsonObject, options: MergeOptions = {}): JsonObject {
  // An entry of another kind under our name (a remote `url` server, say) is replaced outright:
  // merging our command into it would give a hybrid no client can run.
  if (!isJsonObject(existing) || !isStdioEntry(existing)) return structuredClone(shaped);
  const out: JsonObject = structuredClone(existing);
  for (const key of ['type', 'command', 'args'] as const) {
    if (shaped[key] !== undefined) out[key] = structuredClone(shaped[key]);
  }
  const env: JsonObject = isJsonObject(existing.env) ? structuredClone(existing.env) : {};
  const wanted = isJsonObject(shaped.env) ? shaped.env : {};
  for (const key of OWNED_ENV) {
    const keep = key === INTERPRETER_ENV && options.keepInterpreter && wanted[key] === undefined;
    if (!keep) delete env[key];
  }
  Object.assign(env, wanted);
  // An `env` the file already had stays (even empty); we add one only when we need it.
  if (Object.keys(env).length > 0 || 'env' in existing) out.env = env;
  return out;
}

/**
 * Why an existing entry does not match what this install would write; empty when it matches.
 * Judged: `type` (where the client wants one), `command`, `args`, and each environment variable
 * the expected entry sets. An interpreter in the file is only judged when one is expected, so
 * "does it run this install?" can be answered without knowing which interpreter was chosen.
 */
export function entryProblems(existing: JsonValue | undefined, expected: JsonObject): string[] {
  if (existing === undefined) return ['not registered'];
  if (!isJsonObject(existing)) return ['the entry is not a JSON object'];
  const problems: string[] = [];
  if (expected.type !== undefined && existing.type !== expected.type) {
    problems.push(`its type is ${show(existing.type)}, not ${show(expected.type)}`);
  }
  if (existing.command !== expected.command) {
    problems.push(`it runs ${show(existing.command)} instead of ${show(expected.command)}`);
  }
  if (!isDeepStrictEqual(existing.args, expected.args)) {
    problems.push(`its arguments are ${show(existing.args)} instead of ${show(expected.args)}`);
  }
  const have = isJsonObject(existing.env) ? existing.env : {};
  const want = isJsonObject(expected.env) ? expected.env : {};
  for (const [key, value] of Object.entries(want)) {
    if (have[key] === value) continue;
    problems.push(
      key === INTERPRETER_ENV
        ? have[key] === undefined
          ? `it sets no interpreter (expected ${show(value)})`
          : `it uses interpreter ${show(have[key])} instead of ${show(value)}`
        : `${key} is ${show(have[key])} instead of ${show(value)}`,
    );
  }
  return problems;
}

/** What changed between the old entry and the new one, in the user's terms. */
export function describeChanges(before: JsonValue | undefined, after: JsonObject): string[] {
  if (!isJsonObject(before)) return [];
  const changes: string[] = [];
  if (before.command !== after.command) changes.push(`command ${show(before.command)} → ${show(after.command)}`);
  if (!isDeepStrictEqual(before.args, after.args)) changes.push(`arguments ${show(before.args)} → ${show(after.args)}`);
  if (before.type !== after.type) changes.push(`type ${show(before.type)} → ${show(after.type)}`);
  const oldEnv = isJsonObject(before.env) ? before.env : {};
  const newEnv = isJsonObject(after.env) ? after.env : {};
  for (const key of OWNED_ENV) {
    if (oldEnv[key] === newEnv[key]) continue;
    const label = key === INTERPRETER_ENV ? 'interpreter' : key;
    const fmt = (v: JsonValue | undefined) =>
      v === undefined ? (key === INTERPRETER_ENV ? '(chosen by the daemon)' : '(unset)') : show(v);
    changes.push(`${label} ${fmt(oldEnv[key])} → ${fmt(newEnv[key])}`);
  }
  return changes;
}

export function summarizeEntry(entry: JsonValue | undefined): EntrySummary | undefined {
  if (!isJsonObject(entry)) return undefined;
  const summary: EntrySummary = {};
  if (typeof entry.command === 'string') summary.command = entry.command;
  if (Array.isArray(entry.args) && entry.args.every((a) => typeof a === 'string')) {
    summary.args = entry.args as string[];
  }
  const env = isJsonObject(entry.env) ? entry.env : {};
  if (typeof env[INTERPRETER_ENV] === 'string') summary.interpreter = env[INTERPRETER_ENV];
  return summary;
}

function isStdioEntry(entry: JsonObject): boolean {
  return !('url' in entry) && !('serverUrl' in entry) && (entry.type === undefined || entry.type === 'stdio');
}

function show(value: JsonValue | undefined): string {
  return value === undefined ? '(none)' : JSON.stringify(value);
}
