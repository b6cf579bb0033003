/**
 * Splitting a byte stream into newline-delimited lines — the framing of MCP's stdio transport,
 * of the daemon's handshake and of its control answers. Node built-ins only (the shim uses it).
 */
import type { Readable } from 'node:stream';

export class LineTooLongError extends Error {
  override name = 'LineTooLongError';
}

export class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** `maxLineBytes` guards memory against a peer that never sends a newline. */
  constructor(private readonly maxLineBytes = Infinity) {}

  /** The complete lines in `chunk` (plus what was pending), without their `\n` or `\r\n`. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    let start = 0;
    let newline = chunk.indexOf(0x0a);
    while (newline !== -1) {
      const part = chunk.subarray(start, newline);
      const whole = this.pendingBytes ? Buffer.concat([...this.pending, part]) : part;
      this.pending = [];
      this.pendingBytes = 0;
      lines.push(whole.toString('utf8').replace(/\r$/, ''));
      start = newline + 1;
      newline = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.pending.push(rest);
      this.pendingBytes += rest.length;
      if (this.pendingBytes > this.maxLineBytes) {
        this.pending = [];
        this.pendingBytes = 0;
        throw new LineTooLongError(`a line longer than ${this.maxLineBytes} bytes`);
      }
    }
    return lines;
  }

  /** Bytes received after the last complete line. */
  rest(): Buffer {
    return Buffer.concat(this.pending);
  }
}

/** A line past the limit: not kept, only its size and its first and last bytes. */
export interface OversizedLine {
  oversized: true;
  bytes: number;
  head: string;
  tail: string;
}

/**
 * Like LineSplitter, but a line longer than `maxLineBytes` is not buffered: only its length and
 * its first and last `keepBytes` are kept (enough to find a JSON-RPC id and method), and it is
 * reported when its newline arrives. Memory stays bounded whatever the peer sends.
 */
export class BoundedLineSplitter {
  private pending: Buffer[] = [];
  private bytes = 0;
  private head: Buffer | null = null;
  private tail: Buffer = Buffer.alloc(0);

  constructor(
    private readonly maxLineBytes: number,
    private readonly keepBytes = 4096,
  ) {}

  push(chunk: Buffer): (string | OversizedLine)[] {
    const lines: (string | OversizedLine)[] = [];
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      this.add(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return lines;
      lines.push(this.finish());
      start = newline + 1;
    }
  }

  private add(part: Buffer): void {
    if (!part.length) return;
    this.bytes += part.length;
    if (this.head) {
      this.tail = Buffer.from(Buffer.concat([this.tail, part]).subarray(-this.keepBytes));
      return;
    }
    this.pending.push(part);
    if (this.bytes <= this.maxLineBytes) return;
    const whole = Buffer.concat(this.pending);
    this.head = Buffer.from(whole.subarray(0, this.keepBytes));
    this.tail = Buffer.from(whole.subarray(-this.keepBytes));
    this.pending = [];
  }

  private finish(): string | OversizedLine {
    const line: string | OversizedLine = this.head
      ? { oversized: true, bytes: this.bytes, head: this.head.toString('utf8'), tail: this.tail.toString('utf8').replace(/\r$/, '') }
      : Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.bytes = 0;
    this.head = null;
    this.tail = Buffer.alloc(0);
    return line;
  }
}

/**
 * Reads the first line from a stream and leaves everything after it unread on the stream,
 * which is left paused: whoever reads on calls `resume()`.
 */
export function readFirstLine(
  stream: Readable,
  options: { maxBytes: number; timeoutMs: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered: Buffer = Buffer.alloc(0);
    const finish = (error: Error | null, line?: string) => {
      clearTimeout(timer);
      stream.removeListener('data', onData);
      stream.removeListener('end', onEnd);
      stream.removeListener('error', onError);
      if (error) reject(error);
      else resolve(line!);
    };
    const onData = (chunk: Buffer) => {
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      const newline = buffered.indexOf(0x0a);
      if (newline === -1) {
        if (buffered.length > options.maxBytes) finish(new LineTooLongError(`no newline in the first ${options.maxBytes} bytes`));
        return;
      }
      // Pause before handing the rest back, or the stream keeps flowing with no listener.
      stream.pause();
      const rest = buffered.subarray(newline + 1);
      if (rest.length) stream.unshift(rest);
      finish(null, buffered.subarray(0, newline).toString('utf8').replace(/\r$/, ''));
    };
    const onEnd = () => finish(new Error('the connection closed before a complete line'));
    const onError = (error: Error) => finish(error);
    const timer = setTimeout(() => finish(new Error(`no line within ${options.timeoutMs} ms`)), options.timeoutMs);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}
