/**
 * The real Claude Code binary against the built command: what its model reads from every tool,
 * errors and images included, and which tools its ToolSearch finds for plain words. One scripted
 * conversation walks the whole contract (a client run costs seconds).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { claudeBinary, missingClient } from './client-binaries.js';
import { runClaude, SERVER_NAME } from './claude-run.js';
import { CONTRACT_TOOLS } from './contract-walk.js';
import { readImages, readText } from './model-script.js';
import { removeFolders, type ClientRun } from './scripted-run.js';
import { planWalk, walkTests } from './walk-suite.js';
import { spokenRevision } from './wire-revision.js';

describe('Claude Code: what the model reads from Python Session', { skip: missingClient('claude') }, () => {
  // The searches load some schemas; this loads the rest, as a model does before calling a tool it
  // knows by name (a call to an unloaded deferred tool still runs, but its error gets a hint appended).
  const selectAll = { search: `select:${CONTRACT_TOOLS.map((t) => `mcp__${SERVER_NAME}__${t}`).join(',')}` };
  const plan = planWalk('ps-claude-', [selectAll]);
  let run: ClientRun;
  before(async () => {
    run = await runClaude(plan.folders, plan.script, CONTRACT_TOOLS);
  }, { timeout: 180_000 });
  after(() => removeFolders(plan.folders));

  test('the binary under test', (t) => t.diagnostic(claudeBinary()!.describe));

  walkTests(plan, () => run, 'ToolSearch');

  describe('which MCP revision Claude Code speaks (its stdin, teed)', () => {
    test('2026-07-28: server/discover first, answered; no initialize and no Method not found on the way', (t) => {
      const spoken = spokenRevision(run.wire);
      t.diagnostic(`methods: ${spoken.methods.join(', ')}; declared versions: ${JSON.stringify(spoken.declared)}`);
      assert.equal(spoken.first, 'server/discover');
      const discover = run.wire.find((l) => l.from === 'server' && l.message.result?.supportedVersions);
      assert.ok(discover, 'server/discover was answered with a DiscoverResult');
      assert.deepEqual(spoken.methodNotFound, []);
      assert.equal(spoken.initialize, undefined, 'no fallback to the initialize handshake');
    });

    test('every request it sent declared 2026-07-28 in its _meta, and every result said resultType complete', () => {
      const spoken = spokenRevision(run.wire);
      assert.deepEqual(Object.keys(spoken.declared), ['2026-07-28']);
      const results = run.wire.filter((l) => l.from === 'server' && l.message.result !== undefined);
      assert.ok(results.length > 10);
      assert.deepEqual(results.filter((l) => l.message.result?.resultType !== 'complete'), []);
    });
  });

  // What Claude Code does with a result, as facts: each fails when a new version changes it.
  describe('how Claude Code hands a result to its model', () => {
    test('content-only text reaches the model as the tool gave it, with no error flag', () => {
      const printed = plan.resultOf(run, 'printed');
      assert.deepEqual(printed.blocks, [{ type: 'text', text: 'PRINTED-MARKER\n42\n' }]);
      assert.equal(printed.isError, undefined);
    });

    test('isError reaches the model as the tool_result is_error flag', () => {
      assert.equal(plan.resultOf(run, 'error').isError, true);
    });

    test('an image stays an image block, and Claude Code adds a text naming where it saved a copy', () => {
      const plot = plan.resultOf(run, 'plot');
      const imageAt = plot.blocks.findIndex((b) => b.type === 'image');
      assert.equal(readImages(plot).length, 1);
      const next = plot.blocks[imageAt + 1];
      assert.ok(next?.type === 'text' && /^\[Image: source: .*\.png\]$/.test(next.text), JSON.stringify(next));
    });

    test('with structuredContent the model reads JSON.stringify(structuredContent) in place of the text blocks', () => {
      const value = plan.resultOf(run, 'value');
      assert.equal(value.blocks.length, 1);
      const json = JSON.parse(readText(value));
      assert.deepEqual(json.value, { mean: 2.5, names: ['a', 'b'] });
      const ols = JSON.parse(readText(plan.resultOf(run, 'ols')));
      assert.equal(ols.nobs, 8, 'ols too: the JSON, not the table');
    });
  });
});
