/**
 * The real Claude Code binary: when the person runs a cell in a session the model works in, with
 * their own Jupyter client (Python's jupyter_client, attached by the kernel's connection file) or
 * in the console of the control panel, the next tool result the model reads from that session
 * opens with the line that says so, and the one after it does not.
 *
 * The scripted model keeps two sessions: one holds its DataFrame; a cell in the other does what
 * the person would and waits until it is done, so the person's cell runs in the first (idle)
 * while nothing of the model's runs there. That cell runs in the client's network namespace,
 * where the daemon's kernels and its panel's loopback address are.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { claudeBinary, missingClient } from './client-binaries.js';
import { runClaude, SERVER_NAME } from './claude-run.js';
import { readText, type ForwardedResult, type Step } from './model-script.js';
import { makeFolders, removeFolders, type ClientRun } from './scripted-run.js';

/** A Python string literal of `text` (JSON's escapes are Python's for this text). */
const py = (text: string) => JSON.stringify(text);

const OTHER_CLIENT = [
  'import sys',
  'from jupyter_client import BlockingKernelClient',
  'client = BlockingKernelClient(connection_file=sys.argv[1])',
  'client.load_connection_file()',
  'client.start_channels()',
  'client.wait_for_ready(timeout=30)',
  "client.execute_interactive(sys.argv[2], output_hook=lambda m: m['msg_type'] == 'stream' and sys.stdout.write(m['content']['text']), timeout=60)",
  'client.stop_channels()',
].join('\n');

const PERSON_CELL = 'print(df)\ndf2 = df.assign(double=df.sales * 2)';

const SCRIPT: Step[] = [
  { search: `select:mcp__${SERVER_NAME}__run_python,mcp__${SERVER_NAME}__start_kernel` },
  { call: 'start_kernel', args: { session: 'person' } },
  {
    call: 'run_python',
    args: {
      session: 'person',
      code: "import pandas as pd\nfrom ipykernel import get_connection_file\ndf = pd.DataFrame({'city': ['Oslo', 'Lima'], 'sales': [12, 30]})\nopen('person-kernel.txt', 'w').write(get_connection_file())",
    },
  },
  {
    call: 'run_python',
    args: {
      code: `import subprocess, sys\nran = subprocess.run([sys.executable, '-c', ${py(OTHER_CLIENT)}, open('person-kernel.txt').read(), ${py(PERSON_CELL)}], capture_output=True, text=True, timeout=90)\nprint(ran.stdout, ran.stderr)`,
    },
  },
  { call: 'run_python', args: { session: 'person', code: 'len(df2)' } },
  { call: 'run_python', args: { session: 'person', code: '1 + 1' } },
  { say: 'Done.' },
];

describe('Claude Code: the model is told of another Jupyter client’s cell', { skip: missingClient('claude') }, () => {
  const folders = makeFolders('ps-claude-told-');
  let run: ClientRun;
  before(async () => {
    run = await runClaude(folders, SCRIPT, ['run_python', 'start_kernel']);
  }, { timeout: 240_000 });
  after(() => removeFolders(folders));

  test('the binary under test', (t) => t.diagnostic(claudeBinary()!.describe));

  test('the attached client read the DataFrame the model built', () => {
    assert.match(readText(run.result(3)), /Oslo\s+12/);
  });

  test('the next result from that session opens with the line, and only the next', () => {
    const told = readText(run.result(4));
    assert.match(told, /^Since your last call, another Jupyter client ran 1 cell \(In \[2\]\); new or changed: df2\.\n/, told);
    assert.match(told, /\b2\b/);
    const after = readText(run.result(5));
    assert.ok(!after.includes('Since your last call'), after);
  });

  test('the conversation ran to its end and left no process behind', () => {
    assert.deepEqual(run.exit && { code: run.exit.code, timedOut: run.exit.timedOut }, { code: 0, timedOut: false }, run.stderr.slice(-2000));
    assert.deepEqual(run.leftovers, []);
  });
});

/**
 * The panel's console, as its page does it (the token in the panel's cookie, the page's Origin
 * and Sec-Fetch-Site, a JSON body): the panel's event stream is opened first, then the cell is
 * posted, then the stream is read until the cell's log entry is announced. Prints what the panel
 * answered and the entry after PANEL_RUN.
 */
