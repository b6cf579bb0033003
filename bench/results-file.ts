/** Where a benchmark keeps what it measured: bench/results/<name>.json in the source tree (beside dist/). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const RESULTS_DIR = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..', 'bench', 'results');

export function writeBenchResult(name: string, result: object): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(path, JSON.stringify(result, null, 1));
  return path;
}
