/** Encoding and decoding of Jupyter messages to and from ZeroMQ multipart frames. */
import type { JupyterMessage, JsonObject, MessageHeader } from './message.js';
import type { Signer } from './signer.js';

const DELIMITER = Buffer.from('<IDS|MSG>');

export function encodeMessage(message: JupyterMessage<JsonObject>, signer: Signer): Buffer[] {
  const parts = [
    Buffer.from(JSON.stringify(message.header)),
    Buffer.from(JSON.stringify(message.parent_header)),
    Buffer.from(JSON.stringify(message.metadata)),
    Buffer.from(JSON.stringify(message.content)),
  ];
  return [...message.identities, DELIMITER, Buffer.from(signer.sign(parts)), ...parts, ...message.buffers];
}

export type DecodeResult =
  | { ok: true; message: JupyterMessage<JsonObject> }
  | { ok: false; reason: 'bad-signature' | 'malformed'; detail: string };

export function decodeMessage(frames: readonly Buffer[], signer: Signer): DecodeResult {
  const delimiterAt = frames.findIndex((frame) => frame.equals(DELIMITER));
  if (delimiterAt < 0 || frames.length < delimiterAt + 6) {
    return { ok: false, reason: 'malformed', detail: 'missing delimiter or frames' };
  }
  const signature = frames[delimiterAt + 1];
  const parts = frames.slice(delimiterAt + 2, delimiterAt + 6);
  // Verify before parsing: nothing from an unsigned or forged message is ever read.
  if (!signer.verify(signature, parts)) {
    return { ok: false, reason: 'bad-signature', detail: 'HMAC signature mismatch' };
  }
  try {
    const [header, parent, metadata, content] = parts.map((part) => JSON.parse(part.toString('utf8')));
    if (!header || typeof header.msg_type !== 'string') {
      return { ok: false, reason: 'malformed', detail: 'header without msg_type' };
    }
    return {
      ok: true,
      message: {
        identities: frames.slice(0, delimiterAt),
        header: header as MessageHeader,
        parent_header: (parent ?? {}) as Partial<MessageHeader>,
        metadata: (metadata ?? {}) as JsonObject,
        content: (content ?? {}) as JsonObject,
        buffers: frames.slice(delimiterAt + 6),
      },
    };
  } catch (error) {
    return { ok: false, reason: 'malformed', detail: `invalid JSON: ${(error as Error).message}` };
  }
}
