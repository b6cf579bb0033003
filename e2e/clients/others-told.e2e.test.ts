/**
 * The real Claude Code binary: when the person's own Jupyter client (Python's jupyter_client,
 * attached by the kernel's connection file) runs a cell in a session the model works in, the next
 * tool result the model reads from that session opens with the line that says so, and the one
 * after it does not.
 *
 * The scripted model keeps two sessions: "person" holds its DataFrame; a cell in "default" starts
 * the jupyter_client and waits for it, so the other client's cell runs in "person" (idle) while
 * nothing of the model's runs there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { claudeBinary, missingClient } from './client-binaries.js';
import { runClaude, SERVER_NAME } from './claude-run.js';
import { readText, type Step } from './model-script.js';
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
