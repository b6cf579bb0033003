/**
 * The real Codex binary against the built command: what its model reads from every tool, errors
 * and images included, and which tools its tool_search finds for plain words. One scripted
 * conversation walks the whole contract (a client run costs seconds), twice: as users get Codex
 * (the initialize handshake) and with its MCP 2026-07-28 support switched on. Each run is a new
 * user's first: `register codex`'s entry, a state folder where no daemon has ever run, and every
 * tool found on the first turn.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { codexBinary, missingClient } from './client-binaries.js';
import { CODEX_2026_FEATURE, codex2026Refusal, runCodex, type CodexRevision } from './codex-run.js';
import { readImages, readText } from './model-script.js';
import { removeFolders, type ClientRun } from './scripted-run.js';
import { planWalk, walkTests } from './walk-suite.js';
import { spokenRevision } from './wire-revision.js';

/** Codex puts this before every MCP result it hands its model. */
const WALL_TIME = /^Wall time: \d+(\.\d+)? seconds\nOutput:/;

function codexSuite(revision: CodexRevision, skip: string | false): void {
  const title = revision === 'handshake' ? 'as users get it (initialize handshake)' : `with --enable ${CODEX_2026_FEATURE} (MCP 2026-07-28)`;
  describe(`Codex ${title}: what the model reads from Python Session`, { skip }, () => {
    const plan = planWalk(`ps-codex-${revision === 'handshake' ? 'hs' : '2026'}-`);
    let run: ClientRun;
    /** Why the run cannot count as a 2026-07-28 run: Codex did not speak it despite the flag. */
    let refused: string | undefined;
    before(async () => {
      run = await runCodex(plan.folders, plan.script, revision);
      const spoken = spokenRevision(run.wire);
      if (revision === '2026-07-28' && spoken.first !== 'server/discover') {
        refused = `Codex with --enable ${CODEX_2026_FEATURE} still opened with ${spoken.first ?? 'nothing'} (initialize asked for ${spoken.initialize ?? 'nothing'}): it did not speak 2026-07-28, so nothing here tests that revision`;
      }
    }, { timeout: 240_000 });
    after(() => removeFolders(plan.folders));

    test('the binary under test', (t) => t.diagnostic(codexBinary()!.describe));

    test(`the revision Codex spoke (its stdin, teed): ${revision}`, (t) => {
      const spoken = spokenRevision(run.wire);
      t.diagnostic(`first ${spoken.first}; methods: ${spoken.methods.join(', ')}; declared versions: ${JSON.stringify(spoken.declared)}`);
      if (refused) return t.skip(refused);
      assert.deepEqual(spoken.methodNotFound, [], 'no Method not found on the way');
      if (revision === 'handshake') {
        assert.equal(spoken.first, 'initialize');
        assert.deepEqual(Object.keys(spoken.declared), ['none'], 'no request declared a version in _meta');
      } else {
        assert.equal(spoken.initialize, undefined, 'no initialize');
        assert.deepEqual(Object.keys(spoken.declared), ['2026-07-28']);
      }
    });

    walkTests(plan, () => run, 'tool_search', () => refused);

    // What Codex does with a result, as facts: each fails when a new version changes it.
    describe('how Codex hands a result to its model', () => {
      test('content-only results become a list of input_text / input_image items after a "Wall time" line', (t) => {
        if (refused) return t.skip(refused);
        const printed = plan.resultOf(run, 'printed');
        assert.ok(Array.isArray((printed.raw as { output: unknown }).output));
        assert.equal(printed.blocks.length, 2);
        assert.match(readText(printed), new RegExp(`${WALL_TIME.source}\\nPRINTED-MARKER\\n42\\n$`));
        const plot = plan.resultOf(run, 'plot');
        assert.equal(readImages(plot).length, 1, 'the image reaches the model as input_image');
      });

      test('isError reaches the model nowhere: only the text says it failed', (t) => {
        if (refused) return t.skip(refused);
        const error = plan.resultOf(run, 'error');
        assert.equal(error.isError, undefined);
        assert.deepEqual(Object.keys(error.raw as object).sort(), ['call_id', 'id', 'output', 'type']);
        assert.match(readText(error), /Python error: NameError/);
      });

      test('with structuredContent the model reads only its JSON, in one string: text and images dropped', (t) => {
        if (refused) return t.skip(refused);
        const value = plan.resultOf(run, 'value');
        const output = (value.raw as { output: unknown }).output;
        assert.equal(typeof output, 'string');
        assert.match(output as string, WALL_TIME);
        assert.deepEqual(JSON.parse((output as string).replace(WALL_TIME, '')).value, { mean: 2.5, names: ['a', 'b'] });
      });

      test('the server\'s tools live in the namespace mcp__python_session (the hyphen becomes an underscore)', (t) => {
        if (refused) return t.skip(refused);
        const search = run.result(0);
        const namespaces = new Set(search.blocks.flatMap((b) => (b.type === 'tools' ? b.tools.map((t) => t.namespace) : [])));
        assert.ok(namespaces.has('mcp__python_session'), [...namespaces].join(', '));
      });
    });
  });
}

const missing = missingClient('codex');
codexSuite('handshake', missing);
codexSuite('2026-07-28', missing || codex2026Refusal());
