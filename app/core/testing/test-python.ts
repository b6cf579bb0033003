/** The interpreter integration tests use: Debian's python3 has ipykernel; the first python3 on PATH may not. */
import { execFileSync } from 'node:child_process';

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

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 10_000, stepMs = 50): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await predicate()) return true;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return false;
}
