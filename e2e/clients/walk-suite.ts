/**
 * The tests every client gets: the tool searches and the contract walk, run as one scripted
 * conversation, each step asserted on what the client handed the model.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contractWalk, expectReading, prepareProject, type WalkStep } from './contract-walk.js';
import type { ForwardedResult, RecordLine, Step } from './model-script.js';
import { makeFolders, type ClientRun, type RunFolders } from './scripted-run.js';
import { SEARCHES, searchFound } from './tool-searches.js';

export interface WalkPlan {
  folders: RunFolders;
  walk: WalkStep[];
  script: Step[];
  /** Where the walk starts in the script. */
  walkAt: number;
  /** The result of the walk step with this id. */
  resultOf(run: ClientRun, id: NonNullable<WalkStep['id']>): ForwardedResult;
}

/** The searches, then `beforeWalk` (a client's own steps), then the walk, in a fresh project folder. */
export function planWalk(prefix: string, beforeWalk: Step[] = []): WalkPlan {
  const folders = makeFolders(prefix);
  prepareProject(folders.project);
  const walk = contractWalk(folders.project);
  const walkAt = SEARCHES.length + beforeWalk.length;
  const script: Step[] = [...SEARCHES.map((s) => ({ search: s.query })), ...beforeWalk, ...walk.map((w) => w.step), { say: 'Done.' }];
  return {
    folders,
    walk,
    script,
    walkAt,
    resultOf: (run, id) => run.result(walkAt + walk.findIndex((w) => w.id === id)),
  };
}

/** `skipped`: why this run's results do not count (the test says so and is skipped, not passed). */
export function walkTests(plan: WalkPlan, run: () => ClientRun, searchTool: string, skipped: () => string | undefined = () => undefined): void {
  test('the conversation ran to its end and left no process behind', (t) => {
    const reason = skipped();
    if (reason) return t.skip(reason);
    const { exit, leftovers, isolated } = run();
    t.diagnostic(isolated ? 'ran in a network namespace with loopback only' : 'not in a network namespace of its own (unshare -rn unavailable, or PYTHON_SESSION_NO_NETNS set): ran in the host one');
    assert.deepEqual(exit && { code: exit.code, timedOut: exit.timedOut }, { code: 0, timedOut: false }, run().stderr.slice(-2000));
    assert.deepEqual(leftovers, [], 'daemon, kernels and their children all ended');
  });

  for (const [index, search] of SEARCHES.entries()) {
    test(`${searchTool} "${search.query}" finds ${search.finds.join(' or ')}`, (t) => {
      const reason = skipped();
      if (reason) return t.skip(reason);
      const found = searchFound(run().result(index));
      // A tool the client never hid (Claude Code keeps tools marked anthropic/alwaysLoad in the
      // prompt) needs no search: the model has it from the first request.
      const first = run().lines.find((l): l is Extract<RecordLine, { kind: 'request' }> => l.kind === 'request' && l.role === 'main');
      const loaded = first?.loaded ?? [];
      t.diagnostic(`${searchTool} "${search.query}" returned, in order: ${found.join(', ') || 'nothing'}${loaded.length ? `; loaded without a search: ${loaded.join(', ')}` : ''}`);
      assert.ok(
        search.finds.some((name) => found.includes(name) || loaded.includes(name)),
        `"${search.query}" should find ${search.finds.join(' or ')}; it returned: ${found.join(', ') || 'nothing'}`,
      );
    });
  }

  for (const [index, step] of plan.walk.entries()) {
    test(step.label, (t) => {
      const reason = skipped();
      if (reason) return t.skip(reason);
      expectReading(step, run().result(plan.walkAt + index), plan.folders.project);
    });
  }
}
