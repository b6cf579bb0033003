/**
 * The real Codex binary against the built command: what its model reads from every tool, errors
 * and images included, and which tools its tool_search finds for plain words. One scripted
 * conversation walks the whole contract (a client run costs seconds).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { codexBinary, missingClient } from './client-binaries.js';
import { runCodex } from './codex-run.js';
import { readImages, readText } from './model-script.js';
import { removeFolders, type ClientRun } from './scripted-run.js';
import { planWalk, walkTests } from './walk-suite.js';

/** Codex puts this before every MCP result it hands its model. */
const WALL_TIME = /^Wall time: \d+(\.\d+)? seconds\nOutput:/;

describe('Codex: what the model reads from Python Session', { skip: missingClient('codex') }, () => {
  const plan = planWalk('ps-codex-');
  let run: ClientRun;
  before(async () => {
    run = await runCodex(plan.folders, plan.script);
  }, { timeout: 180_000 });
  after(() => removeFolders(plan.folders));

  test('the binary under test', (t) => t.diagnostic(codexBinary()!.describe));

  walkTests(plan, () => run, 'tool_search');

  // What Codex does with a result, as facts: each fails when a new version changes it.
  describe('how Codex hands a result to its model', () => {
    test('content-only results become a list of input_text / input_image items after a "Wall time" line', () => {
      const printed = plan.resultOf(run, 'printed');
      assert.ok(Array.isArray((printed.raw as { output: unknown }).output));
      assert.equal(printed.blocks.length, 2);
      assert.match(readText(printed), new RegExp(`${WALL_TIME.source}\\nPRINTED-MARKER\\n42\\n$`));
      const plot = plan.resultOf(run, 'plot');
      assert.equal(readImages(plot).length, 1, 'the image reaches the model as input_image');
    });

    test('isError reaches the model nowhere: only the text says it failed', () => {
      const error = plan.resultOf(run, 'error');
      assert.equal(error.isError, undefined);
      assert.deepEqual(Object.keys(error.raw as object).sort(), ['call_id', 'id', 'output', 'type']);
      assert.match(readText(error), /Python error: NameError/);
    });

    test('with structuredContent the model reads only its JSON, in one string: text and images dropped', () => {
      const value = plan.resultOf(run, 'value');
      const output = (value.raw as { output: unknown }).output;
      assert.equal(typeof output, 'string');
      assert.match(output as string, WALL_TIME);
      assert.deepEqual(JSON.parse((output as string).replace(WALL_TIME, '')).value, { mean: 2.5, names: ['a', 'b'] });
    });

    test('the server\'s tools live in the namespace mcp__python_session (the hyphen becomes an underscore)', () => {
      const search = run.result(0);
      const namespaces = new Set(search.blocks.flatMap((b) => (b.type === 'tools' ? b.tools.map((t) => t.namespace) : [])));
      assert.ok(namespaces.has('mcp__python_session'), [...namespaces].join(', '));
    });
  });
});
