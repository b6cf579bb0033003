#!/usr/bin/env node
/**
 * What `npm test` needs, set up without root before the tests run, then the tests:
 *
 *   node scripts/test-setup.mjs [command …]
 *
 * 1. A Python for the kernel tests: PYTHON_SESSION_TEST_PYTHON if set; else /usr/bin/python3
 *    where it already has every package the tests use (Debian's, as `.ci/run` installs them);
 *    else a venv in .test-tools/venv-test that pip fills from the configured index (made once,
 *    reused after). The command runs with PYTHON_SESSION_TEST_PYTHON naming it.
 * 2. The real Claude Code, Codex and Gemini CLI (e2e/clients/install-clients.sh) where missing.
 * 3. Chromium is not installed (it needs root): where it is absent, the panel tests skip.
 *
 * It prints one line saying what it set up or skipped and why, and is quick when everything is
 * there (a few file checks and one Python start). Node built-ins only: it runs before anything
 * is built. PYTHON_SESSION_TEST_IGNORE_SYSTEM_PYTHON=1 makes it act as if /usr/bin/python3 lacked
 * the packages (how the venv route is tested on a machine that has them).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
const TOOLS = join(ROOT, '.test-tools');
const VENV = join(TOOLS, 'venv-test');
const LOG = join(TOOLS, 'test-setup.log');
const SYSTEM_PYTHON = '/usr/bin/python3';

/**
 * The modules the tests import in the kernel: the kernel itself, the analysis stack the tools
 * drive, openpyxl (Excel files), nbformat and nbclient (exported notebooks are validated and
 * re-run), scipy (the warm pool preimports it), jupyter_server (the remote-kernel tests).
 */
const MODULES = ['ipykernel', 'jupyter_client', 'pandas', 'statsmodels', 'matplotlib', 'openpyxl', 'nbformat', 'nbclient', 'scipy', 'jupyter_server'];

function log(text) {
  mkdirSync(TOOLS, { recursive: true });
  writeFileSync(LOG, `${new Date().toISOString()} ${text}\n`, { flag: 'a' });
}

/** The modules of MODULES that `python` cannot find (all of them when it does not run). */
function missingModules(python) {
  const probe = `import importlib.util as u, sys\nprint(' '.join(m for m in sys.argv[1:] if u.find_spec(m) is None))`;
  const r = spawnSync(python, ['-c', probe, ...MODULES], { encoding: 'utf8', timeout: 30_000 });
  if (r.status !== 0) return MODULES;
  return r.stdout.trim().split(/\s+/).filter(Boolean);
}

function venvPython(dir) {
  return join(dir, 'bin', 'python');
}

/** Pythons a venv can be made from, best first: python3 on PATH, then the system's. */
function basePythons() {
  const found = [];
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    const candidate = join(dir, 'python3');
    if (existsSync(candidate) && !candidate.startsWith(TOOLS)) {
      found.push(candidate);
      break;
    }
  }
  if (!found.includes(SYSTEM_PYTHON) && existsSync(SYSTEM_PYTHON)) found.push(SYSTEM_PYTHON);
  return found;
}

/**
 * Makes .test-tools/venv-test, filled by pip. Built in a folder of its own and renamed into place,
 * so two `npm test` at once never share a half-made venv. Returns { python, missing } or { why }.
 */
function makeVenv() {
  process.stderr.write(`test setup: making a test venv in ${VENV} with pip (once; a few minutes) — log in ${LOG}\n`);
  const building = `${VENV}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const tried = [];
  for (const base of basePythons()) {
    const made = spawnSync(base, ['-m', 'venv', building], { encoding: 'utf8', timeout: 120_000 });
    if (made.status === 0) {
      // --retries 0 and a short timeout: where the default index is unreachable pip moves on to a
      // configured local one at once instead of backing off on every package.
      const pip = (...names) => {
        const r = spawnSync(venvPython(building), ['-m', 'pip', 'install', '--retries', '0', '--timeout', '30', '--progress-bar', 'off', '--disable-pip-version-check', ...names], {
          encoding: 'utf8',
          timeout: 15 * 60_000,
        });
        log(`pip install ${names.join(' ')} in a venv from ${base} (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
        return r;
      };
      // The kernel first; then the rest together, and one by one if the index lacks one of them,
      // so that a package it lacks costs only the tests that use it.
      const kernel = pip('ipykernel');
      const rest = MODULES.filter((name) => name !== 'ipykernel');
      if (kernel.status === 0 && pip(...rest).status !== 0) for (const name of rest) pip(name);
      const pipResult = kernel;
      const missing = missingModules(venvPython(building));
      if (missing.includes('ipykernel')) {
        rmSync(building, { recursive: true, force: true });
        const error = (pipResult.stderr ?? '').split('\n').find((line) => line.startsWith('ERROR')) ?? `exit ${pipResult.status}`;
        tried.push(`pip could not install ipykernel into a venv from ${base} (${error})`);
        continue;
      }
      try {
        renameSync(building, VENV);
      } catch {
        // Another `npm test` put its venv in place meanwhile: use that one.
        rmSync(building, { recursive: true, force: true });
      }
      return { python: venvPython(VENV), base, missing: missingModules(venvPython(VENV)) };
    }
    log(`${base} -m venv failed:\n${made.stderr ?? made.error}`);
    tried.push(`${base} -m venv failed (${(made.stderr ?? String(made.error)).trim().split('\n').at(-1)})`);
  }
  rmSync(building, { recursive: true, force: true });
  return { why: tried.length ? tried.join('; ') : 'no python3 on PATH and no /usr/bin/python3' };
}

