/**
 * Registration, checked by the real clients: after `register claude-code`, Claude Code's own
 * `claude mcp list` starts the registered command and reports it connected; after
 * `register codex`, Codex's own `codex mcp list` reads the config.toml we edited and lists the
 * server with this install's command, beside the servers and settings the user had; after
 * `register gemini-cli`, Gemini CLI's own `gemini mcp list` shows the server "Disabled" in a
 * folder it does not trust (as `register` said, with how to trust it) and connected once the
 * folder is trusted the way `register` told: the trustedFolders.json entry, or the answer to the
 * question interactive Gemini CLI asks on a terminal (gemini-terminal.ts). Removing takes it out
 * of every list again.
 *
 * Each client runs with HOME (and CODEX_HOME) in a temporary folder and PYTHON_MCP_HOME in
 * another, in a network namespace with loopback only where `unshare -rn` works. The daemon that
 * `claude mcp list` starts through the registered command is stopped at the end, and must be gone.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { TEST_PYTHON, isAlive, processesMatching } from '../../app/core/testing/test-python.js';
import { CLI } from '../support/mcp-harness.js';
import { type ClientBinary, claudeBinary, codexBinary, geminiBinary, missingClient } from './client-binaries.js';
import { answerTrustQuestion } from './gemini-terminal.js';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A guard against a hung client, not a timing check. */
const RUN_TIMEOUT_MS = 120_000;

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** An unprivileged network namespace whose loopback can be brought up: then nothing a client does leaves the machine. */
function loopbackNamespaceWorks(): boolean {
  if (process.platform !== 'linux' || process.env.PYTHON_SESSION_NO_NETNS) return false;
  return spawnSync('unshare', ['-rn', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

describe('registration, read back by the real clients', () => {
  /** The clients' HOME, and the state folder of the server they start. */
  let folders: { root: string; home: string; state: string };
  let codexHome: string;
  const isolated = loopbackNamespaceWorks();

  const env = (): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: folders.home,
    CODEX_HOME: codexHome,
    PYTHON_MCP_HOME: folders.state,
    PYTHON_MCP_INTERPRETER: TEST_PYTHON,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  });

  /** Runs a program to its end; inside a loopback-only network namespace for the clients, where possible. */
  const run = (command: string, args: string[], options: { isolate?: boolean; cwd?: string } = {}): Promise<Ran> => {
    const [program, argv] =
      options.isolate && isolated
        ? ['unshare', ['-rn', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', command, ...args]]
        : [command, args];
    return new Promise((resolve, reject) => {
      const child = spawn(program, argv, { env: env(), cwd: options.cwd ?? folders.home, stdio: ['ignore', 'pipe', 'pipe'], timeout: RUN_TIMEOUT_MS });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  };
  const cli = (...args: string[]) => run(process.execPath, [CLI, ...args]);
  const client = (binary: ClientBinary, ...args: string[]) => run(binary.command, [...binary.prefix, ...args], { isolate: true });
  /** Our CLI, and a client, started in `cwd` (a project folder) rather than the home folder. */
  const cliIn = (cwd: string, ...args: string[]) => run(process.execPath, [CLI, ...args], { cwd });
  const clientIn = (cwd: string, binary: ClientBinary, ...args: string[]) => run(binary.command, [...binary.prefix, ...args], { isolate: true, cwd });

  before(() => {
    const root = mkdtempSync(join(tmpdir(), 'ps-registration-'));
    folders = { root, home: join(root, 'home'), state: join(root, 'state') };
    mkdirSync(folders.home);
    mkdirSync(folders.state);
    codexHome = join(folders.home, '.codex');
    // Codex refuses a CODEX_HOME that does not exist.
    mkdirSync(codexHome);
  });

  after(async () => {
    if (!folders) return;
    // The daemon `claude mcp list` started through our command; `stop` waits for it to go.
    const stopped = await cli('stop');
    assert.equal(stopped.code, 0, stopped.stderr);
    const deadline = Date.now() + 30_000;
    let left = processesMatching(folders.state);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = processesMatching(folders.state);
    }
    for (const pid of left) process.kill(pid, 'SIGKILL');
    rmSync(folders.root, { recursive: true, force: true });
    assert.deepEqual(left, [], 'processes of the state folder were still running after stop');
  });

  test('claude mcp list: after register claude-code the server is connected; after --remove it is gone', { skip: missingClient('claude') }, async (t) => {
    const claude = claudeBinary()!;
    const registered = await cli('register', 'claude-code', '--interpreter', TEST_PYTHON);
    assert.equal(registered.code, 0, registered.stderr);
    // The entry runs this install's built CLI with the Node running it, by absolute paths.
    const config = JSON.parse(readFileSync(join(folders.home, '.claude.json'), 'utf8'));
    assert.deepEqual(config.mcpServers['python-session'], {
      type: 'stdio',
      command: process.execPath,
      args: [CLI],
      env: { PYTHON_MCP_INTERPRETER: TEST_PYTHON },
    });

    const list = await client(claude, 'mcp', 'list');
    t.diagnostic(`${claude.describe} mcp list${isolated ? ' (loopback-only namespace)' : ''}:\n${list.stdout}`);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^python-session: ${escape(process.execPath)} ${escape(CLI)} - \\S+ Connected$`, 'm'));
    // It was our command that answered: the daemon it started lives in our state folder.
    const info = JSON.parse(readFileSync(join(folders.state, 'daemon.json'), 'utf8')) as { pid: number };
    assert.ok(isAlive(info.pid), 'the daemon started by the registered command is running');

    const removed = await cli('register', 'claude-code', '--remove');
    assert.equal(removed.code, 0, removed.stderr);
    const after = await client(claude, 'mcp', 'list');
    t.diagnostic(`after --remove:\n${after.stdout}`);
    assert.equal(after.code, 0, after.stderr);
    assert.doesNotMatch(after.stdout, /python-session/);
  });

  test('codex mcp list: after register codex the server is listed beside the user\'s own; after --remove the file is as it was', { skip: missingClient('codex') }, async (t) => {
    const codex = codexBinary()!;
    const file = join(codexHome, 'config.toml');
    const original = [
      '# Codex settings, kept by hand',
      'model = "gpt-5-codex"  # the default model',
      'approval_policy = "on-request"',
      '',
      '[model_providers.local]',
      'name = "Local"',
      'base_url = "http://127.0.0.1:9/v1"',
      'wire_api = "responses"',
      '',
      '[mcp_servers.docs]',
      'command = "npx"',
      'args = ["-y", "docs-mcp"]',
      '',
      '[mcp_servers.docs.env]',
      'DOCS_TOKEN = "t"',
      '',
      '[profiles.fast]',
      'model = "gpt-5-mini"',
      '',
    ].join('\n');
    writeFileSync(file, original);

    const registered = await cli('register', 'codex', '--interpreter', TEST_PYTHON);
    assert.equal(registered.code, 0, registered.stderr);
    assert.match(registered.stdout, /Added Python Session to Codex in .*config\.toml\./);
    const text = readFileSync(file, 'utf8');
    for (const line of original.split('\n').filter(Boolean)) assert.ok(text.includes(`${line}\n`), `kept: ${line}`);

    const json = await client(codex, 'mcp', 'list', '--json');
    assert.equal(json.code, 0, json.stderr);
    const servers = JSON.parse(json.stdout) as Array<{ name: string; enabled: boolean; transport: Record<string, unknown> }>;
    assert.deepEqual(servers.map((s) => s.name).sort(), ['docs', 'python-session']);
    const ours = servers.find((s) => s.name === 'python-session')!;
    assert.equal(ours.enabled, true);
    assert.deepEqual(
      { type: ours.transport.type, command: ours.transport.command, args: ours.transport.args, env: ours.transport.env },
      { type: 'stdio', command: process.execPath, args: [CLI], env: { PYTHON_MCP_INTERPRETER: TEST_PYTHON } },
    );

    const list = await client(codex, 'mcp', 'list');
    t.diagnostic(`${codex.describe} mcp list${isolated ? ' (loopback-only namespace)' : ''}:\n${list.stdout}`);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^python-session +${escape(process.execPath)} +${escape(CLI)} +PYTHON_MCP_INTERPRETER=\\*+ +- +enabled\\b`, 'm'));
    assert.match(list.stdout, /^docs +npx +-y docs-mcp /m);

    const again = await cli('register', 'codex', '--interpreter', TEST_PYTHON);
    assert.match(again.stdout, /Codex already has the current Python Session entry/);
    assert.equal(readFileSync(file, 'utf8'), text);

    const removed = await cli('register', 'codex', '--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(readFileSync(file, 'utf8'), original);
    const afterRemove = await client(codex, 'mcp', 'list', '--json');
    assert.deepEqual((JSON.parse(afterRemove.stdout) as Array<{ name: string }>).map((s) => s.name), ['docs']);
    assert.ok(existsSync(`${file}.python-session.bak`), 'the backup of the previous file is kept');
  });

  test('gemini mcp list: after register gemini-cli the server is Disabled in a folder Gemini CLI does not trust, as register says, and connected once it is trusted the way register tells', { skip: missingClient('gemini') }, async (t) => {
    const gemini = geminiBinary()!;
    const project = join(folders.root, 'analysis');
    mkdirSync(project);
    const settings = join(folders.home, '.gemini', 'settings.json');
    const trustFile = join(folders.home, '.gemini', 'trustedFolders.json');
    // Gemini CLI prints its list on stderr, in colour only on a terminal.
    const listed = (r: Ran) => stripVTControlCharacters(r.stdout + r.stderr);
    const ours = new RegExp(`^\\S+ python-session: ${escape(process.execPath)} ${escape(CLI)} \\(stdio\\) - (\\w+)$`, 'm');

    const registered = await cliIn(project, 'register', 'gemini-cli', '--interpreter', TEST_PYTHON);
    t.diagnostic(`register gemini-cli in ${project}:\n${registered.stdout}`);
    assert.equal(registered.code, 0, registered.stderr);
    assert.deepEqual(JSON.parse(readFileSync(settings, 'utf8')).mcpServers['python-session'], {
      command: process.execPath,
      args: [CLI],
      env: { PYTHON_MCP_INTERPRETER: TEST_PYTHON },
    });
    // A fresh Gemini CLI trusts no folder: register says so, and how to trust this one.
    assert.match(registered.stdout, new RegExp(`^Gemini CLI does not trust ${escape(project)} \\(folder trust is on and no entry in ${escape(trustFile)} covers it\\), so it disables every MCP server there: "gemini mcp list" shows Python Session as Disabled\\.$`, 'm'));
    const entryLine = `${JSON.stringify(project)}: "TRUST_FOLDER"`;
    assert.ok(registered.stdout.includes(`choose "Trust folder (${basename(project)})" when it asks, or run /permissions trust in Gemini CLI there; or add ${entryLine} to ${trustFile}.`), registered.stdout);

    const untrusted = await clientIn(project, gemini, 'mcp', 'list');
    t.diagnostic(`${gemini.describe} mcp list in the untrusted folder${isolated ? ' (loopback-only namespace)' : ''}:\n${listed(untrusted)}`);
    assert.equal(untrusted.code, 0, listed(untrusted));
    assert.equal(ours.exec(listed(untrusted))?.[1], 'Disabled', listed(untrusted));
    assert.match(listed(untrusted), /disabled because this folder is untrusted/);

    // Trusted the way register told: the entry in trustedFolders.json.
    writeFileSync(trustFile, `{\n  ${entryLine}\n}\n`);
    const again = await cliIn(project, 'register', 'gemini-cli', '--interpreter', TEST_PYTHON);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Gemini CLI already has the current Python Session entry in .*settings\.json; nothing changed\.$/m);
    assert.doesNotMatch(again.stdout, /does not trust/);

    const trusted = await clientIn(project, gemini, 'mcp', 'list');
    t.diagnostic(`mcp list in the trusted folder:\n${listed(trusted)}`);
    assert.equal(trusted.code, 0, listed(trusted));
    assert.equal(ours.exec(listed(trusted))?.[1], 'Connected', listed(trusted));
    // It was our command that answered: the daemon it started lives in our state folder.
    const info = JSON.parse(readFileSync(join(folders.state, 'daemon.json'), 'utf8')) as { pid: number };
    assert.ok(isAlive(info.pid), 'the daemon started by the registered command is running');

    const removed = await cliIn(project, 'register', 'gemini-cli', '--remove');
    assert.equal(removed.code, 0, removed.stderr);
    const afterRemove = await clientIn(project, gemini, 'mcp', 'list');
    assert.equal(afterRemove.code, 0, listed(afterRemove));
    assert.doesNotMatch(listed(afterRemove), /python-session/);
    assert.match(listed(afterRemove), /No MCP servers configured/);
  });

  // Interactive Gemini CLI tries to sign in; only a loopback-only namespace keeps that on this machine.
  const interactiveSkip = missingClient('gemini') || (isolated ? false : 'interactive Gemini CLI needs a loopback-only network namespace (unshare -rn) here');
  test('the question register names: answering "Trust folder (<name>)" in interactive Gemini CLI trusts the folder, and gemini mcp list then shows the server connected', { skip: interactiveSkip }, async (t) => {
    const gemini = geminiBinary()!;
    const project = join(folders.root, 'survey');
    mkdirSync(project);
    const trustFile = join(folders.home, '.gemini', 'trustedFolders.json');
    rmSync(trustFile, { force: true });
    const listed = (r: Ran) => stripVTControlCharacters(r.stdout + r.stderr);
    const ours = new RegExp(`^\\S+ python-session: ${escape(process.execPath)} ${escape(CLI)} \\(stdio\\) - (\\w+)$`, 'm');

    const registered = await cliIn(project, 'register', 'gemini-cli', '--interpreter', TEST_PYTHON);
    assert.equal(registered.code, 0, registered.stderr);
    const choice = `Trust folder (${basename(project)})`;
    assert.ok(registered.stdout.includes(`choose "${choice}" when it asks`), registered.stdout);

    // As a person starts it, with an API key that goes nowhere (the base URL is a closed loopback port).
    const answer = await answerTrustQuestion(['unshare', '-rn', 'sh', '-c', 'ip link set lo up && exec "$0" "$@"', gemini.command, ...gemini.prefix], {
      cwd: project,
      env: { ...env(), TERM: 'xterm-256color', GEMINI_API_KEY: 'not-a-key', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9', NO_BROWSER: 'true' },
      choice,
      trustFile,
      folder: project,
    });
    t.diagnostic(`interactive ${gemini.describe} in ${project}, asked: ${answer.asked}, trust written: ${answer.written}`);
    assert.ok(answer.asked, `Gemini CLI offered "${choice}":\n${answer.screen}`);
    assert.match(answer.screen, /Do you trust the files in this folder\?/);
    assert.deepEqual(JSON.parse(readFileSync(trustFile, 'utf8')), { [project]: 'TRUST_FOLDER' });

    const again = await cliIn(project, 'register', 'gemini-cli', '--interpreter', TEST_PYTHON);
    assert.doesNotMatch(again.stdout, /does not trust/);
    const list = await clientIn(project, gemini, 'mcp', 'list');
    t.diagnostic(`mcp list after answering:\n${listed(list)}`);
    assert.equal(ours.exec(listed(list))?.[1], 'Connected', listed(list));

    const removed = await cliIn(project, 'register', 'gemini-cli', '--remove');
    assert.equal(removed.code, 0, removed.stderr);
  });
});
