/**
 * The daemon's own log, `<state>/daemon.log`: one timestamped line per event, rotated to
 * `daemon.log.1` when it passes a size cap so a long-lived daemon cannot fill the disk.
 * Writes are synchronous — the volume is small, and the last lines before a crash are the ones
 * that matter. A failing disk never takes the daemon down: write errors are dropped.
 */
import { closeSync, fstatSync, openSync, renameSync, writeSync } from 'node:fs';

export type LogLevel = 'info' | 'warn' | 'error';

export interface DaemonLogOptions {
  path: string;
  /** Size at which the file is rotated. */
  maxBytes?: number;
  /** Also hand each line here (the foreground daemon echoes to stderr). */
  echo?: (line: string) => void;
}

export class DaemonLog {
  readonly path: string;
  private fd: number | null = null;
  private size = 0;
  private readonly maxBytes: number;
  private readonly echo?: (line: string) => void;

  constructor(options: DaemonLogOptions) {
    this.path = options.path;
    this.maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
    this.echo = options.echo;
    this.open();
  }

  info(message: string): void {
    this.write('info', message);
  }

  warn(message: string): void {
    this.write('warn', message);
  }

  error(message: string, error?: unknown): void {
    const detail = error === undefined ? '' : `: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
    this.write('error', message + detail);
  }

  write(level: LogLevel, message: string): void {
    const line = `${new Date().toISOString()} ${level.padEnd(5)} [${process.pid}] ${message}\n`;
    this.echo?.(line);
    if (this.fd === null) return;
    const bytes = Buffer.from(line);
    if (this.size + bytes.length > this.maxBytes) this.rotate();
    if (this.fd === null) return;
    try {
      writeSync(this.fd, bytes);
      this.size += bytes.length;
    } catch {
      /* full disk or revoked permissions: keep running without a log */
    }
  }

  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already closed */
    }
    this.fd = null;
  }

  private open(): void {
    try {
      this.fd = openSync(this.path, 'a', 0o600);
      this.size = fstatSync(this.fd).size;
    } catch {
      this.fd = null;
    }
  }

  private rotate(): void {
    this.close();
    try {
      renameSync(this.path, `${this.path}.1`);
    } catch {
      /* another writer rotated it first */
    }
    this.open();
  }
}
