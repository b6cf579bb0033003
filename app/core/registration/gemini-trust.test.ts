/**
 * Gemini CLI's folder trust, read from small fixture files laid out as Gemini CLI 0.61 keeps them
 * (its own behaviour on the same files is checked with the real binary in
 * e2e/clients/registration.e2e.test.ts).
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { type PlatformContext, nodePathProbe } from './clients.js';
import { folderVerdict, geminiTrustNotes, readGeminiTrust } from './gemini-trust.js';
import { registerClient, registrationStatus } from './register.js';

const roots: string[] = [];
after(() => Promise.all(roots.map((r) => rm(r, { recursive: true, force: true }))));

interface Fixture {
  ctx: PlatformContext;
  root: string;
  gemini: string;
  /** A folder under the fixture, made. */
  folder(...parts: string[]): Promise<string>;
  put(name: string, text: string): Promise<void>;
}

/** A home with ~/.gemini, and the system settings in the fixture too, so no test reads /etc. */
async function fixture(env: Record<string, string> = {}): Promise<Fixture> {
  const root = await mkdtemp(path.join(tmpdir(), 'ps-gemini-trust-'));
  roots.push(root);
  const home = path.join(root, 'home');
  const gemini = path.join(home, '.gemini');
  await mkdir(gemini, { recursive: true });
  await mkdir(path.join(root, 'etc'));
  const ctx: PlatformContext = {
    platform: 'linux',
    home,
    env: { GEMINI_CLI_SYSTEM_SETTINGS_PATH: path.join(root, 'etc', 'settings.json'), ...env },
    fs: nodePathProbe,
  };
  return {
    ctx,
    root,
    gemini,
    async folder(...parts) {
      const dir = path.join(root, ...parts);
      await mkdir(dir, { recursive: true });
      return dir;
    },
    put: (name, text) => writeFile(path.isAbsolute(name) ? name : path.join(gemini, name), text),
  };
}

const trusted = async (f: Fixture, folder: string) => folderVerdict(await readGeminiTrust(f.ctx), folder, f.ctx).trusted;

test('a fresh install: folder trust is on and no folder is trusted; the note says Disabled and how to trust it', async () => {
  const f = await fixture();
  const project = await f.folder('work', 'proj');
  const setup = await readGeminiTrust(f.ctx);
  assert.deepEqual(setup, { enabled: true, file: path.join(f.gemini, 'trustedFolders.json'), rules: [], problems: [] });
  assert.deepEqual(folderVerdict(setup, project, f.ctx), { folder: project, trusted: false, by: 'no-rule' });
  const notes = await geminiTrustNotes(f.ctx, project);
  assert.equal(notes.length, 2, notes.join('\n'));
  assert.match(notes[0], new RegExp(`^Gemini CLI does not trust ${project} \\(folder trust is on and no entry in .*trustedFolders\\.json covers it\\)`));
  assert.match(notes[0], /"gemini mcp list" shows Python Session as Disabled\.$/);
  assert.equal(
    notes[1],
    `To trust it: start gemini in it and choose "Trust folder (proj)" when it asks, or run /permissions trust in Gemini CLI there; or add "${project}": "TRUST_FOLDER" to ${path.join(f.gemini, 'trustedFolders.json')}.`,
  );
});

test('TRUST_FOLDER trusts the folder and every folder inside; TRUST_PARENT the entry\'s parent; comments are allowed', async () => {
  const f = await fixture();
  const proj = await f.folder('work', 'proj');
  const inner = await f.folder('work', 'proj', 'src', 'deep');
  const sibling = await f.folder('work', 'other');
  const parentRule = await f.folder('clients', 'acme');
  const cousin = await f.folder('clients', 'globex');
  await f.put('trustedFolders.json', `{\n  // mine\n  ${JSON.stringify(proj)}: "TRUST_FOLDER",\n  ${JSON.stringify(parentRule)}: "TRUST_PARENT"\n}\n`);
  assert.equal(await trusted(f, proj), true);
  assert.equal(await trusted(f, inner), true);
  assert.equal(await trusted(f, sibling), false);
  assert.equal(await trusted(f, `${proj}-2`), false, 'a folder whose name only starts the same is not inside');
  assert.equal(await trusted(f, cousin), true);
  assert.equal(await trusted(f, path.dirname(parentRule)), true);
  assert.deepEqual(await geminiTrustNotes(f.ctx, inner), [], 'nothing to say where the server runs');
});

