/** Folders shipped with the package, found from this module's own location (works from dist/ and from an npm install). */
import { existsSync, readFileSync } from 'node:fs';
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

let manifest: { version?: unknown; homepage?: unknown } | undefined;

function packageManifest(): { version?: unknown; homepage?: unknown } {
  if (manifest) return manifest;
  try {
    manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: unknown; homepage?: unknown };
  } catch {
    manifest = {};
  }
  return manifest;
}

/** This package's version, from its package.json. */
export function packageVersion(): string {
  return String(packageManifest().version ?? 'unknown');
}

/** The package's website, from its package.json (the MCP server's `websiteUrl`). */
export function packageHomepage(): string | undefined {
  const homepage = packageManifest().homepage;
  return typeof homepage === 'string' ? homepage : undefined;
}
