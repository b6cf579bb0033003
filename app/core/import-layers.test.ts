/**
 * Layer rules that keep two processes loadable, read from the sources' static imports (type-only
 * imports are erased and do not count): the shim, which every client starts, loads no MCP SDK,
 * zod or ZeroMQ; the tray app loads core only through tray-api.ts, and nothing of ZeroMQ, whose
 * native module is built for Node's ABI and not Electron's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { packageRoot } from './package-root.js';

const root = packageRoot();

/** The specifiers a source file loads at run time. */
function runtimeImports(file: string): string[] {
  const source = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of source.matchAll(/^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]/gm)) {
    if (!match[2]) found.push(match[3]);
  }
  for (const match of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.push(match[1]);
  return found;
}

/** Every module reached from `entry`: our files by path, packages by name. */
function closure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of runtimeImports(file)) {
      if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
        if (existsSync(target)) visit(target);
      } else if (!spec.startsWith('node:')) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      }
    }
  };
  visit(entry);
  return { files, packages };
}

test('the shim loads no MCP SDK, zod or ZeroMQ', () => {
  const { packages, files } = closure(join(root, 'app', 'cli', 'shim.ts'));
  for (const heavy of ['@modelcontextprotocol/sdk', 'zod', 'zeromq']) assert.ok(!packages.has(heavy), `the shim loads ${heavy}`);
  assert.ok(files.size > 3, 'the closure was followed');
});

test('the tray app reaches core only through tray-api.ts, and never ZeroMQ', () => {
  const electronDir = join(root, 'app', 'electron');
  const sources = readdirSync(electronDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  assert.ok(sources.length > 3);
  for (const source of sources) {
    const file = join(electronDir, source);
    for (const spec of runtimeImports(file)) {
      if (!spec.startsWith('.')) continue;
      const target = relative(root, resolve(dirname(file), spec));
      assert.ok(target.startsWith(join('app', 'electron')) || target === join('app', 'core', 'tray-api.js'), `${source} imports ${target}`);
    }
  }
  const { packages } = closure(join(root, 'app', 'core', 'tray-api.ts'));
  assert.ok(!packages.has('zeromq'), 'tray-api.ts loads ZeroMQ');
  assert.ok(!packages.has('@modelcontextprotocol/sdk'), 'tray-api.ts loads the MCP SDK');
});
