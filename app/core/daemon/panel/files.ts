/**
 * Files the panel may hand out: figures and spilled outputs, which live under
 * `<state>/sessions/`, and nothing else. A path is accepted only when its real location (every
 * symlink resolved) is inside the real sessions folder, so neither `..` nor a link a kernel
 * planted can reach the token, the settings or the user's home.
 */
import { realpathSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, isAbsolute, join, sep } from 'node:path';

const CONTENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

/** Outputs spilled to a file can be large; the panel reads at most this much of one. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;

export class FileRefused extends Error {
  constructor(
    message: string,
    readonly status: 400 | 403 | 404 | 413,
  ) {
    super(message);
  }
}

/** The real path of `requested` when it is a servable file inside `<stateDir>/sessions`. */
export function resolveSessionFile(stateDir: string, requested: string): string {
  if (!requested || !isAbsolute(requested) || requested.includes('\0')) throw new FileRefused('Give the absolute path of a file in the sessions folder.', 400);
  if (!(extname(requested).toLowerCase() in CONTENT_TYPES)) throw new FileRefused('Only figures and saved outputs are served.', 403);
  let root: string;
  let real: string;
  try {
    root = realpathSync(join(stateDir, 'sessions'));
  } catch {
    throw new FileRefused('There are no sessions yet.', 404);
  }
  try {
    real = realpathSync(requested);
  } catch {
    throw new FileRefused('No such file (it may have been deleted).', 404);
  }
  if (!real.startsWith(root + sep)) throw new FileRefused('Only files in the sessions folder are served.', 403);
  // The link's target decides the type, so a .png link to a .txt is still refused or typed right.
  if (!(extname(real).toLowerCase() in CONTENT_TYPES)) throw new FileRefused('Only figures and saved outputs are served.', 403);
  return real;
}

export async function sendSessionFile(res: ServerResponse, stateDir: string, requested: string): Promise<void> {
  const path = resolveSessionFile(stateDir, requested);
  const handle = await open(path, 'r');
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new FileRefused('Not a file.', 404);
    if (stats.size > MAX_FILE_BYTES) throw new FileRefused(`The file is ${stats.size} bytes, more than the panel shows; open it from disk: ${path}`, 413);
    const body = await handle.readFile();
    const type = CONTENT_TYPES[extname(path).toLowerCase()];
    res.statusCode = 200;
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Length', body.length);
    // Figure names carry a timestamp and are never rewritten, so the browser may keep them.
    res.setHeader('Cache-Control', type.startsWith('image/') ? 'private, max-age=86400, immutable' : 'no-store');
    // An SVG a kernel drew could hold a script; opened on its own it would run in our origin.
    // A sandboxing policy with no script source makes it an inert picture.
    res.setHeader('Content-Security-Policy', "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox");
    res.end(body);
  } finally {
    await handle.close();
  }
}
