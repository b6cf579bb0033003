/**
 * Probe results keyed by interpreter path and invalidated by modification times: the
 * executable's (upgraded Python) and its package folders' (pip/conda install or removal adds
 * or deletes entries there, which bumps the folder's mtime). Kept in memory, and optionally
 * in a JSON file so a restarted daemon need not probe again.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Probe } from './types.js';

interface Entry {
  exeMtimeMs: number;
  exeSize: number;
  /** Package folder → mtime when probed (null: did not exist yet, e.g. the user site). */
  dirs: Record<string, number | null>;
  probe: Probe;
}

interface CacheFile {
  version: 1;
  entries: Record<string, Entry>;
}

const memory = new Map<string, Entry>();

async function mtimeOrNull(p: string): Promise<number | null> {
  try {
    return (await fsp.stat(p)).mtimeMs;
  } catch {
    return null;
  }
}

export async function fingerprintDirs(dirs: readonly string[]): Promise<Record<string, number | null>> {
  const out: Record<string, number | null> = {};
  await Promise.all(
    dirs.map(async (d) => {
      out[d] = await mtimeOrNull(d);
    }),
  );
  return out;
}

async function stillValid(e: Entry, exe: { mtimeMs: number; size: number }): Promise<boolean> {
  if (e.exeMtimeMs !== exe.mtimeMs || e.exeSize !== exe.size) return false;
  const now = await fingerprintDirs(Object.keys(e.dirs));
  return Object.entries(e.dirs).every(([d, m]) => now[d] === m);
}

async function readFileCache(file: string): Promise<CacheFile> {
  try {
    const data = JSON.parse(await fsp.readFile(file, 'utf8')) as Partial<CacheFile>;
    if (data.version === 1 && data.entries && typeof data.entries === 'object') return data as CacheFile;
  } catch {
    // Missing or corrupt: start afresh.
  }
  return { version: 1, entries: {} };
}

export async function getCachedProbe(
  key: string,
  exe: { mtimeMs: number; size: number },
  cacheFile?: string,
): Promise<Probe | undefined> {
  let e = memory.get(key);
  if (!e && cacheFile) {
    e = (await readFileCache(cacheFile)).entries[key];
    if (e) memory.set(key, e);
  }
  if (!e) return undefined;
  if (await stillValid(e, exe)) return { ...e.probe, cached: true, elapsedMs: 0 };
  memory.delete(key);
  return undefined;
}

export async function putCachedProbe(
  key: string,
  exe: { mtimeMs: number; size: number },
  probe: Probe,
  cacheFile?: string,
): Promise<void> {
  const entry: Entry = { exeMtimeMs: exe.mtimeMs, exeSize: exe.size, dirs: await fingerprintDirs(probe.siteDirs ?? []), probe };
  memory.set(key, entry);
  if (!cacheFile) return;
  try {
    const data = await readFileCache(cacheFile);
    data.entries[key] = entry;
    await fsp.mkdir(path.dirname(cacheFile), { recursive: true });
    // Write-then-rename: a reader never sees half a file, and two writers never interleave.
    const tmp = `${cacheFile}.${process.pid}.${Date.now()}.tmp`;
    await fsp.writeFile(tmp, JSON.stringify(data, null, 1), { mode: 0o600 });
    await fsp.rename(tmp, cacheFile);
  } catch {
    // The disk cache is an optimisation; failing to write it must not fail the probe.
  }
}

/** Forgets every in-memory probe (tests; after the user says "rescan"). */
export function clearProbeCache(): void {
  memory.clear();
}
