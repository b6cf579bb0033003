/**
 * Files only their owner may read, written whole: a temporary file created 0600 beside the
 * target (never there before: `wx`), then renamed over it. A reader never sees half a file, and
 * nobody else can read it even for the moment between creating it and tightening its mode.
 * Node built-ins only: the shim uses it too.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';

export function writePrivateFile(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    writeFileSync(temporary, text, { mode: 0o600, flag: 'wx' });
    if (process.platform !== 'win32') chmodSync(temporary, 0o600); // whatever the umask did
    renameSync(temporary, path);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      /* never created */
    }
    throw error;
  }
}
