/**
 * What travels on the daemon's socket before MCP starts. Every connection opens with one JSON
 * line saying what it is:
 *
 *   {"hello":"mcp","client":"claude-code","cwd":"/home/ada/sales"}
 *                                                  → an ack line, then newline-delimited MCP
 *   {"hello":"control","command":"status"}         → one answer line, then the daemon closes
 *
 * An answer with `ok: false` carries `error`, and `retry: true` when asking again shortly can
 * succeed (the daemon is stopping, and a new one will take its place). Types and plain
 * functions only: the shim and the CLI commands import this without loading anything heavy.
 */

export const CONTROL_COMMANDS = ['ping', 'status', 'stop'] as const;
export type ControlCommand = (typeof CONTROL_COMMANDS)[number];

/** `cwd`: the folder the client started the shim in (an absolute path), for the session's folder. */
export type Handshake = { hello: 'mcp'; client: string; cwd?: string } | { hello: 'control'; command: ControlCommand };

/** A handshake longer than this is not a handshake. */
export const HANDSHAKE_MAX_BYTES = 64 * 1024;
const CLIENT_LABEL_MAX = 200;
const CWD_MAX = 4096;

export interface Refusal {
  ok: false;
  error: string;
  retry?: boolean;
}

export interface McpAck {
  ok: true;
  hello: 'mcp';
  pid: number;
  version: string;
  /** The connection's id, as the daemon's log and `status` name it. */
  connection: string;
}

export interface PingAnswer {
  ok: true;
  pid: number;
  version: string;
}

export interface ConnectionSummary {
  id: string;
  client: string;
  /** ISO time the connection was made. */
  since: string;
}

export interface StatusAnswer {
  ok: true;
  pid: number;
  version: string;
  /** ISO time the daemon started. */
  started: string;
  uptimeSeconds: number;
  stateDir: string;
  socket: string;
  log: string;
  connections: ConnectionSummary[];
  /** What the daemon's services describe about themselves (sessions, interpreter, ...). */
  services: Record<string, unknown>;
  /** Whatever the embedder added (the panel URL, ...). */
  extra: Record<string, unknown>;
  /** State files found damaged and set aside since the daemon started, one line each (app/core/state-file.ts). */
  stateFiles?: string[];
}

export interface StopAnswer {
  ok: true;
  pid: number;
  stopping: true;
}

export interface ControlAnswers {
  ping: PingAnswer;
  status: StatusAnswer;
  stop: StopAnswer;
}

export type HandshakeParse = { ok: true; handshake: Handshake } | { ok: false; error: string };

export function parseHandshake(line: string): HandshakeParse {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { ok: false, error: 'the first line must be a JSON handshake such as {"hello":"mcp","client":"name"}' };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'the handshake must be a JSON object' };
  }
  const record = value as Record<string, unknown>;
  if (record.hello === 'mcp') {
    const client = typeof record.client === 'string' && record.client.trim() ? record.client.trim().slice(0, CLIENT_LABEL_MAX) : 'unknown';
    const cwd = typeof record.cwd === 'string' && record.cwd.length <= CWD_MAX && !record.cwd.includes('\0') ? record.cwd : undefined;
    return { ok: true, handshake: { hello: 'mcp', client, ...(cwd ? { cwd } : {}) } };
  }
  if (record.hello === 'control') {
    const command = record.command;
    if (typeof command === 'string' && (CONTROL_COMMANDS as readonly string[]).includes(command)) {
      return { ok: true, handshake: { hello: 'control', command: command as ControlCommand } };
    }
    return { ok: false, error: `unknown control command ${JSON.stringify(command)}; expected one of ${CONTROL_COMMANDS.join(', ')}` };
  }
  return { ok: false, error: `unknown handshake ${JSON.stringify(record.hello)}; expected "mcp" or "control"` };
}

export function handshakeLine(handshake: Handshake): string {
  return JSON.stringify(handshake) + '\n';
}
