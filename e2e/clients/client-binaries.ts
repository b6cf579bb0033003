/**
 * Where the real MCP client binaries are: installed by e2e/clients/install-clients.sh into
 * .test-tools/, or named by PYTHON_SESSION_CLAUDE / PYTHON_SESSION_CODEX / PYTHON_SESSION_GEMINI. Under CI a missing
 * binary is a failure, not a skip: the client tests are the judge of what the model reads.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const TEST_TOOLS = fileURLToPath(new URL('../../../.test-tools/node_modules/', import.meta.url));

export interface ClientBinary {
  /** The program to spawn and the arguments that come before the client's own. */
  command: string;
  prefix: string[];
  /** What the tests print, so a report says which binary answered. */
  describe: string;
}

function platformSuffix(): string {
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  return `${process.platform}-${arch}`;
}

export function claudeBinary(): ClientBinary | undefined {
  const named = process.env.PYTHON_SESSION_CLAUDE;
  if (named) return { command: named, prefix: [], describe: named };
  const exe = process.platform === 'win32' ? 'claude.exe' : 'claude';
  const path = join(TEST_TOOLS, '@anthropic-ai', `claude-code-${platformSuffix()}`, exe);
  return existsSync(path) ? { command: path, prefix: [], describe: path } : undefined;
}

export function codexBinary(): ClientBinary | undefined {
  const named = process.env.PYTHON_SESSION_CODEX;
  if (named) return { command: named, prefix: [], describe: named };
  const script = join(TEST_TOOLS, '@openai', 'codex', 'bin', 'codex.js');
  return existsSync(script) ? { command: process.execPath, prefix: [script], describe: script } : undefined;
}

/** Gemini CLI: one bundled script (engines: node >=20), run on the Node running the tests. */
export function geminiBinary(): ClientBinary | undefined {
  const named = process.env.PYTHON_SESSION_GEMINI;
  if (named) return { command: named, prefix: [], describe: named };
  const script = join(TEST_TOOLS, '@google', 'gemini-cli', 'bundle', 'gemini.js');
  return existsSync(script) ? { command: process.execPath, prefix: [script], describe: script } : undefined;
}

const CLIENT_NAMES = { claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI' } as const;
const FINDERS = { claude: claudeBinary, codex: codexBinary, gemini: geminiBinary } as const;

/** The skip reason for node:test's `skip` option, or false when the binary is there. Throws under CI. */
export function missingClient(name: keyof typeof CLIENT_NAMES): string | false {
  if (FINDERS[name]()) return false;
  const reason = `${CLIENT_NAMES[name]} is not installed: run bash e2e/clients/install-clients.sh`;
  if (process.env.CI) throw new Error(`${reason} (.ci/run does this; under CI a missing client is a failure)`);
  return reason;
}
