/**
 * `python-session-mcp status` — whether the daemon of this state folder runs, and what it
 * holds: pid, uptime, socket, connected clients, and whatever its services describe (sessions,
 * interpreter, ...). `--json` prints the daemon's answer as it came, for programs.
 */
import { parseArgs } from 'node:util';
import { requestControl } from '../../core/daemon/control-client.js';
import { processAlive, readLockPid } from '../../core/daemon/instance-lock.js';
import type { StatusAnswer } from '../../core/daemon/protocol.js';
import { currentDaemonFiles } from '../../core/daemon/state-paths.js';
import { readPanelAddress } from '../../core/daemon/panel/address.js';

export const STATUS_USAGE = `Usage: python-session-mcp status [--json]

Shows whether the Python Session daemon for this state folder ($PYTHON_MCP_HOME or the
default) is running, and what it holds.

Options:
  --json       print JSON: the daemon's status, or {"running": false, ...}
  -h, --help   show this help

Exit status: 0 running, 3 not running, 1 running but not answering.
`;

export interface StatusCommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const processIO: StatusCommandIO = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

export const EXIT_NOT_RUNNING = 3;

export async function statusCommand(argv: string[], io: StatusCommandIO = processIO): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } }));
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${STATUS_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.stdout(STATUS_USAGE);
    return 0;
  }
  const files = currentDaemonFiles();
  const result = await requestControl(files.socket.path, 'status', { timeoutMs: 10_000 });

  if (result.kind === 'answer') {
    // The panel link carries its token: only the owner can read it, as only the owner can run this.
    const panelUrl = readPanelAddress(result.answer.stateDir)?.url ?? null;
    io.stdout(
      values.json
        ? JSON.stringify({ running: true, ...result.answer, panelUrl }, null, 2) + '\n'
        : formatStatus(result.answer) + (panelUrl ? `\nOpen the panel: ${panelUrl}\n` : ''),
    );
    return 0;
  }
  const holder = readLockPid(files.lock);
  const alive = holder !== null && processAlive(holder);
  const problem =
    result.kind === 'refused'
      ? result.error
      : result.kind === 'silent'
        ? 'the daemon accepted the connection but did not answer within 10 s'
        : alive
          ? `process ${holder} holds the daemon lock but nothing listens on ${files.socket.path}`
          : null;
  if (values.json) {
    io.stdout(JSON.stringify({ running: problem !== null, answering: false, pid: alive ? holder : null, problem, stateDir: files.stateDir, socket: files.socket.path }, null, 2) + '\n');
  } else if (problem) {
    io.stdout(`Python Session daemon: not answering${alive ? ` (pid ${holder})` : ''}\n  ${problem}\n  log  ${files.log}\n`);
  } else {
    io.stdout(`Python Session daemon: not running\n  state folder  ${files.stateDir}\n`);
  }
  return problem ? 1 : EXIT_NOT_RUNNING;
}

export function formatStatus(status: StatusAnswer): string {
  const rows: [string, string][] = [
    ['pid', String(status.pid)],
    ['version', status.version],
    ['uptime', formatDuration(status.uptimeSeconds)],
    ['socket', status.socket],
    ['state folder', status.stateDir],
    ['log', status.log],
  ];
  for (const [name, value] of Object.entries(status.extra ?? {})) rows.push([name, scalarText(value)]);
  const width = Math.max(...rows.map(([name]) => name.length));
  const lines = ['Python Session daemon: running', ...rows.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`)];

  const clients = status.connections ?? [];
  lines.push(`  ${'clients'.padEnd(width)}  ${clients.length ? `${clients.length} connected` : 'none connected'}`);
  for (const c of clients) lines.push(`  ${''.padEnd(width)}    ${c.client} (${c.id}, since ${new Date(c.since).toLocaleString()})`);

  // A damaged state file the daemon moved aside, one line each.
  for (const message of status.stateFiles ?? []) lines.push(`  Warning: ${message}`);

  const services = status.services ?? {};
  if (Object.keys(services).length) lines.push('', ...describeTree(services, 1));
  return lines.join('\n') + '\n';
}

export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  if (days) return `${days} d ${hours} h`;
  if (hours) return `${hours} h ${minutes} min`;
  if (minutes) return `${minutes} min ${seconds} s`;
  return `${seconds} s`;
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Nested objects and lists as indented lines: `key: value`, sub-objects below their key, list items as `- `. */
export function describeTree(value: Record<string, unknown>, depth = 0): string[] {
  const pad = '  '.repeat(depth);
  const lines: string[] = [];
  for (const [name, item] of Object.entries(value)) {
    if (isPlainObject(item)) {
      lines.push(`${pad}${name}:${Object.keys(item).length ? '' : ' -'}`, ...describeTree(item, depth + 1));
    } else if (Array.isArray(item)) {
      if (!item.length) lines.push(`${pad}${name}: none`);
      else if (item.every((entry) => !isPlainObject(entry) && !Array.isArray(entry))) lines.push(`${pad}${name}: ${item.map(scalarText).join(', ')}`);
      else {
        lines.push(`${pad}${name}:`);
        for (const entry of item) {
          if (!isPlainObject(entry)) {
            lines.push(`${pad}  - ${scalarText(entry)}`);
            continue;
          }
          const [first, ...rest] = describeTree(entry, depth + 2);
          lines.push(`${pad}  - ${first.trimStart()}`, ...rest);
        }
      }
    } else {
      lines.push(`${pad}${name}: ${scalarText(item)}`);
    }
  }
  return lines;
}
