/**
 * Gemini CLI's folder trust, read from Gemini CLI's own files as Gemini CLI 0.61 reads them.
 *
 * With folder trust on (`security.folderTrust.enabled`, true unless a settings file says false)
 * Gemini CLI starts no MCP server in a folder it does not trust: `gemini mcp list` shows them
 * "Disabled". A folder is trusted by the longest matching entry of `~/.gemini/trustedFolders.json`
 * (`{"<path>": "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}`; TRUST_PARENT trusts the entry's
 * parent folder; every folder inside counts), and by nothing else: no entry means not trusted.
 * GEMINI_CLI_TRUST_WORKSPACE=true/false and GEMINI_RESTRICTED_MODE=true decide before any file.
 *
 * Reading is tolerant: a missing file is Gemini CLI's default, a damaged one makes the answer
 * unknown (with why), never an exception. Nothing here writes Gemini CLI's files.
 */
import { realpathSync } from 'node:fs';
import type { PlatformContext } from './clients.js';
import { readConfig } from './config-file.js';
import { JSON_WITH_COMMENTS_FORMAT } from './config-format.js';
import { type JsonObject, isJsonObject } from './jsonc.js';
import { envVar, pathApi } from './platform-paths.js';

export type TrustLevel = 'TRUST_FOLDER' | 'TRUST_PARENT' | 'DO_NOT_TRUST';
const TRUST_LEVELS: readonly string[] = ['TRUST_FOLDER', 'TRUST_PARENT', 'DO_NOT_TRUST'];

export interface TrustRule {
  /** The entry's path as written in trustedFolders.json. */
  path: string;
  level: TrustLevel;
}

/** An environment variable that decides every folder before any file is read. */
export interface TrustByEnv {
  name: 'GEMINI_CLI_TRUST_WORKSPACE' | 'GEMINI_RESTRICTED_MODE';
  value: string;
  trusted: boolean;
}

export interface GeminiTrustSetup {
  /** Whether folder trust is on; undefined when a settings file that could decide it cannot be read. */
  enabled: boolean | undefined;
  /** Set when an environment variable decides every folder. */
  env?: TrustByEnv;
  /** Gemini CLI's trustedFolders.json. */
  file: string;
  /** Its entries; undefined when it cannot be read or Gemini CLI would refuse it. */
  rules: TrustRule[] | undefined;
  /** Why something is unknown, one sentence fragment each. */
  problems: string[];
}

export type FolderVerdict =
  | { folder: string; trusted: true; by: 'folder-trust-off' | 'env' | 'rule'; rule?: TrustRule }
  | { folder: string; trusted: false; by: 'env' | 'rule' | 'no-rule'; rule?: TrustRule }
  | { folder: string; trusted: undefined };

/** Gemini CLI's folder: ~/.gemini, with GEMINI_CLI_HOME standing in for the home folder. */
export function geminiDir(ctx: PlatformContext): string {
  const p = pathApi(ctx);
  const home = envVar(ctx, 'GEMINI_CLI_HOME');
  return p.join(home ? p.resolve(home) : ctx.home, '.gemini');
}

function trustedFoldersFile(ctx: PlatformContext): string {
  return envVar(ctx, 'GEMINI_CLI_TRUSTED_FOLDERS_PATH') ?? pathApi(ctx).join(geminiDir(ctx), 'trustedFolders.json');
}

/** The settings files that can set folder trust, strongest first: system, user, system defaults. */
function settingsFiles(ctx: PlatformContext): string[] {
  const p = pathApi(ctx);
  const system =
    envVar(ctx, 'GEMINI_CLI_SYSTEM_SETTINGS_PATH') ??
    (ctx.platform === 'darwin'
      ? '/Library/Application Support/GeminiCli/settings.json'
      : ctx.platform === 'win32'
        ? 'C:\\ProgramData\\gemini-cli\\settings.json'
        : '/etc/gemini-cli/settings.json');
  const defaults = envVar(ctx, 'GEMINI_CLI_SYSTEM_DEFAULTS_PATH') ?? p.join(p.dirname(system), 'system-defaults.json');
  return [system, p.join(geminiDir(ctx), 'settings.json'), defaults];
}

type Read = { value: JsonObject | undefined } | { problem: string };

/** A JSON-with-comments file of Gemini CLI's: its object, nothing when missing, or what is wrong with it. */
async function readGeminiFile(file: string): Promise<Read> {
  try {
    return { value: (await readConfig(file, JSON_WITH_COMMENTS_FORMAT)).value };
  } catch (error) {
    return { problem: `${file} cannot be read (${error instanceof Error ? error.message.replace(/; the file was left unchanged$/, '') : String(error)})` };
  }
}

