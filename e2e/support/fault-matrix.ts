/**
 * The faults every engine must survive the same way, through a real MCP client: a process that
 * dies by itself, one stopped from outside (only the heartbeat can tell), and a blocking C call
 * that ignores SIGINT (a timeout escalates to a restart). faults.e2e.test.ts runs them on
 * ipykernel, worker-faults.e2e.test.ts on the built-in worker; each passes what its engine's
 * account says and any checks of its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from '../../app/core/testing/wait-for.js';
import type { CallResult } from './mcp-harness.js';
import { text } from './mcp-harness.js';
import { running } from './proc.js';

export interface FaultTarget {
  /** "kernel" or "worker": how the tests' names speak of the process. */
  noun: string;
  run: (code: string, extra?: Record<string, unknown>) => Promise<CallResult>;
  pid: () => Promise<number>;
  busy: () => Promise<unknown>;
}

export interface Killer {
  what: string;
  code: string;
  says: RegExp;
}

/** Each killer ends the process; the reply says how and what went with it, and the next call works. */
export function processDeathTests(target: FaultTarget, killers: Killer[], more?: (died: CallResult, killer: Killer, name: string) => void): void {
  for (const [i, killer] of killers.entries()) {
    test(`${killer.what}: the call says how the ${target.noun} died and what was lost; the next call runs in a fresh one`, { timeout: 60_000 }, async () => {
      const name = `precious_${i}`;
      await target.run(`${name} = [1, 2, 3]`);
      const pid = await target.pid();
      const died = await target.run(killer.code);
      assert.equal(died.isError, true);
      assert.match(text(died), /^The Python kernel died: /);
      assert.match(text(died), killer.says);
      assert.match(text(died), new RegExp(`Lost with it: [^\\n]*\\b${name}\\b`));
      assert.equal(died.facts?.status, 'died');
      more?.(died, killer, name);
      await waitFor(`the old ${target.noun} to be gone`, () => !running(pid), { timeoutMs: 5000 });
      // The working call: exactly its own output (this client was already told; no second note).
      assert.equal(text(await target.run('6 * 7')), '42\n');
      assert.notEqual(await target.pid(), pid);
      assert.match(text(await target.run(name)), /NameError/, 'lost by design: the variable went with the process');
    });
  }
}

/** SIGSTOP: the process neither exits nor answers; the heartbeat notices, and the pending call says so. */
export function stoppedProcessTest(target: FaultTarget, says: RegExp): void {
  test(`a SIGSTOPped ${target.noun} is noticed by the heartbeat and replaced; the pending call says so`, { timeout: 60_000 }, async () => {
    await target.run('kept = 1');
    const pid = await target.pid();
    const pending = target.run('import time\ntime.sleep(120)');
    await target.busy();
    process.kill(pid, 'SIGSTOP');
    // How soon: bench/fault-detection.ts.
    const died = await pending;
    assert.match(text(died), says);
    assert.match(text(died), /Lost with it: [^\n]*\bkept\b/);
    await waitFor(`the stopped ${target.noun} to be gone`, () => !running(pid), { timeoutMs: 5000 });
    assert.equal(text(await target.run('3 * 3')), '9\n');
  });
}

export const IGNORES_SIGINT = "import ctypes, signal\nprint('blocking', flush=True)\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nctypes.CDLL(None).sleep(120)";

/** A blocking C call that ignores SIGINT: at its timeout the interrupt escalates to a restart. */
export function ignoredInterruptTest(target: FaultTarget, more?: (stuck: CallResult) => void): void {
  test('a blocking C call that ignores SIGINT: the timeout escalates to a restart, and the reply keeps what it printed and names what was lost', { timeout: 60_000 }, async () => {
    await target.run('kept = 1');
    const pid = await target.pid();
    const stuck = await target.run(IGNORES_SIGINT, { timeout_s: 1 });
    assert.equal(stuck.isError, true);
    assert.match(text(stuck), /^blocking\n/);
    assert.match(text(stuck), /Timed out after 1 s; the run was interrupted and, as it would not stop, the kernel was restarted \(variables lost\)/);
    assert.match(text(stuck), /Lost with it: [^\n]*\bkept\b/);
    assert.equal(stuck.facts?.restarted, true);
    assert.ok((stuck.facts?.lost_names as string[]).includes('kept'));
    more?.(stuck);
    await waitFor(`the stuck ${target.noun} to be ended`, () => !running(pid), { timeoutMs: 5000 });
    assert.equal(text(await target.run('1 + 1')), '2\n');
  });
}