test('the longest matching entry wins: DO_NOT_TRUST inside a trusted folder, and the note names it', async () => {
  const f = await fixture();
  const work = await f.folder('work');
  const secret = await f.folder('work', 'secret');
  const below = await f.folder('work', 'secret', 'x');
  await f.put('trustedFolders.json', JSON.stringify({ [work]: 'TRUST_FOLDER', [secret]: 'DO_NOT_TRUST' }));
  const setup = await readGeminiTrust(f.ctx);
  assert.deepEqual(folderVerdict(setup, below, f.ctx), { folder: below, trusted: false, by: 'rule', rule: { path: secret, level: 'DO_NOT_TRUST' } });
  assert.equal(folderVerdict(setup, work, f.ctx).trusted, true);
  const notes = await geminiTrustNotes(f.ctx, below);
  assert.match(notes[0], new RegExp(`marks ${secret} DO_NOT_TRUST\\), so it disables every MCP server there`));
  assert.match(notes[1], /run \/permissions trust in Gemini CLI there, or change that entry to "TRUST_FOLDER"/);
});

test('a symlinked folder is judged where it leads, as Gemini CLI resolves it', async () => {
  const f = await fixture();
  const real = await f.folder('real', 'proj');
  const link = path.join(f.root, 'link-to-proj');
  await symlink(real, link);
  await f.put('trustedFolders.json', JSON.stringify({ [real]: 'TRUST_FOLDER' }));
  assert.equal(await trusted(f, link), true);
});

test('folder trust turned off in a settings file: every folder runs the server; the system file outranks the user\'s', async () => {
  const f = await fixture();
  const proj = await f.folder('proj');
  await f.put('settings.json', '{ "security": { "folderTrust": { "enabled": false } }, "mcpServers": {} }');
  assert.deepEqual(folderVerdict(await readGeminiTrust(f.ctx), proj, f.ctx), { folder: proj, trusted: true, by: 'folder-trust-off' });
  assert.deepEqual(await geminiTrustNotes(f.ctx, proj), []);
  assert.deepEqual(await geminiTrustNotes(f.ctx), [], 'nor anything in general');

  await f.put(path.join(f.root, 'etc', 'settings.json'), '{ "security": { "folderTrust": { "enabled": true } } }');
  assert.equal((await readGeminiTrust(f.ctx)).enabled, true);
  assert.equal(await trusted(f, proj), false);
});

test('the system defaults file counts below the user\'s settings', async () => {
  const f = await fixture();
  await f.put(path.join(f.root, 'etc', 'system-defaults.json'), '{ "security": { "folderTrust": { "enabled": false } } }');
  assert.equal((await readGeminiTrust(f.ctx)).enabled, false);
  await f.put('settings.json', '{ "security": { "folderTrust": { "enabled": true } } }');
  assert.equal((await readGeminiTrust(f.ctx)).enabled, true);
});

test('GEMINI_CLI_TRUST_WORKSPACE and GEMINI_RESTRICTED_MODE decide before any file', async () => {
  const proj = '/nowhere/proj';
  const yes = await fixture({ GEMINI_CLI_TRUST_WORKSPACE: 'true' });
  await yes.put('trustedFolders.json', '{ broken');
  assert.deepEqual(folderVerdict(await readGeminiTrust(yes.ctx), proj, yes.ctx), { folder: proj, trusted: true, by: 'env' });
  assert.deepEqual(await geminiTrustNotes(yes.ctx, proj), []);

  const no = await fixture({ GEMINI_CLI_TRUST_WORKSPACE: 'false' });
  await no.put('trustedFolders.json', JSON.stringify({ '/nowhere': 'TRUST_FOLDER' }));
  assert.equal(await trusted(no, proj), false);
  assert.match((await geminiTrustNotes(no.ctx, proj))[0], /trusts no folder while GEMINI_CLI_TRUST_WORKSPACE=false is set in the environment/);

  const restricted = await fixture({ GEMINI_RESTRICTED_MODE: 'true', GEMINI_CLI_TRUST_WORKSPACE: 'true' });
  assert.equal(await trusted(restricted, proj), false);
});