/** What decides Gemini CLI's folder trust on this machine, for any folder. Never throws. */
export async function readGeminiTrust(ctx: PlatformContext): Promise<GeminiTrustSetup> {
  const file = trustedFoldersFile(ctx);
  const problems: string[] = [];
  let env: TrustByEnv | undefined;
  const restricted = envVar(ctx, 'GEMINI_RESTRICTED_MODE');
  const trustWorkspace = envVar(ctx, 'GEMINI_CLI_TRUST_WORKSPACE');
  if (restricted === 'true') env = { name: 'GEMINI_RESTRICTED_MODE', value: restricted, trusted: false };
  else if (trustWorkspace === 'false' || trustWorkspace === 'true') env = { name: 'GEMINI_CLI_TRUST_WORKSPACE', value: trustWorkspace, trusted: trustWorkspace === 'true' };

  let enabled: boolean | undefined = true;
  for (const settings of settingsFiles(ctx)) {
    const read = await readGeminiFile(settings);
    if ('problem' in read) {
      problems.push(read.problem);
      enabled = undefined;
      break;
    }
    const security = read.value?.security;
    const folderTrust = isJsonObject(security) ? security.folderTrust : undefined;
    const value = isJsonObject(folderTrust) ? folderTrust.enabled : undefined;
    if (value === undefined || value === null) continue;
    if (typeof value === 'boolean') enabled = value;
    else {
      problems.push(`${settings} sets security.folderTrust.enabled to ${JSON.stringify(value)}, not true or false`);
      enabled = undefined;
    }
    break;
  }

  let rules: TrustRule[] | undefined = [];
  const read = await readGeminiFile(file);
  if ('problem' in read) {
    problems.push(read.problem);
    rules = undefined;
  } else {
    for (const [rulePath, level] of Object.entries(read.value ?? {})) {
      if (typeof level === 'string' && TRUST_LEVELS.includes(level)) rules.push({ path: rulePath, level: level as TrustLevel });
      else {
        // Gemini CLI itself stops with an error on such an entry.
        problems.push(`${file} has ${JSON.stringify(level)} for ${rulePath}, not one of ${TRUST_LEVELS.join(', ')}`);
        rules = undefined;
        break;
      }
    }
  }
  return { enabled, ...(env && { env }), file, rules, problems };
}

export type Realpath = (p: string) => string;

/** Symlinks resolved where the path exists, as Gemini CLI compares paths. */
const realpathOrSelf: Realpath = (p) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** Gemini CLI's path key: absolute, forward slashes on Windows, lower case on Windows and macOS. */
function normalize(ctx: PlatformContext, p: string): string {
  const absolute = pathApi(ctx).resolve(p).replace(/\\/g, '/');
  return ctx.platform === 'win32' || ctx.platform === 'darwin' ? absolute.toLowerCase() : absolute;
}

function isInside(ctx: PlatformContext, parent: string, child: string): boolean {
  const p = pathApi(ctx);
  const relative = p.relative(p.resolve(parent), p.resolve(child));
  return !relative.startsWith(`..${p.sep}`) && relative !== '..' && !p.isAbsolute(relative);
}

/** Whether Gemini CLI trusts `folder` (so starts MCP servers there). */
export function folderVerdict(setup: GeminiTrustSetup, folder: string, ctx: PlatformContext, realpath: Realpath = realpathOrSelf): FolderVerdict {
  if (setup.env) return { folder, trusted: setup.env.trusted, by: 'env' } as FolderVerdict;
  if (setup.enabled === false) return { folder, trusted: true, by: 'folder-trust-off' };
  if (setup.enabled === undefined || setup.rules === undefined) return { folder, trusted: undefined };
  const p = pathApi(ctx);
  const location = normalize(ctx, realpath(folder));
  let best: { rule: TrustRule; length: number } | undefined;
  for (const rule of setup.rules) {
    const key = normalize(ctx, rule.path);
    const applies = rule.level === 'TRUST_PARENT' ? p.dirname(key) : key;
    if (isInside(ctx, normalize(ctx, realpath(applies)), location) && (!best || key.length > best.length)) best = { rule, length: key.length };
  }
  if (!best) return { folder, trusted: false, by: 'no-rule' };
  return best.rule.level === 'DO_NOT_TRUST' ? { folder, trusted: false, by: 'rule', rule: best.rule } : { folder, trusted: true, by: 'rule', rule: best.rule };
}

/** The folders Gemini CLI has run in, from its ~/.gemini/projects.json; none when it cannot be read. */
export async function geminiProjects(ctx: PlatformContext): Promise<string[]> {
  const read = await readGeminiFile(pathApi(ctx).join(geminiDir(ctx), 'projects.json'));
  if ('problem' in read) return [];
  const projects = read.value?.projects;
  return isJsonObject(projects) ? Object.keys(projects) : [];
}

