/**
 * Whether the tray app can run here: an Electron binary on disk and a display to show it on.
 * Plain Node (no `electron` import), so `npm start` can ask before launching anything.
 *
 * The binary is found the way the `electron` package's own index.js finds it (path.txt, and
 * ELECTRON_OVERRIDE_DIST_PATH) but without calling it: when the binary is missing, that
 * index.js starts downloading it, which must not happen as a side effect of asking.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export type TrayAvailability = { ok: true; binary: string } | { ok: false; reason: string };

export interface AvailabilityContext {
  platform: NodeJS.Platform;
  env: NodeJS.ProcessEnv;
  /** The installed `electron` package's folder, or null when it is not installed. */
  electronDir: string | null;
  exists(path: string): boolean;
  readText(path: string): string | null;
}

export function electronPackageDir(): string | null {
  try {
    return dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return null;
  }
}

export function defaultContext(): AvailabilityContext {
  return {
    platform: process.platform,
    env: process.env,
    electronDir: electronPackageDir(),
    exists: existsSync,
    readText: (path) => {
      try {
        return readFileSync(path, 'utf8');
      } catch {
        return null;
      }
    },
  };
}

/** The Electron executable, or why there is none. */
export function findElectronBinary(ctx: AvailabilityContext): TrayAvailability {
  if (!ctx.electronDir) return { ok: false, reason: 'Electron is not installed (npm install)' };
  const relative = ctx.readText(join(ctx.electronDir, 'path.txt'))?.trim() || null;
  const override = ctx.env.ELECTRON_OVERRIDE_DIST_PATH;
  const binary = override ? join(override, relative ?? 'electron') : relative ? join(ctx.electronDir, 'dist', relative) : null;
  if (!binary || !ctx.exists(binary)) {
    return { ok: false, reason: 'Electron binary not installed (run `node node_modules/electron/install.js` where the network allows)' };
  }
  return { ok: true, binary };
}

/** Why no window could be shown, or null when one can. macOS and Windows always have a desktop. */
export function displayProblem(platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string | null {
  if (platform === 'darwin' || platform === 'win32') return null;
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return null;
  return 'No display (neither DISPLAY nor WAYLAND_DISPLAY is set)';
}

export function trayAvailability(ctx: AvailabilityContext = defaultContext()): TrayAvailability {
  const binary = findElectronBinary(ctx);
  if (!binary.ok) return binary;
  const display = displayProblem(ctx.platform, ctx.env);
  return display ? { ok: false, reason: display } : binary;
}
