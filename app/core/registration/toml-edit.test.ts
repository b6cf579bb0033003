import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonObject } from './jsonc.js';
import { TomlShapeError, renderTable, setTomlTable } from './toml-edit.js';
import { parseToml } from './toml.js';

const PATH = ['mcp_servers', 'python-session'];
const ENTRY: JsonObject = {
  command: '/usr/bin/node',
  args: ['/opt/ps/dist/app/cli/main.js'],
  env: { PYTHON_MCP_INTERPRETER: '/opt/conda/bin/python' },
};

const set = (text: string, value: JsonObject | undefined) => setTomlTable(text, parseToml(text), PATH, value);
const lines = (...l: string[]) => l.join('\n');

/** An [mcp_servers] that holds nothing means the same as none. */
function normalized(doc: JsonObject): JsonObject {
  const out = { ...doc };
  const servers = out.mcp_servers;
  if (servers && typeof servers === 'object' && Object.keys(servers).length === 0) delete out.mcp_servers;
  return out;
}

/** The document with our table set, as plain values: what every edit must mean. */
function expectMeaning(before: string, after: string, value: JsonObject | undefined): void {
  const doc = parseToml(before).value as Record<string, JsonObject>;
  const servers = { ...(doc.mcp_servers ?? {}) };
  if (value) servers['python-session'] = value;
  else delete servers['python-session'];
  assert.deepEqual(normalized(parseToml(after).value), normalized({ ...doc, mcp_servers: servers }));
}

test('an empty or missing file gets just our table, in the layout Codex writes', () => {
  const text = set('', ENTRY);
  assert.equal(
    text,
    lines(
      '[mcp_servers.python-session]',
      'command = "/usr/bin/node"',
      'args = ["/opt/ps/dist/app/cli/main.js"]',
      '',
      '[mcp_servers.python-session.env]',
      'PYTHON_MCP_INTERPRETER = "/opt/conda/bin/python"',
      '',
    ),
  );
  assert.equal(set(text, undefined), '');
});

test('adding keeps comments, other tables and arrays of tables byte for byte, and removing gives the file back', () => {
  const original = lines(
    '# Codex config — mine',
    'model = "o3"  # the default',
    'approval_policy = "never"',
    '',
    '[[profiles.list]]',
    'name = "a"   # first',
    '',
    '[[profiles.list]]',
    'name = "b"',
    '',
    '[model_providers.local]',
    'base_url = "http://127.0.0.1:1/v1"',
    '',
  );
  const added = set(original, ENTRY);
  assert.ok(added.startsWith(original), 'everything before stays as it was');
  assert.equal(added.slice(original.length), `\n${renderTable(PATH, ENTRY)}\n`);
  expectMeaning(original, added, ENTRY);
  assert.equal(set(added, undefined), original);
  // Setting what is already there changes nothing: the very same text comes back.
  assert.equal(set(added, ENTRY), added);
});

test('a new table goes after the other MCP servers, before the tables that follow them', () => {
  const original = lines(
    '[mcp_servers.docs]',
    'command = "npx"',
    'args = ["-y", "docs-mcp"]',
    '',
    '[mcp_servers.docs.env]',
    'TOKEN = "t"',
    '',
    '# Profiles below',
    '[profiles.fast]',
    'model = "mini"',
    '',
  );
  const added = set(original, ENTRY);
  expectMeaning(original, added, ENTRY);
  assert.equal(
    added,
    lines(
      '[mcp_servers.docs]',
      'command = "npx"',
      'args = ["-y", "docs-mcp"]',
      '',
      '[mcp_servers.docs.env]',
      'TOKEN = "t"',
      '',
      renderTable(PATH, ENTRY),
      '',
      '# Profiles below',
      '[profiles.fast]',
      'model = "mini"',
      '',
    ),
  );
  assert.equal(set(added, undefined), original);
});

