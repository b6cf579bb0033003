/**
 * The real Codex binary, in both revisions it speaks: code the model runs asks a question
 * (input()). Codex declares form elicitation, and in its non-interactive mode (`codex exec`) it
 * declines every form itself: as an `elicitation/create` answered "decline" over the handshake,
 * and as a retry of the input-required call carrying a decline in 2026-07-28. Either way the
 * code gets KeyboardInterrupt at once, naming Codex, the model reads it, and the session goes on.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { codexBinary, missingClient } from './client-binaries.js';
import { CODEX_2026_FEATURE, runCodex, type CodexRevision } from './codex-run.js';
import { readText, type Step } from './model-script.js';
import { makeFolders, removeFolders, type ClientRun } from './scripted-run.js';
import { spokenRevision } from './wire-revision.js';

const SCRIPT: Step[] = [
  { search: 'run python code' },
  { call: 'run_python', args: { code: 'kept = 7\nname = input("Your name? ")' } },
  { call: 'run_python', args: { code: 'kept * 6' } },
  { say: 'Done.' },
];

for (const revision of ['handshake', '2026-07-28'] as CodexRevision[]) {
  const title = revision === 'handshake' ? 'as users get it' : `with --enable ${CODEX_2026_FEATURE}`;
  describe(`Codex ${title}: a question in the model's code is declined by codex exec, and the session goes on`, { skip: missingClient('codex') }, () => {
    const folders = makeFolders('ps-codex-questions-');
    let run: ClientRun;
    before(async () => {
      run = await runCodex(folders, SCRIPT, revision);
    }, { timeout: 240_000 });
    after(() => removeFolders(folders));

    test('the binary under test', (t) => t.diagnostic(codexBinary()!.describe));

    test('the question went as a form, the way this revision asks', (t) => {
      const spoken = spokenRevision(run.wire);
      if (revision === '2026-07-28' && spoken.first !== 'server/discover') return t.skip(`Codex did not speak 2026-07-28 (it opened with ${spoken.first ?? 'nothing'})`);
      if (revision === 'handshake') {
        const init = run.wire.find((l) => l.from === 'client' && l.message.method === 'initialize');
        assert.ok(init?.message.params?.capabilities?.elicitation?.form, 'Codex declares form elicitation');
        const asked = run.wire.find((l) => l.from === 'server' && l.message.method === 'elicitation/create');
        assert.ok(asked, 'an elicitation/create request inside the call');
        const answer = run.wire.find((l) => l.from === 'client' && l.message.id === asked.message.id && l.message.result);
        assert.equal(answer?.message.result?.action, 'decline');
      } else {
        assert.ok(run.wire.some((l) => l.from === 'server' && l.message.result?.resultType === 'input_required'));
        const retry = run.wire.find((l) => l.from === 'client' && l.message.params?.requestState !== undefined);
        assert.equal(retry?.message.params?.inputResponses?.answer?.action, 'decline');
      }
    });

    test('the model reads KeyboardInterrupt naming Codex, and the next call finds the session as it was', () => {
      assert.match(readText(run.result(1)), /KeyboardInterrupt on line 2: declined in codex-mcp-client's form \(by the person, or by the client where it shows none\): no answer to "Your name\? "/);
      assert.match(readText(run.result(2)), /\n42\n?$/);
    });

    test('the conversation ran to its end and left no process behind', () => {
      assert.deepEqual(run.exit && { code: run.exit.code, timedOut: run.exit.timedOut }, { code: 0, timedOut: false }, run.stderr.slice(-2000));
      assert.deepEqual(run.leftovers, []);
    });
  });
}
