// Tests `python-session-mcp interpreters` (app/cli/commands/interpreters.ts) against a synthetic home.
import assert from 'node:assert/strict';
import { promises as fsp, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { interpretersCommand, type InterpretersCommandContext } from './interpreters.js';
import { makeCondaPrefix, makeVenv, writeFileAt } from '../../core/interpreters/synthetic-tree.js';

let tmp: string;
const j = (...p: string[]) => path.join(...p);

async function fake(name: string, ipykernel: boolean): Promise<string> {
  const p = j(tmp, 'fakes', name);
  const answer = JSON.stringify({ version: '3.11.9', implementation: 'CPython', platform: 'linux-x86_64', executable: p, packages: { ipykernel: ipykernel ? '6.29.5' : null, numpy: '2.0.0' }, site: [] });
  await writeFileAt(p, `#!/bin/sh\ncat <<'EOF'\n${answer}\nEOF\n`);
  await fsp.chmod(p, 0o755);
  return p;
}

function ctxFor(home: string): InterpretersCommandContext {
  const env = { HOME: home, PATH: '' };
  return { env, markedEnvs: [], discovery: { env, home, systemDirs: [] } };
}

async function run(argv: string[], ctx: InterpretersCommandContext): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await interpretersCommand(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) }, ctx);
  return { code, out, err };
}

before(async () => {
  tmp = realpathSync(await fsp.mkdtemp(j(os.tmpdir(), 'interp-cli-')));
  await makeCondaPrefix(j(tmp, 'good', 'anaconda3'), { python: '3.11.5', base: true, packages: ['ipykernel-6.28.0'], target: await fake('ana', true) });
  await makeCondaPrefix(j(tmp, 'good', 'anaconda3', 'envs', 'analysis'), { python: '3.10.13', sitePackages: true, target: await fake('an', false) });
  await makeVenv(j(tmp, 'good', '.virtualenvs', 'web'), { cfg: 'version = 3.12.1\n', target: await fake('web', false) });
  await makeVenv(j(tmp, 'bad', '.virtualenvs', 'web'), { cfg: 'version = 3.12.1\n', target: await fake('web2', false), sitePackagesOf: '3.12' });
  await makeVenv(j(tmp, 'bad', '.virtualenvs', 'gone'), { cfg: 'home = /nowhere\nversion = 3.9.1\n', target: '/nowhere/python' });
});
after(async () => {
  await fsp.rm(tmp, { recursive: true, force: true });
});

describe('interpreters command', () => {
  it('prints a table with kind, name, version, ipykernel, engine and path, the choice and why', async () => {
    const { code, out } = await run([], ctxFor(j(tmp, 'good')));
    assert.equal(code, 0, out);
    assert.match(out, /^Found 3 Python interpreters in \d+ ms, without starting any of them\./);
    assert.match(out, /KIND\s+NAME\s+VERSION\s+IPYKERNEL\s+ENGINE\s+PATH/);
    const row = out.split('\n').find((l) => l.startsWith('*'));
    assert.match(row ?? '', /^\*\s+conda-base\s+base \(anaconda3\)\s+3\.11\.5\s+yes\s+ipykernel\s+\S+anaconda3\/bin\/python$/);
    assert.match(out, /\n\s+conda-env\s+analysis \(anaconda3\)\s+3\.10\.13\s+no\s+worker\s+/);
    assert.match(out, /\n\s+venv\s+web\s+3\.12\.1\s+unknown\s+ipykernel or worker\s+/);
    assert.match(out, /Engine: ipykernel — the interpreter has ipykernel/);
    assert.match(out, /Why:\s+conda base environment of anaconda3 at .* \(has ipykernel\)/);
    assert.match(out, /Has:\s+ipykernel 6\.29\.5, numpy 2\.0\.0/);
    assert.match(out, /Lacks:\s+pandas, statsmodels, matplotlib, openpyxl, pyarrow/);
  });

  it('prints the same as JSON', async () => {
    const { code, out } = await run(['--json'], ctxFor(j(tmp, 'good')));
    assert.equal(code, 0);
    const data = JSON.parse(out);
    assert.equal(data.interpreters.length, 3);
    const chosen = data.interpreters.filter((i: { chosen: boolean }) => i.chosen);
    assert.equal(chosen.length, 1);
    assert.equal(chosen[0].kind, 'conda-base');
    assert.deepEqual(
      data.interpreters.map((i: { ipykernel: string }) => i.ipykernel),
      ['yes', 'no', 'unknown'],
    );
    assert.match(data.chosen.reason, /\(has ipykernel\)$/);
    assert.equal(data.chosen.probe.packages.ipykernel, '6.29.5');
    assert.equal(data.error, null);
    assert.ok(typeof data.elapsedMs === 'number');
  });

  it('chooses a Python without ipykernel for the built-in worker, naming what ipykernel would add and its command', async () => {
    const { code, out } = await run([], ctxFor(j(tmp, 'bad')));
    assert.equal(code, 0, out);
    assert.match(out, /Engine: the built-in worker — the interpreter has no ipykernel.*\n\s+Installing ipykernel would add .*: \S+web\/bin\/python -m pip install ipykernel/);
  });

  it('with PYTHON_MCP_ENGINE=ipykernel, exits 1 naming the install command when nothing has ipykernel, and lists what it skipped', async () => {
    const forced = (dir: string) => {
      const ctx = ctxFor(dir);
      return { ...ctx, env: { ...ctx.env, PYTHON_MCP_ENGINE: 'ipykernel' }, discovery: { ...ctx.discovery, env: { ...(ctx.discovery?.env ?? ctx.env), PYTHON_MCP_ENGINE: 'ipykernel' } } };
    };
    const { code, out } = await run([], forced(j(tmp, 'bad')));
    assert.equal(code, 1);
    assert.match(out, /No interpreter can be used: No Python with ipykernel was found\..*\n\s+\S+web\/bin\/python -m pip install ipykernel/s);
    assert.match(out, /Skipped 1:\n\s+\S+gone — broken virtual environment \(made from \/nowhere\)/);
    const json = JSON.parse((await run(['--json'], forced(j(tmp, 'bad')))).out);
    assert.equal(json.chosen, null);
    assert.equal(json.error.code, 'no-ipykernel');
    assert.match(json.error.installCommand, /web\/bin\/python -m pip install ipykernel$/);
  });

  it('with --no-choose lists without choosing', async () => {
    const { code, out } = await run(['--no-choose'], ctxFor(j(tmp, 'bad')));
    assert.equal(code, 0);
    assert.doesNotMatch(out, /Chosen|No interpreter can be used/);
  });

  it('rejects unknown options with usage', async () => {
    const { code, err } = await run(['--bogus'], ctxFor(j(tmp, 'good')));
    assert.equal(code, 2);
    assert.match(err, /Unknown option "--bogus"[\s\S]*Usage: python-session-mcp interpreters/);
  });
});
