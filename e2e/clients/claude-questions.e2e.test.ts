/**
 * The real Claude Code binary: code the model runs asks the person (input(), getpass), and the
 * person's answer comes back through Claude Code's form. Claude Code speaks 2026-07-28 to us, so
 * the call ends with an input-required result and Claude Code calls the tool again with the
 * answer. In its non-interactive mode (`-p`) a form is answered by an Elicitation hook, the way a
 * script answers for a person (without one it cancels); here the hook is the person, answering
 * from what the form says. A getpass answer reaches the code and never the model.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { claudeBinary, missingClient } from './client-binaries.js';
import { runClaude, SERVER_NAME } from './claude-run.js';
import { readText, type Step } from './model-script.js';
import { makeFolders, removeFolders, type ClientRun } from './scripted-run.js';

const SECRET = 'hunter2-never-to-the-model';

/** The person, as an Elicitation hook: reads the form from stdin, keeps it, and answers it. */
const PERSON = (seen: string) => `
const fs = require('node:fs');
const form = JSON.parse(fs.readFileSync(0, 'utf8'));
fs.appendFileSync(${JSON.stringify(seen)}, JSON.stringify(form) + '\\n');
const reply = /Password/.test(form.message) ? { action: 'accept', content: { answer: ${JSON.stringify(SECRET)} } }
  : /Delete/.test(form.message) ? { action: 'decline' }
  : { action: 'accept', content: { answer: 'Ada' } };
process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'Elicitation', ...reply } }));
`;

const SCRIPT: Step[] = [
  { search: `select:mcp__${SERVER_NAME}__run_python` },
  { call: 'run_python', args: { code: 'name = input("Your name? ")\nprint("hello", name)' } },
  { call: 'run_python', args: { code: 'import getpass\npw = getpass.getpass("Password: ")\nprint("length", len(pw))' } },
  { call: 'run_python', args: { code: 'sure = input("Delete everything? ")' } },
  { call: 'run_python', args: { code: 'print(name, len(pw))' } },
  { say: 'Done.' },
];

describe('Claude Code: input() in the model’s code is answered by the person through Claude Code', { skip: missingClient('claude') }, () => {
  const folders = makeFolders('ps-claude-questions-');
  const seen = join(folders.root, 'forms.jsonl');
  let run: ClientRun;
  before(async () => {
    const hook = join(folders.root, 'person.cjs');
    writeFileSync(hook, PERSON(seen));
    appendFileSync(seen, '');
    const settings = { hooks: { Elicitation: [{ matcher: SERVER_NAME, hooks: [{ type: 'command', command: `${JSON.stringify(process.execPath)} ${JSON.stringify(hook)}` }] }] } };
    run = await runClaude(folders, SCRIPT, ['run_python'], { settings });
  }, { timeout: 240_000 });
  after(() => removeFolders(folders));

  test('the binary under test', (t) => t.diagnostic(claudeBinary()!.describe));

  test('the form showed the prompt, and the model read the answer after it', () => {
    const forms = readFileSync(seen, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.equal(forms.length, 3, JSON.stringify(forms));
    assert.equal(forms[0].mcp_server_name, SERVER_NAME);
    assert.match(forms[0].message, /asks: Your name\?/);
    assert.deepEqual(forms[0].requested_schema.required, ['answer']);
    assert.equal(readText(run.result(1)), 'Your name? Ada\nhello Ada\n');
  });

  test('it went as an input-required result and a retry carrying the answer, with no second run of the code', () => {
    const asked = run.wire.filter((l) => l.from === 'server' && l.message.result?.resultType === 'input_required');
    assert.equal(asked.length, 3);
    const retries = run.wire.filter((l) => l.from === 'client' && l.message.params?.requestState !== undefined);
    assert.equal(retries.length, 3);
    assert.deepEqual(retries[0].message.params?.inputResponses?.answer, { action: 'accept', content: { answer: 'Ada' } });
    const log = readFileSync(join(folders.state, 'sessions', 'default', 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(log.filter((e) => typeof e.code === 'string' && e.code.includes('Your name?')).length, 1, 'the code ran once');
  });

  test('a getpass answer reaches the code, not the model, the log or the record', () => {
    const read = readText(run.result(2));
    assert.match(read, /^Password: ·+\nlength 26\n$/);
    for (const result of run.results) assert.ok(!JSON.stringify(result.raw).includes(SECRET));
    assert.ok(!readFileSync(join(folders.state, 'sessions', 'default', 'log.jsonl'), 'utf8').includes(SECRET));
    assert.equal(readText(run.result(4)), 'Ada 26\n', 'the session kept both answers');
  });

  test('declined in the form: the model reads KeyboardInterrupt and the session goes on', () => {
    const declined = run.result(3);
    assert.equal(declined.isError, true);
    assert.match(readText(declined), /KeyboardInterrupt.*declined.*"Delete everything\? "/);
  });

  test('the conversation ran to its end and left no process behind', () => {
    assert.deepEqual(run.exit && { code: run.exit.code, timedOut: run.exit.timedOut }, { code: 0, timedOut: false }, run.stderr.slice(-2000));
    assert.deepEqual(run.leftovers, []);
  });
});
