/**
 * The built-in worker's framing: one message per line, `<hex HMAC-SHA256 of the JSON> <JSON>\n`,
 * the JSON being `{channel, header, parent_header, metadata, content}` (see
 * resources/python/worker/python_session_worker/__init__.py). The signature is checked against
 * the exact bytes received, before they are parsed.
 */
import type { JsonObject, JupyterMessage, MessageHeader, Signer } from '../wire/index.js';

export type WorkerChannel = 'shell' | 'control' | 'iopub' | 'hb' | 'stdin';

const CHANNELS = new Set<string>(['shell', 'control', 'iopub', 'hb', 'stdin']);
const NEWLINE = 0x0a;
const SPACE = 0x20;

export function encodeWorkerLine(channel: WorkerChannel, message: Pick<JupyterMessage, 'header' | 'parent_header' | 'metadata' | 'content'>, signer: Signer): Buffer {
  const body = Buffer.from(
    JSON.stringify({ channel, header: message.header, parent_header: message.parent_header, metadata: message.metadata, content: message.content }),
  );
  return Buffer.concat([Buffer.from(signer.sign([body]), 'ascii'), Buffer.from(' '), body, Buffer.from('\n')]);
}

export type DecodedLine =
  | { ok: true; channel: WorkerChannel; message: JupyterMessage }
  | { ok: false; reason: 'bad-signature' | 'malformed'; detail: string };

/** One line without its newline. */
export function decodeWorkerLine(line: Buffer, signer: Signer): DecodedLine {
  const space = line.indexOf(SPACE);
  if (space <= 0) return { ok: false, reason: 'bad-signature', detail: 'no signature' };
  const body = line.subarray(space + 1);
  if (!signer.verify(line.subarray(0, space), [body])) return { ok: false, reason: 'bad-signature', detail: 'HMAC signature mismatch' };
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch (error) {
    return { ok: false, reason: 'malformed', detail: `invalid JSON: ${(error as Error).message}` };
  }
  const header = parsed?.header as MessageHeader | undefined;
  if (typeof parsed !== 'object' || !header || typeof header.msg_type !== 'string' || !CHANNELS.has(parsed.channel as string)) {
    return { ok: false, reason: 'malformed', detail: 'not a worker message' };
  }
  const object = (value: unknown): JsonObject => (value && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : {});
  return {
    ok: true,
    channel: parsed.channel as WorkerChannel,
    message: {
      identities: [],
      header,
      parent_header: object(parsed.parent_header) as Partial<MessageHeader>,
      metadata: object(parsed.metadata),
      content: object(parsed.content),
      buffers: [],
    },
  };
}

/**
 * Splits a byte stream into lines without copying the bytes of a long line at every chunk. A
 * line longer than `maxLineBytes` is skipped to its end and reported as `onOverflow`.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private skipping = false;

  constructor(
    private readonly onLine: (line: Buffer) => void,
    private readonly onOverflow: (bytes: number) => void,
    private readonly maxLineBytes = 512 * 1024 * 1024,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end < 0) break;
      const piece = chunk.subarray(start, end);
      start = end + 1;
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      if (this.parts.length === 0) {
        this.onLine(piece);
      } else {
        this.parts.push(piece);
        const line = Buffer.concat(this.parts);
        this.parts = [];
        this.partBytes = 0;
        this.onLine(line);
      }
    }
    if (start >= chunk.length || this.skipping) return;
    const rest = chunk.subarray(start);
    this.partBytes += rest.length;
    if (this.partBytes > this.maxLineBytes) {
      this.onOverflow(this.partBytes);
      this.parts = [];
      this.partBytes = 0;
      this.skipping = true;
      return;
    }
    this.parts.push(rest);
  }
}