test('GEMINI_CLI_HOME and GEMINI_CLI_TRUSTED_FOLDERS_PATH move the files, as for Gemini CLI', async () => {
  const f = await fixture();
  const proj = await f.folder('proj');
  const other = path.join(f.root, 'other-home');
  await mkdir(path.join(other, '.gemini'), { recursive: true });
  await writeFile(path.join(other, '.gemini', 'trustedFolders.json'), JSON.stringify({ [proj]: 'TRUST_FOLDER' }));
  const moved = { ...f.ctx, env: { ...f.ctx.env, GEMINI_CLI_HOME: other } };
  assert.equal((await readGeminiTrust(moved)).file, path.join(other, '.gemini', 'trustedFolders.json'));
  assert.equal(folderVerdict(await readGeminiTrust(moved), proj, moved).trusted, true);

  const named = path.join(f.root, 'trust.json');
  await writeFile(named, JSON.stringify({ [proj]: 'DO_NOT_TRUST' }));
  const byPath = { ...moved, env: { ...moved.env, GEMINI_CLI_TRUSTED_FOLDERS_PATH: named } };
  assert.equal(folderVerdict(await readGeminiTrust(byPath), proj, byPath).trusted, false);
});

test('damaged files make the answer unknown, with why, and never throw', async () => {
  const cases: [string, (f: Fixture) => Promise<void>, RegExp][] = [
    ['trustedFolders.json not JSON', (f) => f.put('trustedFolders.json', '{ "a": '), /trustedFolders\.json cannot be read \(.*cannot parse it/],
    ['trustedFolders.json a list', (f) => f.put('trustedFolders.json', '["/a"]'), /trustedFolders\.json cannot be read \(.*top level is not a JSON object/],
    ['an unknown trust level', (f) => f.put('trustedFolders.json', '{ "/a": "TRUST_ME" }'), /has "TRUST_ME" for \/a, not one of TRUST_FOLDER, TRUST_PARENT, DO_NOT_TRUST/],
    ['trustedFolders.json a folder', (f) => mkdir(path.join(f.gemini, 'trustedFolders.json')), /trustedFolders\.json cannot be read \(.*not a regular file/],
    ['settings.json not JSON', (f) => f.put('settings.json', '{{'), /settings\.json cannot be read/],
    ['folderTrust.enabled a string', (f) => f.put('settings.json', '{ "security": { "folderTrust": { "enabled": "no" } } }'), /sets security\.folderTrust\.enabled to "no", not true or false/],
  ];
  for (const [what, damage, why] of cases) {
    const f = await fixture();
    const proj = await f.folder('proj');
    await damage(f);
    const setup = await readGeminiTrust(f.ctx);
    assert.equal(folderVerdict(setup, proj, f.ctx).trusted, undefined, what);
    assert.match(setup.problems.join('\n'), why, what);
    const [note] = await geminiTrustNotes(f.ctx, proj);
    assert.match(note, new RegExp(`^Whether Gemini CLI trusts ${proj} is unknown: `), what);
    assert.match(note, /starts MCP servers only in folders it trusts\.$/, what);
    const general = await geminiTrustNotes(f.ctx);
    assert.match(general.join('\n'), /Which folders it trusts is unknown/, what);
  }
});

test('in general (the panel): the trusted folders, Gemini CLI\'s own projects it does not trust, and how to trust one', async () => {
  const f = await fixture();
  const trustedProj = await f.folder('ok');
  const untrustedProj = await f.folder('nope');
  await f.put('trustedFolders.json', JSON.stringify({ [trustedProj]: 'TRUST_FOLDER' }));
  await f.put('projects.json', JSON.stringify({ projects: { [trustedProj]: 'ok', [untrustedProj]: 'nope' } }));
  assert.deepEqual(await geminiTrustNotes(f.ctx), [
    'Gemini CLI starts MCP servers only in folders you trust; in any other it lists Python Session as "Disabled".',
    `Trusted: ${trustedProj}, and the folders inside.`,
    `Gemini CLI has run in ${untrustedProj}, not trusted: Python Session is disabled there.`,
    `To trust it: start gemini in it and choose "Trust folder (nope)" when it asks, or run /permissions trust in Gemini CLI there; or add "${untrustedProj}": "TRUST_FOLDER" to ${path.join(f.gemini, 'trustedFolders.json')}.`,
  ]);

  await f.put('projects.json', 'not json');
  await f.put('trustedFolders.json', '{}');
  const notes = await geminiTrustNotes(f.ctx);
  assert.equal(notes[1], 'No folder is trusted yet.');
  assert.match(notes[2], /^To trust a folder: start gemini in it and choose "Trust folder" when it asks/);
  assert.match(notes[2], /add "<folder>": "TRUST_FOLDER" to /);
});

test('Windows and macOS compare paths without regard to case, Windows with either slash', async () => {
  const same = (p: string) => p;
  const setup = { enabled: true, file: 'C:\\Users\\ada\\.gemini\\trustedFolders.json', rules: [{ path: 'C:\\Users\\Ada\\Proj', level: 'TRUST_FOLDER' as const }], problems: [] };
  const win: PlatformContext = { platform: 'win32', home: 'C:\\Users\\ada', env: {}, fs: nodePathProbe };
  assert.equal(folderVerdict(setup, 'c:\\users\\ada\\proj\\src', win, same).trusted, true);
  assert.equal(folderVerdict(setup, 'C:/Users/Ada/Proj', win, same).trusted, true);
  assert.equal(folderVerdict(setup, 'C:\\Users\\Ada\\Projects', win, same).trusted, false);
  const mac: PlatformContext = { platform: 'darwin', home: '/Users/ada', env: {}, fs: nodePathProbe };
  const macSetup = { ...setup, rules: [{ path: '/Users/Ada/Proj', level: 'TRUST_FOLDER' as const }] };
  assert.equal(folderVerdict(macSetup, '/users/ada/proj/x', mac, same).trusted, true);
  const linux: PlatformContext = { ...mac, platform: 'linux' };
  assert.equal(folderVerdict(macSetup, '/users/ada/proj/x', linux, same).trusted, false);
});

test('registration carries the notes: register gemini-cli for the folder it runs from, and the status of a registered Gemini CLI', async () => {
  const f = await fixture();
  const proj = await f.folder('proj');
  const entry = { command: '/usr/bin/node', args: ['/opt/ps/dist/app/cli/main.js'], env: {} };
  const result = await registerClient('gemini-cli', entry, { ...f.ctx, folder: proj });
  assert.equal(result.notes.length, 2);
  assert.match(result.message, /^Added Python Session to Gemini CLI in .*\nStart a new Gemini CLI session[^\n]*$/);
  assert.match(result.notes[0], /^Gemini CLI does not trust /);
  const [status] = await registrationStatus({ ...f.ctx, expected: entry, clients: ['gemini-cli'], folder: proj });
  assert.deepEqual(status.notes, result.notes);
  const [general] = await registrationStatus({ ...f.ctx, expected: entry, clients: ['gemini-cli'] });
  assert.match(general.notes[0], /starts MCP servers only in folders you trust/);

  await f.put('trustedFolders.json', JSON.stringify({ [proj]: 'TRUST_FOLDER' }));
  const again = await registerClient('gemini-cli', entry, { ...f.ctx, folder: proj });
  assert.deepEqual(again.notes, []);
  // Other clients have nothing to say, and neither does an unregistered Gemini CLI.
  const other = await registrationStatus({ ...f.ctx, expected: entry, clients: ['cursor'], folder: proj });
  assert.deepEqual(other[0].notes, []);
});
