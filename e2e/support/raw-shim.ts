/**
 * The shim spoken to byte for byte, as a buggy or hostile MCP client would: anything can be
 * written to its stdin (broken JSON, stray bytes, huge lines), and every line it writes back is
 * kept, so a test can ask "what did it answer to id 7" or "did it answer at all".
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { WaitTimeoutError } from '../../app/core/testing/wait-for.js';
import { CLI } from './mcp-harness.js';

export interface RawShim {
  readonly pid: number;
  /** Every line the shim wrote to stdout, parsed (or `{ unparsable: line }`). */
  readonly received: Record<string, any>[];
  readonly stderr: () => string;
  /** Writes bytes or text as one line (a newline is added). */
  writeLine(line: string | Buffer): void;
  /** Sends a message and waits for the answer with its id. */
  request(message: Record<string, unknown> & { id: string | number }, timeoutMs?: number): Promise<Record<string, any>>;
  /** The first line matching `predicate`, once it has arrived; throws naming `what` after `timeoutMs`. */
  waitFor(what: string, predicate: (message: Record<string, any>) => boolean, timeoutMs?: number): Promise<Record<string, any>>;
  /** initialize + notifications/initialized, as a real client opens a session. */
  initialize(name?: string): Promise<void>;
  close(): Promise<void>;
}

export function spawnRawShim(env: Record<string, string>): RawShim {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [CLI], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const received: Record<string, any>[] = [];
  const waiters = new Set<() => void>();
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    stdout += chunk;
    let newline: number;
    while ((newline = stdout.indexOf('\n')) !== -1) {
      const line = stdout.slice(0, newline);
      stdout = stdout.slice(newline + 1);
      try {
        received.push(JSON.parse(line));
      } catch {
        received.push({ unparsable: line });
      }
      for (const wake of [...waiters]) wake();
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.on('error', () => undefined); // the shim may be gone when a test writes

  const waitFor = (what: string, predicate: (m: Record<string, any>) => boolean, timeoutMs = 30_000) =>
    new Promise<Record<string, any>>((resolve, reject) => {
      const check = () => {
        const found = received.find(predicate);
        if (found) finish(() => resolve(found));
      };
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(check);
        settle();
      };
      const timer = setTimeout(() => finish(() => reject(new WaitTimeoutError(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${stderr}`))), timeoutMs);
      waiters.add(check);
      check();
    });

  const writeLine = (line: string | Buffer) => {
    child.stdin.write(Buffer.concat([Buffer.isBuffer(line) ? line : Buffer.from(line, 'utf8'), Buffer.from('\n')]));
  };

  return {
    pid: child.pid!,
    received,
    stderr: () => stderr,
    writeLine,
    waitFor,
    async request(message, timeoutMs = 120_000) {
      writeLine(JSON.stringify(message));
      return waitFor(`an answer to ${JSON.stringify(message.id)}`, (m) => m.id === message.id && (m.result !== undefined || m.error !== undefined), timeoutMs);
    },
    async initialize(name = 'raw-client') {
      await this.request({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1.0.0' } } });
      writeLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    },
    close() {
      return new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.stdin.end();
        setTimeout(() => child.kill('SIGKILL'), 5000).unref();
      });
    },
  };
}