/** { python, said, failed? }: the interpreter the tests will use and how it was chosen. */
function choosePython() {
  const named = process.env.PYTHON_SESSION_TEST_PYTHON;
  if (named) {
    const missing = missingModules(named);
    return { python: named, said: `Python: ${named} (PYTHON_SESSION_TEST_PYTHON)${missing.length ? `, which lacks ${missing.join(', ')}` : ''}` };
  }
  const ignoreSystem = process.env.PYTHON_SESSION_TEST_IGNORE_SYSTEM_PYTHON === '1';
  const systemMissing = ignoreSystem || !existsSync(SYSTEM_PYTHON) ? null : missingModules(SYSTEM_PYTHON);
  if (systemMissing?.length === 0) return { python: SYSTEM_PYTHON, said: `Python: ${SYSTEM_PYTHON} (has every package the tests use)` };
  const why = ignoreSystem
    ? `${SYSTEM_PYTHON} ignored: PYTHON_SESSION_TEST_IGNORE_SYSTEM_PYTHON=1`
    : systemMissing
      ? `${SYSTEM_PYTHON} lacks ${systemMissing.join(', ')}`
      : `no ${SYSTEM_PYTHON}`;
  if (existsSync(venvPython(VENV))) {
    const missing = missingModules(venvPython(VENV));
    if (!missing.includes('ipykernel')) {
      const remake = missing.length ? `, which lacks ${missing.join(', ')} (remove it to have it made again)` : '';
      return { python: venvPython(VENV), said: `Python: ${venvPython(VENV)} (${why})${remake}` };
    }
    rmSync(VENV, { recursive: true, force: true }); // broken (its base Python gone?): made again
  }
  const made = makeVenv();
  if (made.why) return { python: null, failed: true, said: `no Python for the kernel tests: ${why}, and no venv could be made: ${made.why}` };
  return { python: made.python, said: `Python: made ${made.python} from ${made.base} with pip (${why})${made.missing.length ? `; pip could not install ${made.missing.join(', ')}` : ''}` };
}

function clientsPresent() {
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  const claude = process.env.PYTHON_SESSION_CLAUDE || join(TOOLS, 'node_modules', '@anthropic-ai', `claude-code-${process.platform}-${arch}`, 'claude');
  const codex = process.env.PYTHON_SESSION_CODEX || join(TOOLS, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');
  const gemini = process.env.PYTHON_SESSION_GEMINI || join(TOOLS, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
  return existsSync(claude) && existsSync(codex) && existsSync(gemini);
}

/** Test files (built) whose name matches and whose text mentions `needle`: what a missing tool skips. */
function testFilesMentioning(dir, needle) {
  const found = [];
  const walk = (d) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.test.js') && readFileSync(path, 'utf8').includes(needle)) found.push(entry.name.replace(/\.js$/, ''));
    }
  };
  walk(dir);
  return found.sort();
}

function setUpClients() {
  if (clientsPresent()) return 'client binaries: present';
  const suites = testFilesMentioning(join(ROOT, 'dist', 'e2e', 'clients'), 'missingClient').join(', ');
  const bash = spawnSync('bash', [join(ROOT, 'e2e', 'clients', 'install-clients.sh')], { encoding: 'utf8', timeout: 5 * 60_000 });
  log(`install-clients.sh (exit ${bash.status}):\n${bash.stdout}\n${bash.stderr}`);
  if (bash.status === 0 && clientsPresent()) return 'client binaries: installed from npm into .test-tools';
  const said = (bash.stderr ?? '').split('\n').filter((l) => l.trim());
  const why = bash.error ? bash.error.message : (said.find((l) => /^npm (error|ERR!)/.test(l)) ?? said.at(-1) ?? `exit ${bash.status}`);
  return `client binaries: could not be installed (${why}; see ${LOG}), so the client tests in ${suites || 'e2e/clients'} skip`;
}

function chromium() {
  const path = process.env.PYTHON_SESSION_CHROMIUM || '/usr/bin/chromium';
  if (existsSync(path)) return 'Chromium: present';
  const suites = testFilesMentioning(join(ROOT, 'dist', 'e2e'), 'CHROMIUM').join(', ');
  return `no Chromium at ${path} (apt-get install chromium), so the panel checks in ${suites} skip`;
}

const python = choosePython();
const line = `test setup: ${[python.said, setUpClients(), chromium()].join('; ')}.`;
console.log(line);
log(line);

/**
 * `node --test <folder>` runs the folder's test files on Node 20, while Node 22 and 24 read each
 * argument as a glob and try to run the folder itself as one test file. A folder is therefore
 * handed over as its test files, which every Node reads alike.
 */
function testFilesOf(args) {
  if (!args.includes('--test')) return args;
  const files = (dir) =>
    readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))
      .flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : files(path);
        return /\.test\.[cm]?js$/.test(entry.name) ? [path] : [];
      });
  return args.flatMap((arg) => {
    if (arg.startsWith('-')) return [arg];
    try {
      return statSync(arg).isDirectory() ? files(arg) : [arg];
    } catch {
      return [arg];
    }
  });
}

const [command, ...args] = process.argv.slice(2);
if (python.failed) process.exit(1);
if (command) {
  const env = { ...process.env, PYTHON_SESSION_TEST_PYTHON: python.python };
  // `node` means the Node running this script: the tests run on the Node npm test was started with.
  const child = spawn(command === 'node' ? process.execPath : command, command === 'node' ? testFilesOf(args) : args, { stdio: 'inherit', env });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => process.exit(code ?? 1));
}
