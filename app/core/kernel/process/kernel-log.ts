/**
 * Where a kernel's own stdout/stderr go: a capped file (so a runaway
 * `os.write(1, ...)` cannot fill the disk) and the last lines in memory, which
 * are quoted when the kernel dies.
 */
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname } from 'node:path';

export interface KernelLogOptions {
  /** File to append to; omitted keeps only the in-memory tail. */
  path?: string;
  /** Bytes written to the file before further output is dropped (with a note). */
  maxFileBytes?: number;
  /** Characters of recent output kept in memory. */
  tailChars?: number;
}

export class KernelLog {
  private file: WriteStream | null = null;
  private written = 0;
  private truncated = false;
  private tail = '';
  private readonly maxFileBytes: number;
  private readonly tailChars: number;

  constructor(readonly options: KernelLogOptions = {}) {
    this.maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
    this.tailChars = options.tailChars ?? 8192;
    if (options.path) {
      mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
      this.file = createWriteStream(options.path, { flags: 'a', mode: 0o600 });
      this.file.on('error', () => (this.file = null)); // a full disk must not take the daemon down
    }
  }

  write(chunk: Buffer): void {
    const text = chunk.toString('utf8');
    this.tail = (this.tail + text).slice(-this.tailChars);
    if (!this.file || this.truncated) return;
    if (this.written + chunk.length > this.maxFileBytes) {
      this.truncated = true;
      this.file.write(`\n[python-session: kernel log truncated at ${this.maxFileBytes} bytes]\n`);
      return;
    }
    this.written += chunk.length;
    this.file.write(chunk);
  }

  /** The last `lines` non-empty lines the kernel printed. */
  lastLines(lines = 20): string[] {
    return this.tail
      .split(/\r?\n/)
      .filter((line) => line.trim() !== '')
      .slice(-lines);
  }

  close(): void {
    this.file?.end();
    this.file = null;
  }
}
