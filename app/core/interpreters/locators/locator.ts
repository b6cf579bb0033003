/** What every locator returns: one environment it believes in, before merging and enrichment. */
import type { ScanContext } from '../scan-context.js';
import type { InterpreterKind, LocatorName, VersionSource } from '../types.js';

export interface Candidate {
  path: string;
  kind: InterpreterKind;
  name: string;
  prefix: string;
  /** Where it was found, e.g. `environments.txt`, `PATH`, `registry`. */
  source: string;
  version?: string;
  versionSource?: VersionSource;
  manager?: string;
  condaEnvName?: string;
  condaRoot?: string;
  active?: boolean;
  pathOrder?: number;
  notes?: string[];
  /** Other paths known to be this interpreter (the PATH entry that led to a venv, ...). */
  aliases?: string[];
  /** Settled from files the locator already read (conda-meta), so enrichment need not look again. */
  ipykernel?: { has: boolean; evidence: string };
  venv?: { home?: string; systemSitePackages: boolean };
}

export interface Locator {
  name: LocatorName;
  find(ctx: ScanContext): Promise<Candidate[]>;
}

/** Runs `fn` on every item concurrently; a throw from one item is recorded, never propagated. */
export async function eachSettled<T, R>(
  ctx: ScanContext,
  items: readonly T[],
  label: (item: T) => string,
  fn: (item: T) => Promise<R | undefined>,
): Promise<R[]> {
  const results = await Promise.all(
    items.map(async (item) => {
      try {
        return await fn(item);
      } catch (err) {
        ctx.skip(label(item), `unexpected error: ${(err as Error)?.message ?? String(err)}`);
        return undefined;
      }
    }),
  );
  return results.filter((r): r is Awaited<R> => r !== undefined) as R[];
}
