/** `python-session-mcp servers`: add, list, remove; where the token comes from; it is never printed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../core/remote/testing/jupyter-server.js';
import { ServerRegistry } from '../../core/remote/server-registry.js';
import { serversCommand } from './servers.js';

const TOKEN = 'cli-token-5d6e7f8091a2b3c4';

async function setup(stdin = '') {
  const stateDir = await mkdtemp(join(tmpdir(), 'ps-servers-cli-'));
  let stdout = '';
  let stderr = '';
  const io = { stdout: (s: string) => void (stdout += s), stderr: (s: string) => void (stderr += s), readStdin: async () => stdin };
  const run = (args: string[], env: NodeJS.ProcessEnv = {}) => serversCommand(args, io, { stateDir, env });
  return { stateDir, run, out: () => stdout, err: () => stderr, registry: new ServerRegistry(stateDir) };
}

test('add takes the token from --token, the environment or standard input, and never prints it', async () => {
  for (const [args, env, stdin] of [
    [['add', 'lab', 'http://127.0.0.1:1/', '--token', TOKEN, '--no-check'], {}, ''],
    [['add', 'lab', 'http://127.0.0.1:1/', '--no-check'], { PYTHON_MCP_SERVER_TOKEN: TOKEN }, ''],
    [['add', 'lab', 'http://127.0.0.1:1/', '--token-stdin', '--no-check'], {}, `${TOKEN}\n`],
  ] as const) {
    const t = await setup(stdin);
    assert.equal(await t.run([...args], { ...env }), 0, t.err());
    assert.match(t.out(), /^Added server "lab" at http:\/\/127\.0\.0\.1:1\/ \(token saved, owner-only\) in .*servers\.json\.\n$/);
    assert.equal(t.registry.get('lab').revealToken(), TOKEN);
    assert.ok(!t.out().includes(TOKEN) && !t.err().includes(TOKEN));
  }
});

test('list, list --json and remove show no token; removing an unknown name fails', async () => {
  const t = await setup();
  await t.run(['add', 'lab', `http://127.0.0.1:1/lab?token=${TOKEN}`, '--no-check']);
  assert.equal(await t.run(['list', '--no-check']), 0);
  assert.match(t.out(), /\nlab {2}http:\/\/127\.0\.0\.1:1\/\n$/);
  assert.equal(await t.run(['--json', '--no-check']), 0);
  assert.match(t.out(), /"hasToken": true/);
  assert.equal(await t.run(['remove', 'lab']), 0);
  assert.match(t.out(), /Removed server "lab"\. Kernels running there were not touched\./);
  assert.equal(await t.run(['remove', 'lab']), 1);
  assert.ok(!t.out().includes(TOKEN) && !t.err().includes(TOKEN));
});

test('a server that does not answer is saved anyway, with the reason; list reports it and exits 1', async () => {
  const t = await setup();
  const port = await freePort();
  assert.equal(await t.run(['add', 'down', `http://127.0.0.1:${port}/`, '--token', TOKEN]), 0);
  assert.match(t.err(), new RegExp(`Saved, but it does not answer yet: Cannot reach the Jupyter server down \\(http://127\\.0\\.0\\.1:${port}/\\): nothing is listening there \\(connection refused\\)`));
  assert.equal(await t.run(['list']), 1);
  assert.match(t.out(), /down {2}http:\/\/127\.0\.0\.1:\d+\/\n {2}unreachable: Cannot reach/);
});

test('bad names, URLs and arguments are refused with the reason', async () => {
  const t = await setup();
  assert.equal(await t.run(['add', 'C', 'http://h/', '--no-check']), 1);
  assert.match(t.err(), /"C" cannot name a server/);
  assert.equal(await t.run(['add', 'lab', 'not a url', '--no-check']), 1);
  assert.match(t.err(), /is not a URL/);
  assert.equal(await t.run(['add', 'lab']), 2);
  assert.match(t.err(), /servers add needs a name and a URL/);
  assert.equal(await t.run(['frobnicate']), 2);
  assert.equal(await t.run(['add', 'lab', 'http://h/', '--token-stdin', '--no-check']), 2);
  assert.match(t.err(), /read no token from standard input/);
  assert.deepEqual(t.registry.list(), []);
});