test('an update rewrites only the values that changed; keys and comments the user added stay', () => {
  const original = lines(
    'model = "o3"',
    '',
    '# Python Session, registered by hand',
    '[mcp_servers.python-session]',
    '  command = "/old/node"   # moved since',
    '  args = [',
    '    "/old/main.js",',
    '  ]',
    '  startup_timeout_sec = 30.0',
    '  # the user keeps this one',
    '  tool_timeout_sec = 600',
    '',
    '[mcp_servers.python-session.env]',
    'PYTHON_MCP_INTERPRETER = "/old/python" # old',
    'MY_TOKEN = "secret"',
    '',
    '[profiles.x]',
    'model = "y"',
    '',
  );
  const next: JsonObject = {
    command: '/usr/bin/node',
    args: ['/opt/ps/dist/app/cli/main.js'],
    startup_timeout_sec: 30,
    tool_timeout_sec: 600,
    env: { PYTHON_MCP_INTERPRETER: '/opt/conda/bin/python', MY_TOKEN: 'secret' },
  };
  const updated = set(original, next);
  expectMeaning(original, updated, next);
  assert.equal(
    updated,
    lines(
      'model = "o3"',
      '',
      '# Python Session, registered by hand',
      '[mcp_servers.python-session]',
      '  command = "/usr/bin/node"   # moved since',
      '  args = ["/opt/ps/dist/app/cli/main.js"]',
      '  startup_timeout_sec = 30.0',
      '  # the user keeps this one',
      '  tool_timeout_sec = 600',
      '',
      '[mcp_servers.python-session.env]',
      'PYTHON_MCP_INTERPRETER = "/opt/conda/bin/python" # old',
      'MY_TOKEN = "secret"',
      '',
      '[profiles.x]',
      'model = "y"',
      '',
    ),
  );
});

test('env variables are added and removed inside the env table; an inline env stays inline', () => {
  const withEnv = set('', ENTRY);
  const noInterpreter = { ...ENTRY, env: {} };
  const removed = set(withEnv, noInterpreter);
  assert.equal(removed, lines('[mcp_servers.python-session]', 'command = "/usr/bin/node"', 'args = ["/opt/ps/dist/app/cli/main.js"]', '', '[mcp_servers.python-session.env]', ''));
  expectMeaning(withEnv, removed, noInterpreter);
  // Taking one variable out while putting another in: the new line must not land in the cut one.
  const swapped = { ...ENTRY, env: { ELECTRON_RUN_AS_NODE: '1' } };
  const swap = set(withEnv, swapped);
  expectMeaning(withEnv, swap, swapped);
  assert.match(swap, /\[mcp_servers\.python-session\.env\]\nELECTRON_RUN_AS_NODE = "1"\n$/);

  const inline = lines('[mcp_servers.python-session]', 'command = "/usr/bin/node"', 'args = ["/opt/ps/dist/app/cli/main.js"]', 'env = { OTHER = "x" }', '');
  const next = { ...ENTRY, env: { OTHER: 'x', PYTHON_MCP_INTERPRETER: '/opt/conda/bin/python' } };
  const edited = set(inline, next);
  expectMeaning(inline, edited, next);
  assert.match(edited, /^env = \{ OTHER = "x", PYTHON_MCP_INTERPRETER = "\/opt\/conda\/bin\/python" \}$/m);
  // A table without env gets an env table after its body.
  const bare = lines('[mcp_servers.python-session]', 'command = "/usr/bin/node"', 'args = ["/opt/ps/dist/app/cli/main.js"]', '', '[other]', 'a = 1', '');
  const withTable = set(bare, ENTRY);
  expectMeaning(bare, withTable, ENTRY);
  assert.match(withTable, /args = \["\/opt\/ps\/dist\/app\/cli\/main\.js"\]\n\n\[mcp_servers\.python-session\.env\]\nPYTHON_MCP_INTERPRETER = "\/opt\/conda\/bin\/python"\n\n\[other\]/);
});

test('a multi-line string that holds "[mcp_servers.python-session]" is text, not our table', () => {
  const original = lines(
    'developer_instructions = """',
    '[mcp_servers.python-session]',
    'command = "not real"',
    '# not a comment',
    '"""',
    "notes = '''",
    '[mcp_servers.python-session.env]',
    "'''",
    '',
  );
  const added = set(original, ENTRY);
  assert.ok(added.startsWith(original));
  expectMeaning(original, added, ENTRY);
  assert.equal((parseToml(added).value.developer_instructions as string).split('\n')[0], '[mcp_servers.python-session]');
  assert.equal(set(added, undefined), original);
  // Removing from a file that only mentions us in a string changes nothing.
  assert.equal(set(original, undefined), original);
});