const MOST_LISTED = 8;

function listed(folders: string[]): string {
  const shown = folders.slice(0, MOST_LISTED).join(', ');
  return folders.length > MOST_LISTED ? `${shown} and ${folders.length - MOST_LISTED} more` : shown;
}

/** Gemini CLI's own ways, as its 0.61 offers them: the question it asks on starting in a folder with no entry, `/permissions trust`, the file. */
function howToTrust(setup: GeminiTrustSetup, folder: string | undefined, ctx: PlatformContext): string {
  const entry = `${JSON.stringify(folder ?? '<folder>')}: "TRUST_FOLDER"`;
  const choice = folder === undefined ? 'Trust folder' : `Trust folder (${pathApi(ctx).basename(folder)})`;
  return (
    `To trust ${folder === undefined ? 'a folder' : 'it'}: start gemini in it and choose "${choice}" when it asks, or run /permissions trust in Gemini CLI there; ` +
    `or add ${entry} to ${setup.file}.`
  );
}

/**
 * What to tell a person who registered from `folder` (the `register` command's working folder):
 * nothing when Gemini CLI will start the server there.
 */
export function trustNotesForFolder(setup: GeminiTrustSetup, verdict: FolderVerdict, ctx: PlatformContext): string[] {
  const { folder } = verdict;
  if (verdict.trusted === true) return [];
  if (verdict.trusted === undefined) {
    return [
      `Whether Gemini CLI trusts ${folder} is unknown: ${setup.problems.join('; ')}. Gemini CLI starts MCP servers only in folders it trusts.`,
    ];
  }
  const disabled = 'so it disables every MCP server there: "gemini mcp list" shows Python Session as Disabled.';
  if (verdict.by === 'env' && setup.env) {
    return [`Gemini CLI trusts no folder while ${setup.env.name}=${setup.env.value} is set in the environment, ${disabled} Unset it to let folder trust decide.`];
  }
  if (verdict.by === 'rule' && verdict.rule) {
    return [
      `Gemini CLI does not trust ${folder} (${setup.file} marks ${verdict.rule.path} DO_NOT_TRUST), ${disabled}`,
      `To trust it: run /permissions trust in Gemini CLI there, or change that entry to "TRUST_FOLDER".`,
    ];
  }
  return [`Gemini CLI does not trust ${folder} (folder trust is on and no entry in ${setup.file} covers it), ${disabled}`, howToTrust(setup, folder, ctx)];
}

/**
 * What to tell a person about Gemini CLI's folder trust with no one folder in view (the panel):
 * which folders are trusted, which of Gemini CLI's own projects are not, and how to trust one.
 */
export function trustNotesForProjects(setup: GeminiTrustSetup, projects: FolderVerdict[], ctx: PlatformContext): string[] {
  if (setup.env) {
    if (setup.env.trusted) return [];
    return [`Gemini CLI trusts no folder while ${setup.env.name}=${setup.env.value} is set in its environment, so it starts no MCP server, Python Session included.`];
  }
  if (setup.enabled === false) return [];
  const notes = ['Gemini CLI starts MCP servers only in folders you trust; in any other it lists Python Session as "Disabled".'];
  if (setup.enabled === undefined || setup.rules === undefined) {
    notes.push(`Which folders it trusts is unknown: ${setup.problems.join('; ')}.`);
    return notes;
  }
  const trusted = setup.rules.filter((r) => r.level !== 'DO_NOT_TRUST').map((r) => (r.level === 'TRUST_PARENT' ? `${r.path} (its parent folder)` : r.path));
  notes.push(trusted.length ? `Trusted: ${listed(trusted)}, and the folders inside.` : 'No folder is trusted yet.');
  const untrusted = projects.filter((v) => v.trusted === false).map((v) => v.folder);
  if (untrusted.length) notes.push(`Gemini CLI has run in ${listed(untrusted)}, not trusted: Python Session is disabled there.`);
  notes.push(howToTrust(setup, untrusted.length === 1 ? untrusted[0] : undefined, ctx));
  return notes;
}

/**
 * The notes for Gemini CLI's entry: for `folder` where one is in view (the `register` command's
 * working folder), else for the folders Gemini CLI has run in.
 */
export async function geminiTrustNotes(ctx: PlatformContext, folder?: string, realpath?: Realpath): Promise<string[]> {
  const setup = await readGeminiTrust(ctx);
  if (folder !== undefined) return trustNotesForFolder(setup, folderVerdict(setup, folder, ctx, realpath), ctx);
  const projects = await geminiProjects(ctx);
  return trustNotesForProjects(setup, projects.map((p) => folderVerdict(setup, p, ctx, realpath)), ctx);
}
