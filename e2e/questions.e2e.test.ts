/**
 * Code that asks (input(), getpass.getpass(), the debugger's prompt) asks the person, over the
 * built command's stdio and real ipykernel: through the client's form where the client declares
 * form elicitation (an `elicitation/create` request in the handshake revisions, an input-required
 * result answered by a retry in 2026-07-28), else a clear EOFError once nobody can answer. The
 * panel's route is in panel-questions.e2e.test.ts. A getpass answer reaches no log, record or reply.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, call, createHarness, text, type Harness } from './support/mcp-harness.js';
import { RawClient } from './support/stateless-client.js';

const SECRET = 'pa55-w0rd-never-logged';

describe('questions the code asks, answered by the person through the client', () => {
  let harness: Harness;
  let client: Client;
  const asked: ElicitRequest['params'][] = [];
  /** The replies the person gives, in order. */
  let replies: ElicitResult[] = [];

  before(async () => {
    harness = await createHarness();
    client = await harness.connect('form-client', {
      forms: (params) => {
        asked.push(params);
        return replies.shift() ?? { action: 'cancel' };
      },
    });
  });

  after(async () => {
    await harness?.close();
  });

  test('input(): the form shows the prompt; the answer reaches the code and reads after its prompt', async () => {
    replies = [{ action: 'accept', content: { answer: 'Ada' } }];
    const result = await call(client, 'run_python', { code: 'print("before")\nname = input("Your name? ")\nprint("hello", name)' });
    assert.equal(result.isError, undefined, text(result));
    assert.equal(text(result), 'before\nYour name? Ada\nhello Ada\n');
    const form = asked.at(-1)!;
    assert.match(String(form.message), /asks: Your name\?/);
    assert.deepEqual((form as { requestedSchema: { required: string[] } }).requestedSchema.required, ['answer']);
  });

  test('the debugger prompt: each question is a form, in turn, in one call', async () => {
    await call(client, 'run_python', { code: 'def f(x):\n    return 1 / x' });
    await call(client, 'run_python', { code: 'f(0)' });
    const before = asked.length;
    replies = [{ action: 'accept', content: { answer: 'p x + 41' } }, { action: 'accept', content: { answer: 'q' } }];
    const result = await call(client, 'run_python', { code: '%debug' });
    assert.equal(asked.length - before, 2, 'two prompts, two forms');
    assert.match(String(asked.at(-1)!.message), /ipdb>/);
    assert.match(text(result), /^41$/m, text(result));
  });

  test('getpass: the answer reaches the code and nowhere else (reply, log, notebook)', async () => {
    replies = [{ action: 'accept', content: { answer: SECRET } }];
    const result = await call(client, 'run_python', { code: 'import getpass\npw = getpass.getpass("Password: ")\nprint(len(pw), pw[::-1] == pw[::-1])' });
    assert.equal(result.isError, undefined, text(result));
    assert.match(text(result), new RegExp(`Password: ·+\\n${SECRET.length} True`));
    assert.match(String(asked.at(-1)!.message), /not to the model, not to the session log/);
    const exported = join(harness.home, 'record.ipynb');
    await call(client, 'export_notebook', { path: exported });
    const sessionDir = join(harness.home, 'sessions', 'default');
    const onDisk = [readFileSync(join(sessionDir, 'log.jsonl'), 'utf8'), readFileSync(exported, 'utf8'), readFileSync(join(harness.home, 'daemon.log'), 'utf8')];
    const spilled = join(sessionDir, 'outputs');
    for (const file of existsSync(spilled) ? readdirSync(spilled) : []) onDisk.push(readFileSync(join(spilled, file), 'utf8'));
    for (const written of onDisk) assert.ok(!written.includes(SECRET), 'the password is written nowhere');
    assert.ok(!JSON.stringify(result).includes(SECRET));
  });

  test('declined: KeyboardInterrupt in the code, saying so; the session goes on with its variables', async () => {
    await call(client, 'run_python', { code: 'kept = 42' });
    replies = [{ action: 'decline' }];
    const result = await call(client, 'run_python', { code: 'answer = input("Delete everything? ")' });
    assert.equal(result.isError, true);
    assert.match(text(result), /KeyboardInterrupt.*declined in form-client's form \(by the person, or by the client where it shows none\): no answer to "Delete everything\? "/);
    assert.equal(text(await call(client, 'run_python', { code: 'kept' })), '42\n');
  });

  test('a client without forms and no panel: EOFError at once (not after the wait), saying why and what to do', async () => {
    const plain = await harness.connect('no-forms');
    // A wait longer than the test's: held for it, the call would come back still running.
    const result = await call(plain, 'run_python', { code: 'x = input("Name? ")', wait_s: 3600 }, { timeout: 60_000 });
    assert.equal(result.isError, true);
    assert.match(text(result), /EOFError.*"Name\? " got no answer: the client that ran this code cannot show the person a form, and no panel was open/);
    assert.equal(text(await call(plain, 'run_python', { code: '1 + 1' })), '2\n', 'the kernel was left unblocked');
  });
});

