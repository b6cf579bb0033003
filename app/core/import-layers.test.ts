/**
 * The layer rules, read from ARCHITECTURE.md's "What may import what" (its table and its shared
 * leaves) and checked against every source's static imports (type-only imports are erased and do
 * not count; tests and the `testing/` folders that support them may import any layer). So the table
 * cannot drift from the code: a new folder that no row names fails here, as does an import that its
 * row does not allow. Two further rules follow the packages a process loads: the shim, which every
 * client starts, loads no MCP SDK, zod or ZeroMQ; the tray's core entry loads no ZeroMQ, whose native
 * module is built for Node's ABI and not Electron's.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
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

/** Where a relative import lands: the TypeScript source when there is one. */
function target(file: string, spec: string): string {
  const js = resolve(dirname(file), spec);
  const ts = js.replace(/\.js$/, '.ts');
  return existsSync(ts) ? ts : js;
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
        const to = target(file, spec);
        if (existsSync(to)) visit(to);
      } else if (!spec.startsWith('node:')) {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      }
    }
  };
  visit(entry);
  return { files, packages };
}

/** A name as ARCHITECTURE.md writes it, as a path from the package root ("/"-separated). */
function place(name: string): string {
  return name.startsWith('app/') || name.startsWith('renderer/') ? name : `app/core/${name}`;
}

const covers = (name: string, file: string) => (name.endsWith('/') ? file.startsWith(name) : file === name);
const pathNames = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((n) => n.endsWith('/') || /\.(ts|js)$/.test(n)).map(place);

interface Layer {
  names: string[];
  mayImport: string[];
}

/** The table and the shared leaves, from ARCHITECTURE.md. */
function readRules(): { leaves: string[]; layers: Layer[] } {
  const text = readFileSync(join(root, 'ARCHITECTURE.md'), 'utf8');
  const start = text.indexOf('## What may import what');
  assert.ok(start >= 0, 'ARCHITECTURE.md has "What may import what"');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  const leavesLine = section.split('\n\n').find((p) => p.includes('shared leaves'));
  assert.ok(leavesLine, 'the section names the shared leaves');
  const leaves = pathNames(leavesLine);
  const layers: Layer[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    if (cells.length < 4 || !cells[1].startsWith('`')) continue;
    layers.push({ names: pathNames(cells[1].replace(/\(.*\)/, '')), mayImport: pathNames(cells[2]) });
  }
  return { leaves, layers };
}

/** Our sources that the rules cover: not tests, nor what supports them. */
function sources(): string[] {
  const found: string[] = [];
  for (const [dir, ext] of [['app', '.ts'], ['renderer', '.js']] as const) {
    for (const file of readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })) {
      const path = `${dir}/${file.split(sep).join('/')}`;
      if (!path.endsWith(ext) || path.endsWith('.d.ts') || path.endsWith(`.test${ext}`) || path.split('/').includes('testing')) continue;
      found.push(path);
    }
  }
  return found;
}

test('every import keeps to the table in ARCHITECTURE.md', () => {
  const { leaves, layers } = readRules();
  assert.ok(leaves.length >= 8 && layers.length >= 14, `read ${leaves.length} leaves and ${layers.length} rows`);
  // The most specific row that names a file is its layer: kernel/process/launch.ts is in
  // `kernel/process/`, not in `kernel/`.
  const rows = layers.flatMap((layer) => layer.names.map((name) => ({ name, layer })));
  const layerOf = (file: string) => rows.filter((r) => covers(r.name, file)).sort((a, b) => b.name.length - a.name.length)[0];
  const isLeaf = (file: string) => leaves.some((leaf) => covers(leaf, file));
  const broken: string[] = [];
  const files = sources();
  assert.ok(files.length > 150, `found ${files.length} sources`);
  for (const file of files) {
    const leaf = isLeaf(file);
    const own = leaf ? undefined : layerOf(file);
    if (!leaf && !own) {
      broken.push(`${file} is in no layer of the table`);
      continue;
    }
    for (const spec of runtimeImports(join(root, file))) {
      if (!spec.startsWith('.')) continue;
      const to = relative(root, target(join(root, file), spec)).split(sep).join('/');
      if (isLeaf(to)) continue;
      if (leaf) {
        broken.push(`${file}, a shared leaf, imports ${to}`);
        continue;
      }
      if (layerOf(to)?.name === own!.name) continue;
      if (!own!.layer.mayImport.some((name) => covers(name, to))) broken.push(`${file} (layer ${own!.name}) imports ${to}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the table is read as written: a row allows what it names and nothing else', () => {
  const { layers } = readRules();
  const row = (name: string) => layers.find((l) => l.names.includes(place(name)));
  assert.deepEqual(row('wire/')?.mayImport, []);
  assert.ok(row('remote/')?.mayImport.includes('app/core/kernel/'));
  assert.ok(!row('remote/')?.mayImport.includes('app/core/worker/'), 'remote and worker do not import each other');
  assert.ok(!row('daemon/')?.mayImport.includes('app/core/mcp/'), 'the daemon never imports mcp');
  assert.deepEqual(row('app/electron/')?.mayImport, ['app/core/tray-api.ts']);
});

test('the shim loads no MCP SDK, zod or ZeroMQ', () => {
  const { packages, files } = closure(join(root, 'app', 'cli', 'shim.ts'));
  for (const heavy of ['@modelcontextprotocol/sdk', 'zod', 'zeromq']) assert.ok(!packages.has(heavy), `the shim loads ${heavy}`);
  assert.ok(files.size > 3, 'the closure was followed');
});

test('the tray app, through tray-api.ts, loads no ZeroMQ and no MCP SDK', () => {
  const { packages } = closure(join(root, 'app', 'core', 'tray-api.ts'));
  assert.ok(!packages.has('zeromq'), 'tray-api.ts loads ZeroMQ');
  assert.ok(!packages.has('@modelcontextprotocol/sdk'), 'tray-api.ts loads the MCP SDK');
});
