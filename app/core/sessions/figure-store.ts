/** Images a session produced, written to sessions/<name>/figures/ as they arrive. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MimeBundle } from '../kernel/execution/outputs.js';
import { checkStateFolder } from '../state-file.js';

export const IMAGE_TYPES: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/svg+xml': 'svg',
};

export interface SavedFigure {
  /** '' when the file could not be written (see `error`); the image is still in the reply. */
  path: string;
  error?: string;
  mimeType: string;
  /** Raw bytes (decoded from the bundle's base64, or the SVG text). */
  bytes: Buffer;
}

export class FigureStore {
  private counter = 0;

  constructor(readonly dir: string) {
    // A figures "folder" that is a file, a symlink or unusable is set aside (with a notice), not written through.
    checkStateFolder(dir, 'new figures go to a fresh folder');
  }

  /** Writes every image in the bundle; returns what was written. */
  save(bundle: MimeBundle, executionId: number): SavedFigure[] {
    const saved: SavedFigure[] = [];
    for (const [mimeType, ext] of Object.entries(IMAGE_TYPES)) {
      const data = bundle[mimeType];
      if (typeof data !== 'string') continue;
      const bytes = mimeType === 'image/svg+xml' ? Buffer.from(data, 'utf8') : Buffer.from(data, 'base64');
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const path = join(this.dir, `${stamp}-run${executionId}-${++this.counter}.${ext}`);
      try {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        writeFileSync(path, bytes, { mode: 0o600 });
      } catch (error) {
        // A full disk or an unusable folder costs the file, not the reply.
        saved.push({ path: '', mimeType, bytes, error: `${(error as Error).message}` });
        continue;
      }
      saved.push({ path, mimeType, bytes });
    }
    return saved;
  }
}
