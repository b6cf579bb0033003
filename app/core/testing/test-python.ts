/** The interpreter integration tests use: Debian's python3 has ipykernel; the first python3 on PATH may not. */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { waitFor } from './wait-for.js';

export const TEST_PYTHON = process.env.PYTHON_SESSION_TEST_PYTHON || '/usr/bin/python3';

/** Pids of live processes whose command line mentions `needle` (Linux /proc; [] elsewhere). */
export function processesMatching(needle: string): number[] {
  try {
    const out = execFileSync('ps', ['-eo', 'pid=,stat=,args='], { encoding: 'utf8' });
    return out
      .split('\n')
      .map((line) => line.trim().match(/^(\d+)\s+(\S+)\s+(.*)$/))
      .filter((m): m is RegExpMatchArray => !!m && !m[2].startsWith('Z') && m[3].includes(needle) && !m[3].includes('ps -eo'))
      .map((m) => Number(m[1]));
  } catch {
    return [];
  }
}

/**
 * Pids of live processes (other than this one) started with `name=value` in their environment
 * (Linux /proc; [] elsewhere). Children inherit it, so this finds every descendant of the process
 * that had it — kernels, pooled kernels, children of user code — wherever their files are and
 * whatever their command line says.
 */
export function processesWithEnv(name: string, value: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const wanted = Buffer.from(`\0${name}=${value}\0`);
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const environ = Buffer.concat([Buffer.from('\0'), readFileSync(`/proc/${entry}/environ`), Buffer.from('\0')]);
      if (environ.includes(wanted)) found.push(Number(entry)); // a zombie's environ reads empty
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return found;
}

export const TEST_MARK_VARIABLE = 'PYTHON_SESSION_TEST_MARK';

export interface MarkedProcesses {
  /** The marked processes still running. */
  running(): number[];
  /**
   * Waits for every marked process to end. Those that do not are killed (a leftover kernel
   * would otherwise keep the test file, and the suite, from ever ending) and named in the error.
   */
  allEnded(timeoutMs?: number): Promise<void>;
}

/**
 * Marks every process this test file starts from now on (through the environment they inherit):
 * a leak check that covers every kernel the file's tests started, not only those in one folder.
 */
export function markChildProcesses(label: string): MarkedProcesses {
  const mark = `${label}-${randomUUID()}`;
  process.env[TEST_MARK_VARIABLE] = mark;
  const running = () => processesWithEnv(TEST_MARK_VARIABLE, mark);
  return {
    running,
    async allEnded(timeoutMs = 10_000) {
      try {
        await waitFor(`every process this file started to end`, () => running().length === 0, { timeoutMs });
      } catch (error) {
        const left = running();
        for (const pid of left) {
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            /* gone meanwhile */
          }
        }
        throw new Error(`${(error as Error).message}; still running, now killed: ${left.join(', ')}`);
      }
    },
  };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