test('CRLF files stay CRLF, and a file without a final line break is handled', () => {
  const crlf = '# windows\r\nmodel = "o3"\r\n\r\n[profiles.x]\r\nmodel = "y"\r\n';
  const added = set(crlf, ENTRY);
  expectMeaning(crlf, added, ENTRY);
  assert.ok(added.startsWith(crlf));
  assert.doesNotMatch(added.replace(/\r\n/g, ''), /\n/, 'no bare line feed');
  assert.equal(set(added, undefined), crlf);
  const updated = set(added, { ...ENTRY, command: '/other/node' });
  assert.match(updated, /\r\ncommand = "\/other\/node"\r\n/);

  const noFinalBreak = 'model = "o3"\n[profiles.x]\nmodel = "y"';
  const appended = set(noFinalBreak, ENTRY);
  expectMeaning(noFinalBreak, appended, ENTRY);
  assert.ok(appended.startsWith(`${noFinalBreak}\n\n[mcp_servers.python-session]\n`));
  // Taking it out again leaves the file as it was, with a final line break.
  assert.equal(set(appended, undefined), `${noFinalBreak}\n`);

  // Our table is last and has no final break: an update still lands on its own line.
  const ours = 'a = 1\n\n[mcp_servers.python-session]\ncommand = "/usr/bin/node"';
  const grown = set(ours, { command: '/usr/bin/node', args: ['x'] });
  assert.equal(grown, 'a = 1\n\n[mcp_servers.python-session]\ncommand = "/usr/bin/node"\nargs = ["x"]');
});

test('removal takes our table and its sub-tables, wherever they are, and nothing else', () => {
  const original = lines(
    '[mcp_servers.python-session]',
    'command = "/usr/bin/node"',
    '',
    '# about docs',
    '[mcp_servers.docs]',
    'command = "npx"',
    '',
    '[mcp_servers.python-session.env]',
    'A = "1"',
    '',
    '[profiles.x] # keep',
    'model = "y"',
    '',
  );
  const removed = set(original, undefined);
  expectMeaning(original, removed, undefined);
  assert.equal(removed, lines('# about docs', '[mcp_servers.docs]', 'command = "npx"', '', '[profiles.x] # keep', 'model = "y"', ''));
});

test('other layouts of our entry (dotted keys, inline tables, sub-tables only) are rewritten as one table', () => {
  const layouts = [
    lines('[mcp_servers]', 'python-session.command = "/old"', 'python-session.args = ["a"]', 'docs = { command = "npx" }', '', '[profiles.x]', 'm = 1', ''),
    lines('[mcp_servers]', 'python-session = { command = "/old", env = { A = "1" } }', ''),
    lines('mcp_servers.python-session.command = "/old"', 'other = 1', ''),
    lines('[mcp_servers.python-session.env]', 'A = "1"', ''),
    lines('[mcp_servers.python-session]', 'command = "/old"', 'env.A = "1"', ''),
    lines('[[mcp_servers.python-session]]', 'command = "/old"', ''),
  ];
  for (const original of layouts) {
    const updated = set(original, ENTRY);
    expectMeaning(original, updated, ENTRY);
    assert.equal((updated.match(/^\[mcp_servers\.python-session\]$/gm) ?? []).length, 1, updated);
    const removed = set(updated, undefined);
    expectMeaning(original, removed, undefined);
    assert.doesNotMatch(removed, /python-session/);
  }
  // The tables of the first layout stay in place, and our table comes after [mcp_servers].
  const first = set(layouts[0], ENTRY);
  assert.ok(first.startsWith(lines('[mcp_servers]', 'docs = { command = "npx" }', '', '[mcp_servers.python-session]', '')), first);
});

test('a parent written as a value or an inline table is refused, and left alone', () => {
  for (const [text, message] of [
    ['mcp_servers = { docs = { command = "npx" } }\n', /"mcp_servers" is written as an inline table/],
    ['mcp_servers = "none"\n', /"mcp_servers" in the file is not a table/],
    ['[[mcp_servers]]\nname = "x"\n', /"mcp_servers" in the file is an array, not a table/],
  ] as const) {
    assert.throws(() => set(text, ENTRY), (e: unknown) => e instanceof TomlShapeError && message.test(e.message), text);
  }
  // Nothing to remove is not an error, even there.
  assert.equal(set('mcp_servers = { docs = { command = "npx" } }\n', undefined), 'mcp_servers = { docs = { command = "npx" } }\n');
});

test('keys and strings that need quoting are quoted', () => {
  const entry: JsonObject = { command: 'C:\\Program Files\\nodejs\\node.exe', args: ['a "b"'], env: { 'odd key': 'x\ny' } };
  const text = set('', entry);
  assert.match(text, /^command = "C:\\\\Program Files\\\\nodejs\\\\node\.exe"$/m);
  assert.match(text, /^"odd key" = "x\\ny"$/m);
  assert.deepEqual(parseToml(text).value, { mcp_servers: { 'python-session': entry } });
});

