/**
 * Runs every locator, merges what they found (the same interpreter reached by two paths is one
 * entry with aliases), and fills in what files can tell. Spawns nothing, and never throws
 * because of one bad entry: those end up in `skipped` with a reason.
 */
import { nodeHost } from './fs-port.js';
import { identifyExecutable } from './identify.js';
import { condaLocator } from './locators/conda.js';
import { envVarLocator, resolveExecutable } from './locators/env-var.js';
import type { Candidate, Locator } from './locators/locator.js';
import { pyenvLocator } from './locators/pyenv.js';
import { systemLocator } from './locators/system.js';
import { uvLocator } from './locators/uv.js';
import { venvLocator } from './locators/venv.js';
import { windowsRegistryLocator } from './locators/windows-registry.js';
import { InterpreterError } from './errors.js';
import { packageFacts } from './package-files.js';
import { brokenLink } from './prefix-layout.js';
import { ScanContext } from './scan-context.js';
import type { Discovery, DiscoveryOptions, Interpreter, InterpreterKind } from './types.js';
import { compareVersions, versionFromHeaders, versionTuple } from './version-from-files.js';

export const LOCATORS: readonly Locator[] = [
  condaLocator,
  venvLocator,
  pyenvLocator,
  uvLocator,
  systemLocator,
  windowsRegistryLocator,
  envVarLocator,
];

/** When two locators report the same interpreter, the more specific kind describes it. */
const KIND_PRIORITY: Record<InterpreterKind, number> = {
  'conda-base': 7,
  'conda-env': 6,
  pyenv: 5,
  uv: 4,
  venv: 3,
  'windows-registry': 2,
  system: 1,
  'env-var': 0,
};

/** Listing order. */
const KIND_ORDER: InterpreterKind[] = ['conda-base', 'conda-env', 'venv', 'pyenv', 'uv', 'system', 'windows-registry', 'env-var'];

/**
 * Environments are identified by their prefix (a venv's python is a symlink to its base, yet a
 * different environment); plain installs by the executable's real path (/bin/python3 and
 * /usr/bin/python3.11 are one Python).
 */
const PREFIX_KINDS: ReadonlySet<InterpreterKind> = new Set(['conda-base', 'conda-env', 'venv', 'pyenv', 'uv']);

function hostOf(opts: DiscoveryOptions) {
  return opts.host ?? nodeHost({ env: opts.env, home: opts.home });
}

export async function discoverInterpreters(opts: DiscoveryOptions = {}): Promise<Discovery> {
  const started = performance.now();
  const ctx = new ScanContext(hostOf(opts), opts);
  const locators = LOCATORS.filter((l) => !opts.locators || opts.locators.includes(l.name));
  const lists = await Promise.all(
    locators.map((l) =>
      l.find(ctx).catch((err: unknown) => {
        ctx.skip(`${l.name} locator`, `failed: ${(err as Error)?.message ?? String(err)}`);
        return [] as Candidate[];
      }),
    ),
  );
  const interpreters = await finish(ctx, lists.flat());
  return { interpreters, skipped: ctx.skipped, elapsedMs: performance.now() - started };
}

/** The interpreters on this machine (or the injected host). Spawns no process. */
export async function listInterpreters(opts: DiscoveryOptions = {}): Promise<Interpreter[]> {
  return (await discoverInterpreters(opts)).interpreters;
}

/**
 * One interpreter by path (an executable or an environment folder), described exactly as
 * listing would, without scanning anything else. Throws InterpreterError saying why not.
 */
export async function describeInterpreter(
  given: string,
  opts: DiscoveryOptions & { source?: string; fallbackKind?: 'system' | 'env-var' } = {},
): Promise<Interpreter> {
  const ctx = new ScanContext(hostOf(opts), opts);
  const source = opts.source ?? 'given path';
  const exe = await resolveExecutable(ctx, given);
  if ('problem' in exe) {
    throw new InterpreterError(`${source}: ${exe.problem}`, { reason: exe.problem, code: 'not-found', interpreter: given });
  }
  const c = await identifyExecutable(ctx, exe.path, { source, fallbackKind: opts.fallbackKind ?? 'system', explicit: true });
  const [interp] = c ? await finish(ctx, [c]) : [];
  if (!interp) {
    const why = ctx.skipped.map((s) => s.reason).join('; ') || 'not a Python interpreter';
    const code = /permission denied/.test(why) ? 'not-executable' : 'not-found';
    throw new InterpreterError(`${source}: ${exe.path} ${why}`, { reason: why, code, interpreter: exe.path });
  }
  return interp;
}

async function finish(ctx: ScanContext, candidates: Candidate[]): Promise<Interpreter[]> {
  const merged = await merge(ctx, candidates);
  await Promise.all(
    merged.map(async ({ interp, hint }) => {
      try {
        await enrich(ctx, interp, hint);
      } catch (err) {
        // Enrichment is best effort; the interpreter itself was found.
        interp.notes = [...(interp.notes ?? []), `details unavailable: ${(err as Error).message}`];
      }
    }),
  );
  return merged.map((m) => m.interp).sort((a, b) => compareForListing(a, b));
}

