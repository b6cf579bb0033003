/**
 * A gate a running cell waits at until the test opens it: the way to prove an ordering ("this
 * arrived while the cell was still running") without guessing how long anything takes. The
 * kernel runs on this machine (locally or under a local Jupyter server), so the gate is a file.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CellGate {
  /** Python statements that wait for the gate (giving up with an error after `giveUpS`). */
  readonly waitCode: string;
  /** Python statements that record the cell got past the gate. */
  readonly passedCode: string;
  open(): void;
  isOpen(): boolean;
  /** True once a cell ran `passedCode`. */
  passed(): boolean;
}

export function cellGate(giveUpS = 60): CellGate {
  const dir = mkdtempSync(join(tmpdir(), 'ps-gate-'));
  const gate = join(dir, `open-${randomUUID()}`);
  const passed = join(dir, 'passed');
  return {
    waitCode: [
      'import os as _gate_os, time as _gate_time',
      `for _gate_i in range(${Math.ceil(giveUpS * 50)}):`,
      `    if _gate_os.path.exists(${JSON.stringify(gate)}): break`,
      '    _gate_time.sleep(0.02)',
      'else:',
      "    raise TimeoutError('the test never opened the gate')",
    ].join('\n'),
    passedCode: `open(${JSON.stringify(passed)}, 'w').close()`,
    open: () => writeFileSync(gate, ''),
    isOpen: () => existsSync(gate),
    passed: () => existsSync(passed),
  };
}
