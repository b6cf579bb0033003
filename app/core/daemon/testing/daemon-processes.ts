/**
 * Helpers for tests that run real daemon and shim processes in a temporary state folder, and
 * make sure none is left behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { requestControl } from '../control-client.js';
import { readDaemonInfo } from '../daemon-info.js';
import { processAlive } from '../instance-lock.js';
import { daemonFiles } from '../state-paths.js';
import { waitFor } from '../../testing/wait-for.js';
import { TEST_EVENTS_FILE } from './echo-server.js';

export const ECHO_DAEMON_MAIN = fileURLToPath(new URL('./echo-daemon-main.js', import.meta.url));
export const ECHO_SHIM_MAIN = fileURLToPath(new URL('../../../cli/testing/echo-shim-main.js', import.meta.url));

/** A temporary state folder and everything started in it; `cleanup()` ends every process and removes it. */
export class TestHome {
  readonly dir: string;
  private readonly children: ChildProcess[] = [];
  private readonly adopted = new Set<number>();

  constructor(dir?: string) {
    this.dir = dir ?? mkdtempSync(join(tmpdir(), 'ps-daemon-test-'));
  }

  get files() {
    return daemonFiles(this.dir);
  }

  env(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
    return { ...process.env, PYTHON_MCP_HOME: this.dir, PYTHON_SESSION_DAEMON_ENTRY: ECHO_DAEMON_MAIN, ...extra };
  }

  /** `node echo-daemon-main.js serve [...args]`, output collected. */
  spawnDaemon(args: string[] = [], env: NodeJS.ProcessEnv = {}): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
    const child = spawn(process.execPath, [ECHO_DAEMON_MAIN, 'serve', ...args], { env: this.env(env), stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.push(child);
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, output: () => output, exit };
  }

  /** Pings until a daemon answers; returns its pid. */
  async waitForDaemon(timeoutMs = 10_000): Promise<number> {
    return waitFor(
      'a daemon to answer',
      async () => {
        const ping = await requestControl(this.files.socket.path, 'ping', { timeoutMs: 1000 });
        return ping.kind === 'answer' ? ping.answer.pid : 0;
      },
      { timeoutMs, stepMs: 25 },
    );
  }

  infoPid(): number | null {
    return readDaemonInfo(this.files.info)?.pid ?? null;
  }

  /** The test daemon's lifecycle lines: `boot <pid>`, `started <pid>`, `exit <pid>`, ... */
  events(): { event: string; pid: number }[] {
    let text = '';
    try {
      text = readFileSync(join(this.dir, TEST_EVENTS_FILE), 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [event, pid] = line.split(' ');
        return { event, pid: Number(pid) };
      });
  }

  pidsWith(event: string): number[] {
    return this.events()
      .filter((e) => e.event === event)
      .map((e) => e.pid);
  }

  /** Daemon processes of this folder that are still alive (booted, not exited, pid alive). */
  liveDaemons(): number[] {
    const exited = new Set(this.pidsWith('exit'));
    return this.pidsWith('boot').filter((pid) => !exited.has(pid) && processAlive(pid));
  }

  /**
   * Daemons a shim says it started (`started one (pid N)` on its stderr): one that lost the
   * race may still be booting when a test ends, and must not outlive it.
   */
  adoptSpawnedBy(shimStderr: string): void {
    for (const [, pid] of shimStderr.matchAll(/started one \(pid (\d+)\)/g)) this.adopted.add(Number(pid));
  }

  async cleanup(): Promise<void> {
    // Ask politely first (the services record their shutdown), then make sure.
    await requestControl(this.files.socket.path, 'stop', { timeoutMs: 2000 }).catch(() => null);
    await waitFor('the daemons to stop when asked', () => this.liveDaemons().length === 0, { timeoutMs: 5000 }).catch(() => {}); // then made sure of below
    for (const pid of new Set([...this.liveDaemons(), ...[...this.adopted].filter(processAlive)])) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    for (const child of this.children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await waitFor('the killed daemons to be gone', () => ![...this.adopted].some(processAlive), { timeoutMs: 2000 }).catch(() => {}); // best effort: the folder goes anyway
    rmSync(this.dir, { recursive: true, force: true });
  }
}
