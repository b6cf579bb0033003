/** Jupyter messaging protocol 5.x message shapes (only what the engine reads or writes). */
import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';

export const PROTOCOL_VERSION = '5.3';

export interface MessageHeader {
  msg_id: string;
  msg_type: string;
  session: string;
  username: string;
  date: string;
  version: string;
}

export type JsonObject = { [key: string]: unknown };

export interface JupyterMessage<C = JsonObject> {
  /** ZeroMQ routing prefix (identities); empty for DEALER/SUB traffic we originate. */
  identities: Buffer[];
  header: MessageHeader;
  /** Empty object when the message has no parent. */
  parent_header: Partial<MessageHeader>;
  metadata: JsonObject;
  content: C;
  buffers: Buffer[];
}

let username: string | undefined;
function currentUser(): string {
  if (username === undefined) {
    try {
      username = userInfo().username;
    } catch {
      username = 'python-session';
    }
  }
  return username;
}

/** A header with a fresh, globally unique message id. */
export function createHeader(msgType: string, session: string): MessageHeader {
  return {
    msg_id: randomUUID(),
    msg_type: msgType,
    session,
    username: currentUser(),
    date: new Date().toISOString(),
    version: PROTOCOL_VERSION,
  };
}

export function createMessage<C extends JsonObject>(
  msgType: string,
  session: string,
  content: C,
  parent: Partial<MessageHeader> = {},
): JupyterMessage<C> {
  return {
    identities: [],
    header: createHeader(msgType, session),
    parent_header: parent,
    metadata: {},
    content,
    buffers: [],
  };
}