describe('questions in MCP 2026-07-28: an input-required result, answered by the retry', () => {
  let root: string;
  let env: Record<string, string>;
  let client: RawClient;
  const forms = { elicitation: { form: {} } };

  before(() => {
    root = mkdtempSync(join(tmpdir(), 'ps-questions-2026-'));
    const project = join(root, 'project');
    mkdirSync(project);
    env = {
      ...(Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== undefined)) as Record<string, string>),
      PYTHON_MCP_HOME: join(root, 'state'),
      PYTHON_MCP_INTERPRETER: process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3',
    };
    client = new RawClient(env, project);
  });

  after(async () => {
    await client?.close();
    const { spawn } = await import('node:child_process');
    await new Promise((resolve) => spawn(process.execPath, [CLI, 'stop'], { env, stdio: 'ignore' }).once('exit', resolve));
    rmSync(root, { recursive: true, force: true });
  });

  const textOf = (result: any) => (result.content as { type: string; text?: string }[]).filter((c) => c.type === 'text').map((c) => c.text).join('');

  test('the call ends input-required with one form; the retry carries the answer and the code runs once', async () => {
    const args = { name: 'run_python', arguments: { code: 'runs = globals().get("runs", 0) + 1\nname = input("Your name? ")\nprint("hello", name, runs)' } };
    const first = await client.stateless('tools/call', args, {}, forms);
    assert.equal(first.result.resultType, 'input_required', JSON.stringify(first.result));
    assert.equal(first.result.content, undefined, 'an input-required result is not a tool result');
    const request = first.result.inputRequests.answer;
    assert.equal(request.method, 'elicitation/create');
    assert.equal(request.params.mode, 'form');
    assert.match(request.params.message, /asks: Your name\?/);
    assert.equal(typeof first.result.requestState, 'string');
    const retry = await client.stateless('tools/call', { ...args, inputResponses: { answer: { action: 'accept', content: { answer: 'Grace' } } }, requestState: first.result.requestState }, {}, forms);
    assert.equal(retry.result.resultType, 'complete');
    assert.equal(textOf(retry.result), 'Your name? Grace\nhello Grace 1\n', 'the code ran once, and its whole output comes with the retry');
  });

  test('a declined form: the retry ends with KeyboardInterrupt; a requestState we never gave runs nothing', async () => {
    const args = { name: 'run_python', arguments: { code: 'input("Go on? ")' } };
    const first = await client.stateless('tools/call', args, {}, forms);
    const retry = await client.stateless('tools/call', { ...args, inputResponses: { answer: { action: 'decline' } }, requestState: first.result.requestState }, {}, forms);
    assert.equal(retry.result.isError, true);
    assert.match(textOf(retry.result), /KeyboardInterrupt/);
    const forged = await client.stateless('tools/call', { name: 'run_python', arguments: { code: 'ran_forged = True' }, inputResponses: {}, requestState: 'not-ours' }, {}, forms);
    assert.equal(forged.result.isError, true);
    assert.match(textOf(forged.result), /nothing was run/);
    const check = await client.stateless('tools/call', { name: 'run_python', arguments: { code: '"ran_forged" in globals()' } });
    assert.equal(textOf(check.result), 'False\n');
  });

  test('a client that declares no forms gets the EOFError, never an input-required result', async () => {
    const answer = await client.stateless('tools/call', { name: 'run_python', arguments: { code: 'input("Name? ")' } });
    assert.equal(answer.result.resultType, 'complete');
    assert.match(textOf(answer.result), /EOFError/);
  });
});

describe('questions in the built-in worker (an interpreter without ipykernel)', () => {
  let harness: Harness;
  let client: Client;
  let replies: ElicitResult[] = [];

  before(async () => {
    harness = await createHarness({ PYTHON_MCP_ENGINE: 'worker' });
    client = await harness.connect('form-client', { forms: () => replies.shift() ?? { action: 'cancel' } });
  });

  after(async () => {
    await harness?.close();
  });

  test('input() and getpass ask through the form; declining raises KeyboardInterrupt; without forms, EOFError', async () => {
    const status = await call(client, 'python_status');
    assert.match(text(status), /worker/i, 'the session runs in the built-in worker');
    replies = [{ action: 'accept', content: { answer: 'Ada' } }, { action: 'accept', content: { answer: SECRET } }];
    const answered = await call(client, 'run_python', { code: 'print("before")\nname = input("Your name? ")\nimport getpass\npw = getpass.getpass("Password: ")\nprint(name, len(pw))' });
    assert.equal(text(answered), `before\nYour name? Ada\nPassword: ········\nAda ${SECRET.length}\n`);
    replies = [{ action: 'decline' }];
    const declined = await call(client, 'run_python', { code: 'input("Sure? ")' });
    assert.match(text(declined), /KeyboardInterrupt.*declined in form-client's form/);
    const plain = await harness.connect('no-forms');
    const refused = await call(plain, 'run_python', { code: 'input("Name? ")' });
    assert.match(text(refused), /EOFError.*"Name\? " got no answer/);
    assert.equal(text(await call(plain, 'run_python', { code: 'name' })), "'Ada'\n");
    assert.ok(!readFileSync(join(harness.home, 'sessions', 'default', 'log.jsonl'), 'utf8').includes(SECRET));
  });
});
