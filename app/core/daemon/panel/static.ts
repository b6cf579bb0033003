/**
 * The panel's page: the files in `renderer/`, served as they are (no bundler). Only plain file
 * names directly in that folder are looked up, so no request path can name anything else.
 */
import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

const FILE_NAME = /^[a-z0-9][a-z0-9-]*\.(html|css|js|svg|png)$/;

/**
 * The page may load its own scripts, styles and images and talk to its own origin; nothing else,
 * and no one may frame it. Inline script is not allowed at all, so text that slipped into the
 * markup could not run.
 */
export const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Sends `renderer/<name>`; false when there is no such file. */
export async function sendStatic(res: ServerResponse, rendererDir: string, pathname: string): Promise<boolean> {
  const name = pathname === '/' ? 'index.html' : pathname.slice(1);
  if (!FILE_NAME.test(name)) return false;
  let body: Buffer;
  try {
    body = await readFile(join(rendererDir, name));
  } catch {
    return false;
  }
  const type = TYPES[extname(name)];
  res.writeHead(200, {
    'Content-Type': type,
    'Content-Length': body.length,
    // Small files, revalidated each load, so a new version of the package shows at once.
    'Cache-Control': 'no-cache',
    ...(type.startsWith('text/html') ? { 'Content-Security-Policy': PAGE_POLICY } : {}),
  });
  res.end(body);
  return true;
}
