/** Folders shipped with the package, found from this module's own location (works from dist/ and from an npm install). */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

export function packageRoot(): string {
  if (root) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'resources'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('python-session-mcp: cannot find the package folder (resources/ is missing)');
    dir = parent;
  }
  root = dir;
  return dir;
}

export function pythonHelpersDir(): string {
  return join(packageRoot(), 'resources', 'python');
}
