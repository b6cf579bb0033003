/**
 * The two questions every client's path discovery asks of a PlatformContext: which path module
 * joins its paths (the context's platform, never the host's), and what an environment variable
 * holds there.
 */
import path from 'node:path';

/** What these helpers need of a PlatformContext (clients.ts), kept here to avoid an import cycle. */
interface PlatformOf {
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
}

export function pathApi(ctx: PlatformOf): path.PlatformPath {
  return ctx.platform === 'win32' ? path.win32 : path.posix;
}

/** An environment variable, looked up case-insensitively on Windows as Windows does; "" is unset. */
export function envVar(ctx: PlatformOf, name: string): string | undefined {
  let value = ctx.env[name];
  if (value === undefined && ctx.platform === 'win32') {
    const key = Object.keys(ctx.env).find((k) => k.toUpperCase() === name.toUpperCase());
    value = key === undefined ? undefined : ctx.env[key];
  }
  return value === '' ? undefined : value;
}
