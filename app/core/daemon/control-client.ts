/**
 * Asking a daemon one control question (ping, status, stop) over its socket. Used by the CLI
 * commands and by a starting daemon that finds the lock taken.
 */
import net from 'node:net';
import { LineSplitter } from './json-lines.js';
import { handshakeLine, type ControlAnswers, type ControlCommand } from './protocol.js';

export type ControlResult<C extends ControlCommand> =
  | { kind: 'answer'; answer: ControlAnswers[C] }
  /** A daemon answered but declined (it is stopping, or did not understand). */
  | { kind: 'refused'; error: string; retry: boolean }
  /** Nothing listens on the socket. */
  | { kind: 'absent' }
  /** Something accepted the connection but gave no answer in time: a daemon that is busy or hung. */
  | { kind: 'silent' };

/** Connect errors that mean "no daemon here" rather than "something is wrong". */
const ABSENT_CODES = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK', 'ECONNRESET']);

export function isAbsentError(error: unknown): boolean {
  return ABSENT_CODES.has((error as NodeJS.ErrnoException)?.code ?? '');
}

export function requestControl<C extends ControlCommand>(
  socketPath: string,
  command: C,
  options: { timeoutMs?: number } = {},
): Promise<ControlResult<C>> {
  const timeoutMs = options.timeoutMs ?? 3000;
  return new Promise((resolve, reject) => {
    let connected = false;
    let settled = false;
    const socket = net.connect(socketPath);
    const finish = (result: ControlResult<C> | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const timer = setTimeout(() => finish({ kind: 'silent' }), timeoutMs);
    const lines = new LineSplitter(16 * 1024 * 1024);
    socket.on('connect', () => {
      connected = true;
      socket.write(handshakeLine({ hello: 'control', command }));
    });
    socket.on('data', (chunk: Buffer) => {
      let first: string | undefined;
      try {
        first = lines.push(chunk)[0];
      } catch {
        return finish({ kind: 'refused', error: 'the daemon sent an answer too large to read', retry: false });
      }
      if (first === undefined) return;
      let answer: Record<string, unknown>;
      try {
        answer = JSON.parse(first) as Record<string, unknown>;
      } catch {
        return finish({ kind: 'refused', error: `not a daemon answer: ${first.slice(0, 200)}`, retry: false });
      }
      if (answer.ok === true) finish({ kind: 'answer', answer: answer as unknown as ControlAnswers[C] });
      else finish({ kind: 'refused', error: String(answer.error ?? 'refused'), retry: answer.retry === true });
    });
    socket.on('error', (error) => {
      if (!connected && isAbsentError(error)) finish({ kind: 'absent' });
      else if (connected) finish({ kind: 'silent' });
      else finish(error);
    });
    socket.on('close', () => finish(connected ? { kind: 'silent' } : { kind: 'absent' }));
  });
}
