/**
 * Stopping the daemon a benchmark's shim started. A shim answers initialize and tools/list from
 * the package's answers before the daemon it starts is up, and a client that leaves that soon may
 * leave before the shim has started one at all. The shim says on stderr when it starts one
 * ("started one (pid N)", app/cli/daemon-link.ts; asserted in app/cli/shim.test.ts), so a stop
 * waits for that daemon to be up (its daemon.json names it) or gone, and for nothing when none
 * was started.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { readDaemonInfo } from '../app/core/daemon/daemon-info.js';
import { processAlive } from '../app/core/daemon/instance-lock.js';
import { waitFor } from '../app/core/testing/wait-for.js';

const STARTED = /started one \(pid (\d+)\)/g;

/** A shim's stderr, read to its end: resolves with the pids of the daemons it started (usually none or one). */
export function startedDaemons(stderr: Readable): Promise<number[]> {
  let text = '';
  stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return new Promise((resolve, reject) => {
    stderr.once('end', () => resolve([...text.matchAll(STARTED)].map((m) => Number(m[1]))));
    stderr.once('error', reject);
  });
}

/**
 * Stops each daemon in `pids` (started by a shim that has exited) once it is up; one that exited
 * by itself before it was up needs nothing. A daemon neither up nor gone within a minute fails the
 * benchmark rather than outliving it.
 */
export async function stopStartedDaemons(cli: string, env: NodeJS.ProcessEnv, infoPath: string, pids: number[]): Promise<void> {
  for (const pid of pids) {
    const state = await waitFor(`the daemon a shim started (pid ${pid}) to write ${infoPath} or exit`, () => (readDaemonInfo(infoPath)?.pid === pid ? 'up' : running(pid) ? null : 'gone'), { timeoutMs: 60_000, stepMs: 20 });
    if (state === 'up') execFileSync(process.execPath, [cli, 'stop'], { env, stdio: 'ignore' });
  }
}

/** Alive and not a zombie (a daemon whose shim has exited is reaped by whoever adopted it, which in a container may never happen). */
function running(pid: number): boolean {
  if (!processAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').pop()?.[0] !== 'Z';
  } catch {
    return process.platform !== 'linux'; // no /proc entry: gone on Linux; elsewhere, trust the signal
  }
}
