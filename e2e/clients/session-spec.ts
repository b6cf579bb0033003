/** What a test hands scripted-session.ts: the stand-in's script, the client to start, where to record. */
import type { Step } from './model-script.js';

/** `{{PORT}}` in the client's arguments, environment and files becomes the stand-in's port. */
export const PORT_PLACEHOLDER = '{{PORT}}';

export interface SessionSpec {
  api: 'anthropic' | 'responses';
  script: Step[];
  recordingPath: string;
  /** Bring the loopback interface up first (a fresh network namespace has it down). */
  loopbackUp: boolean;
  /** Files written once the port is known (Codex's config.toml names the base URL). */
  files: { path: string; text: string }[];
  client: { command: string; args: string[]; env: Record<string, string>; cwd: string; stdoutPath: string; stderrPath: string; timeoutMs: number };
  /** Run after the client ended, e.g. `main.js stop` for the daemon the MCP server started. */
  cleanup: { command: string; args: string[]; env: Record<string, string> };
}
