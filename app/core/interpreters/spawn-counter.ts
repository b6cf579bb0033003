/**
 * Counts child processes started while a function runs, by wrapping every child_process entry
 * point (and re-syncing the ESM bindings, so `import { execFile }` elsewhere sees the wrapper).
 * Used by tests and the benchmark to prove listing starts no process. Not for production use.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';

const require = createRequire(import.meta.url);
const cp = require('node:child_process') as Record<string, unknown>;
const ENTRY_POINTS = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

export interface SpawnCount<T> {
  result: T;
  spawns: number;
  commands: string[];
}

export async function countSpawns<T>(fn: () => Promise<T>): Promise<SpawnCount<T>> {
  const originals = new Map<string, unknown>();
  const commands: string[] = [];
  // exec → execFile → spawn call each other; count the outermost call only.
  let depth = 0;
  for (const name of ENTRY_POINTS) {
    const original = cp[name] as (...args: unknown[]) => unknown;
    originals.set(name, original);
    cp[name] = function (this: unknown, ...args: unknown[]) {
      if (depth === 0) commands.push(`${name} ${String(args[0])}`);
      depth++;
      try {
        return original.apply(this, args);
      } finally {
        depth--;
      }
    };
  }
  syncBuiltinESMExports();
  try {
    const result = await fn();
    return { result, spawns: commands.length, commands };
  } finally {
    for (const [name, original] of originals) cp[name] = original;
    syncBuiltinESMExports();
  }
}
