import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { builtCliPath, installWarnings, stableNodePath, thisInstallEntry } from './this-install.js';

const roots: string[] = [];
after(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

test('the CLI path is the built main.js two folders up from this module', () => {
  const here = path.dirname(fileURLToPath(import.meta.url)); // …/app/core/registration
  assert.equal(builtCliPath(), path.join(here, '..', '..', 'cli', 'main.js'));
  assert.ok(path.isAbsolute(builtCliPath()));
  assert.match(builtCliPath(), /app[\\/]cli[\\/]main\.js$/);
});

test('the entry runs this Node with the built CLI; no env without an interpreter', () => {
  const entry = thisInstallEntry({ electron: false });
  assert.deepEqual(entry, { command: process.execPath, args: [builtCliPath()], env: {} });
});

test('the interpreter goes into PYTHON_MCP_INTERPRETER as an absolute path', () => {
  const entry = thisInstallEntry({ interpreter: 'envs/ds/bin/python', electron: false, execPath: '/n', cliPath: '/c.js' });
  assert.deepEqual(entry, {
    command: '/n',
    args: ['/c.js'],
    env: { PYTHON_MCP_INTERPRETER: path.resolve('envs/ds/bin/python') },
  });
});

test('inside Electron the binary is told to run as Node', () => {
  const entry = thisInstallEntry({ electron: true, execPath: '/Applications/Python Session.app/Contents/MacOS/Python Session', cliPath: '/c.js' });
  assert.equal(entry.env.ELECTRON_RUN_AS_NODE, '1');
});

test('a Homebrew Cellar path is swapped for the stable link that points at the same binary', async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'ps-brew-'));
  roots.push(root);
  const cellarNode = path.join(root, 'Cellar', 'node', '22.1.0', 'bin', 'node');
  await mkdir(path.dirname(cellarNode), { recursive: true });
  await writeFile(cellarNode, '');
  await mkdir(path.join(root, 'opt'), { recursive: true });
  await symlink(path.join(root, 'Cellar', 'node', '22.1.0'), path.join(root, 'opt', 'node'));
  assert.equal(stableNodePath(cellarNode), path.join(root, 'opt', 'node', 'bin', 'node'));

  // A link that points at a different version is not used.
  const other = path.join(root, 'Cellar', 'node@20', '20.9.0', 'bin', 'node');
  await mkdir(path.dirname(other), { recursive: true });
  await writeFile(other, '');
  await symlink(path.join(root, 'Cellar', 'node', '22.1.0'), path.join(root, 'opt', 'node@20'));
  assert.equal(stableNodePath(other), other);

  // Anything that is not a Cellar path is left alone.
  assert.equal(stableNodePath('/usr/bin/node'), '/usr/bin/node');
  assert.equal(stableNodePath('/home/a/.nvm/versions/node/v20.1.0/bin/node'), '/home/a/.nvm/versions/node/v20.1.0/bin/node');
});

test('warnings: a CLI not built yet, and a copy in npx\'s cache', () => {
  const exists = (p: string) => p === '/usr/bin/node';
  assert.deepEqual(installWarnings({ command: '/usr/bin/node', args: ['/x/dist/app/cli/main.js'], env: {} }, exists), [
    '/x/dist/app/cli/main.js does not exist yet; build the package (npm run build) before starting the client.',
  ]);
  const npx = installWarnings(
    { command: '/usr/bin/node', args: ['/home/a/.npm/_npx/1f2e/node_modules/python-session-mcp/dist/app/cli/main.js'], env: {} },
    () => true,
  );
  assert.equal(npx.length, 1);
  assert.match(npx[0], /npx's cache/);
  assert.deepEqual(installWarnings({ command: '/usr/bin/node', args: ['/ok.js'], env: {} }, () => true), []);
});