interface Resolved {
  c: Candidate;
  realExe: string;
  /** The prefix is reached without a symlink (prefer it as the displayed path). */
  canonical: boolean;
}

async function merge(ctx: ScanContext, candidates: Candidate[]): Promise<Array<{ interp: Interpreter; hint: Candidate }>> {
  const groups = new Map<string, Resolved[]>();
  const resolved = await Promise.all(
    candidates.map(async (c): Promise<[string, Resolved] | undefined> => {
      const realExe = await ctx.realpath(c.path);
      if (!realExe) {
        ctx.skip(c.path, (await brokenLink(ctx, c.path))?.replace(`${c.path} `, '') ?? 'cannot be resolved', c.source);
        return undefined;
      }
      const realPrefix = (await ctx.realpath(c.prefix)) ?? c.prefix;
      const key = PREFIX_KINDS.has(c.kind) ? `prefix:${ctx.key(realPrefix)}` : `exe:${ctx.key(realExe)}`;
      return [key, { c, realExe, canonical: ctx.key(realPrefix) === ctx.key(c.prefix) }];
    }),
  );
  for (const r of resolved) {
    if (!r) continue;
    const list = groups.get(r[0]) ?? [];
    list.push(r[1]);
    groups.set(r[0], list);
  }
  return [...groups.values()].map((group) => {
    group.sort(comparePrimary);
    const first = group[0] as Resolved;
    const p = first.c;
    const all = group.map((g) => g.c);
    const aliases = new Map<string, string>();
    for (const c of all) {
      for (const a of [c.path, ...(c.aliases ?? [])]) {
        if (ctx.key(a) !== ctx.key(p.path)) aliases.set(ctx.key(a), a);
      }
    }
    const versioned = all.filter((c) => c.version).sort((a, b) => versionTuple(b.version).length - versionTuple(a.version).length)[0];
    const pathOrders = all.map((c) => c.pathOrder).filter((n): n is number => n !== undefined);
    const interp: Interpreter = {
      path: p.path,
      realPath: first.realExe,
      kind: p.kind,
      name: p.name,
      prefix: p.prefix,
      aliases: [...aliases.values()],
      sources: unique(all.flatMap((c) => c.source.split('; '))),
    };
    const version = p.version && versionTuple(p.version).length >= versionTuple(versioned?.version).length ? p : versioned;
    if (version?.version) {
      interp.version = version.version;
      interp.versionSource = version.versionSource;
    }
    const manager = p.manager ?? all.find((c) => c.manager)?.manager;
    if (manager) interp.manager = manager;
    const envName = p.condaEnvName ?? all.find((c) => c.condaEnvName)?.condaEnvName;
    if (envName) interp.condaEnvName = envName;
    const root = p.condaRoot ?? all.find((c) => c.condaRoot)?.condaRoot;
    if (root) interp.condaRoot = root;
    if (all.some((c) => c.active)) interp.active = true;
    if (pathOrders.length) interp.pathOrder = Math.min(...pathOrders);
    const notes = unique(all.flatMap((c) => c.notes ?? []));
    if (notes.length) interp.notes = notes;
    const venv = all.find((c) => c.venv)?.venv;
    if (venv) interp.venv = venv;
    const hint: Candidate = { ...p, version: interp.version, ipykernel: all.find((c) => c.ipykernel)?.ipykernel, venv };
    return { interp, hint };
  });
}

function nameRank(path: string): number {
  const base = path.split(/[\\/]/).pop()!.toLowerCase();
  if (base === 'python3' || base === 'python.exe') return 0;
  if (base === 'python') return 1;
  return 2;
}

function comparePrimary(a: Resolved, b: Resolved): number {
  return (
    KIND_PRIORITY[b.c.kind] - KIND_PRIORITY[a.c.kind] ||
    Number(b.canonical) - Number(a.canonical) ||
    (a.c.pathOrder ?? Infinity) - (b.c.pathOrder ?? Infinity) ||
    nameRank(a.c.path) - nameRank(b.c.path) ||
    a.c.path.length - b.c.path.length
  );
}

async function enrich(ctx: ScanContext, interp: Interpreter, hint: Candidate): Promise<void> {
  if (!interp.version || !/^\d+\.\d+\.\d+/.test(interp.version)) {
    const v = await versionFromHeaders(ctx, interp.prefix, interp.version);
    if (v) {
      interp.version = v;
      interp.versionSource = 'patchlevel.h';
    }
  }
  const facts = await packageFacts(ctx, { ...hint, version: interp.version });
  if (facts.hasIpykernel !== undefined) interp.hasIpykernel = facts.hasIpykernel;
  if (facts.ipykernelEvidence) interp.ipykernelEvidence = facts.ipykernelEvidence;
  if (facts.externallyManaged) interp.externallyManaged = true;
  if (facts.debianPackaging) interp.debianPackaging = true;
}

const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

function compareForListing(a: Interpreter, b: Interpreter): number {
  return (
    KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
    collator.compare(a.condaRoot ?? '', b.condaRoot ?? '') ||
    (a.kind === 'pyenv' || a.kind === 'uv' ? -compareVersions(a.version, b.version) : 0) ||
    collator.compare(a.name, b.name) ||
    collator.compare(a.path, b.path)
  );
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}