const PANEL_CONSOLE = (code: string) =>
  [
    'import http.client, json, os',
    "state = os.environ['PYTHON_MCP_HOME']",
    "port = json.load(open(os.path.join(state, 'panel.json')))['port']",
    "token = open(os.path.join(state, 'panel-token')).read().strip()",
    "page = {'Cookie': f'python-session-panel-{port}={token}', 'Origin': f'http://127.0.0.1:{port}', 'Sec-Fetch-Site': 'same-origin'}",
    "events = http.client.HTTPConnection('127.0.0.1', port, timeout=60)",
    "events.request('GET', '/api/events', headers={**page, 'Accept': 'text/event-stream'})",
    'stream = events.getresponse()',
    'def next_event():',
    '    name, data = None, None',
    '    while True:',
    '        raw = stream.readline()',
    "        if not raw: raise RuntimeError('the panel closed its event stream')",
    "        line = raw.decode().rstrip('\\n')",
    "        if line.startswith('event: '): name = line[7:]",
    "        elif line.startswith('data: '): data = json.loads(line[6:])",
    '        elif line == \'\' and name: return name, data',
    "while next_event()[0] != 'snapshot': pass",
    "post = http.client.HTTPConnection('127.0.0.1', port, timeout=60)",
    `post.request('POST', '/api/sessions/default/run', body=json.dumps({'code': ${py(code)}}), headers={**page, 'Content-Type': 'application/json'})`,
    'answer = post.getresponse()',
    'answered = {"status": answer.status, "body": json.loads(answer.read())}',
    'assert answer.status == 200, answered',
    'while True:',
    '    name, data = next_event()',
    "    if name == 'logged' and data['session'] == 'default' and data['entry']['client'] == 'panel': break",
    "entry = {k: data['entry'][k] for k in ('client', 'code', 'status', 'executionCount')}",
    "print('PANEL_RUN', json.dumps({'answered': answered, 'entry': entry}))",
  ].join('\n');

const PANEL_CELL = 'df2 = df * 2';

const PANEL_SCRIPT: Step[] = [
  { search: `select:mcp__${SERVER_NAME}__run_python,mcp__${SERVER_NAME}__start_kernel` },
  { call: 'run_python', args: { code: "import pandas as pd\ndf = pd.DataFrame({'sales': [12, 30], 'cost': [5, 9]})" } },
  { call: 'start_kernel', args: { session: 'desk' } },
  { call: 'run_python', args: { session: 'desk', code: PANEL_CONSOLE(PANEL_CELL) } },
  { call: 'run_python', args: { code: 'len(df2)' } },
  { call: 'run_python', args: { code: '1 + 1' } },
  { say: 'Done.' },
];

interface PanelRun {
  answered: { status: number; body: { run?: string; queuedBehind?: string | null } };
  entry: { client: string; code: string; status: string; executionCount: number | null };
}

function panelRun(result: ForwardedResult): PanelRun {
  const text = readText(result);
  const printed = /PANEL_RUN (\{.*\})/.exec(text);
  assert.ok(printed, text);
  return JSON.parse(printed[1]) as PanelRun;
}

describe('Claude Code: the model is told of the person’s cell in the panel’s console', { skip: missingClient('claude') }, () => {
  const folders = makeFolders('ps-claude-told-panel-');
  let run: ClientRun;
  before(async () => {
    run = await runClaude(folders, PANEL_SCRIPT, ['run_python', 'start_kernel']);
  }, { timeout: 240_000 });
  after(() => removeFolders(folders));

  test('the panel took the cell and logged it as the person’s', () => {
    const { answered, entry } = panelRun(run.result(3));
    assert.equal(answered.status, 200, JSON.stringify(answered));
    assert.equal(typeof answered.body.run, 'string', JSON.stringify(answered));
    assert.deepEqual({ client: entry.client, code: entry.code, status: entry.status }, { client: 'panel', code: PANEL_CELL, status: 'ok' });
    assert.ok(Number.isInteger(entry.executionCount), JSON.stringify(entry));
    const logged = readFileSync(join(folders.state, 'sessions', 'default', 'log.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { client: string; code: string; executionCount: number | null });
    assert.deepEqual(
      logged.filter((e) => e.client === 'panel').map((e) => ({ code: e.code, executionCount: e.executionCount })),
      [{ code: PANEL_CELL, executionCount: entry.executionCount }],
    );
  });

  test('the next result from that session opens with the line, and only the next', () => {
    const { entry } = panelRun(run.result(3));
    const told = readText(run.result(4));
    assert.ok(told.startsWith(`Since your last call, the person ran 1 cell (In [${entry.executionCount}]); new or changed: df2.\n`), told);
    assert.match(told, /\b2\b/);
    const after = readText(run.result(5));
    assert.ok(!after.includes('Since your last call'), after);
  });

  test('the conversation ran to its end and left no process behind', () => {
    assert.deepEqual(run.exit && { code: run.exit.code, timedOut: run.exit.timedOut }, { code: 0, timedOut: false }, run.stderr.slice(-2000));
    assert.deepEqual(run.leftovers, []);
  });
});
