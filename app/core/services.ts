/**
 * The composition root: the daemon's services (sessions, settings), built once per daemon and
 * shared by every MCP connection, the panel and the tests. Nothing here knows about MCP.
 */
import type { KernelOptions } from './kernel/kernel.js';
import type { EngineLogger } from './kernel/logger.js';
import { packageVersion } from './package-root.js';
import { SessionManager } from './sessions/session-manager.js';
import { Settings } from './settings/settings.js';

export interface DaemonServices {
  sessions: SessionManager;
  settings: Settings;
  stateDir: string;
  startedAt: number;
  shutdown(): Promise<void>;
  describe(): Promise<Record<string, unknown>>;
}

/** `logger`: where kernel, remote and worker events go (the daemon passes its daemon.log). */
export async function createServices(options: { stateDir: string; env?: NodeJS.ProcessEnv; kernelOptions?: Partial<KernelOptions>; logger?: EngineLogger }): Promise<DaemonServices> {
  const settings = new Settings(options.stateDir);
  const sessions = new SessionManager({ stateDir: options.stateDir, settings, env: options.env, kernelOptions: options.kernelOptions, logger: options.logger });
  // Read now, not at first use, so a damaged servers.json is found and said at start (settings was, above).
  sessions.servers.list();
  const startedAt = Date.now();
  return {
    sessions,
    settings,
    stateDir: options.stateDir,
    startedAt,
    shutdown: () => sessions.shutdownAll(),
    async describe() {
      return {
        version: packageVersion(),
        started: new Date(startedAt).toISOString(),
        sessions: sessions.list().map((s) => ({ name: s.name, state: s.state, pid: s.facts().pid ?? null, interpreter: s.interpreter?.path ?? null })),
      };
    },
  };
}