/** A small deterministic generator (mulberry32), so a failing seed can be replayed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Our entry in one of the ways a person or a tool might have written it. */
const OUR_LAYOUTS: Array<(n: number) => { tables: string[][]; inServers?: string[] }> = [
  () => ({ tables: [['[mcp_servers.python-session]', 'command = "/old"', 'args = ["a"] # mine'], ['[mcp_servers.python-session.env]', 'PYTHON_MCP_INTERPRETER = "/py"', 'KEEP = "k"']] }),
  () => ({ tables: [['[mcp_servers."python-session"]', '# inside ours', 'command = "/old"', 'env = { KEEP = "k" }', 'tool_timeout_sec = 600']] }),
  () => ({ tables: [['[mcp_servers.python-session]', 'command = "/old"']] }),
  () => ({ tables: [], inServers: ['python-session.command = "/old"', 'python-session.env.KEEP = "k"'] }),
  () => ({ tables: [['[mcp_servers.python-session.env]', 'KEEP = "k"']] }),
];

function randomDocument(r: () => number): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)];
  const comment = () => (r() < 0.3 ? `  # c${Math.floor(r() * 100)} [mcp_servers.python-session]` : '');
  const preamble: string[] = [];
  for (let i = Math.floor(r() * 3); i > 0; i--) preamble.push(`root${i} = ${pick(['"x"', '1', 'true', '[1, 2]', '{ a = 1 }'])}${comment()}`);
  if (r() < 0.4) preamble.push('instructions = """', '[mcp_servers.python-session]', 'command = "fake" # not a comment', '"""');
  if (r() < 0.3) preamble.unshift('# Codex config');
  const tables: string[][] = [];
  for (let i = Math.floor(r() * 3); i > 0; i--) tables.push([`[profiles.p${i}]${comment()}`, `model = "m${i}"`]);
  for (let i = Math.floor(r() * 3); i > 0; i--) tables.push(['[[list]]', `n = ${i}${comment()}`]);
  for (let i = Math.floor(r() * 3); i > 0; i--) {
    tables.push([`[mcp_servers.srv${i}]`, `command = "c${i}"${comment()}`]);
    if (r() < 0.5) tables.push([`[mcp_servers.srv${i}.env]`, `T = "${i}"`]);
  }
  const servers: string[] = [];
  if (r() < 0.7) {
    const ours = pick(OUR_LAYOUTS)(0);
    tables.push(...ours.tables);
    servers.push(...(ours.inServers ?? []));
  }
  if (servers.length > 0 || r() < 0.2) tables.push(['[mcp_servers]', ...servers, 'other = { command = "o" }']);
  // Shuffle the tables: layouts land anywhere in the file.
  for (let i = tables.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [tables[i], tables[j]] = [tables[j], tables[i]];
  }
  const blocks = [preamble, ...tables].filter((b) => b.length > 0);
  let text = blocks.map((b) => b.join('\n')).join(pick(['\n', '\n\n', '\n# between\n']));
  if (r() < 0.7) text += '\n';
  if (r() < 0.3) text = text.replace(/\n/g, '\r\n');
  return text;
}

const nonBlankLines = (text: string) => text.split(/\r?\n/).filter((l) => l.trim() !== '');

test('random documents: every add, update and removal means exactly that, and keeps all else', () => {
  for (let seed = 1; seed <= 400; seed++) {
    const r = rng(seed);
    const text = randomDocument(r);
    const label = `seed ${seed}:\n${text}`;
    const doc = parseToml(text).value as Record<string, Record<string, JsonObject>>;
    const old = doc.mcp_servers?.['python-session'];
    // As mergeEntry does: our keys replaced, the user's kept.
    const env: JsonObject = { ...((old?.env as JsonObject | undefined) ?? {}) };
    if (r() < 0.5) env.PYTHON_MCP_INTERPRETER = '/new/python';
    else delete env.PYTHON_MCP_INTERPRETER;
    const value: JsonObject = { ...(old ?? {}), command: '/usr/bin/node', args: ['/opt/ps/main.js'], env };

    const added = set(text, value);
    expectMeaning(text, added, value);
    assert.equal(set(added, value), added, label);
    if (text.includes('\r\n')) assert.doesNotMatch(added.replace(/\r\n/g, ''), /\n/, `${label}\nbare LF in a CRLF file`);
    const removed = set(added, undefined);
    expectMeaning(text, removed, undefined);
    if (old === undefined) assert.deepEqual(nonBlankLines(removed), nonBlankLines(text), label);
  }
});
