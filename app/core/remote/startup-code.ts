/** The startup code a kernel started on a Jupyter server runs as its first request. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pythonHelpersDir } from '../package-root.js';

let startupCode: string | undefined;

/**
 * resources/python/kernel_startup.py, which a local kernel runs at launch: print order kept
 * between stdout and stderr, and the last figure kept for save_figure. A kernel we start on a
 * server runs it as its first (silent) request; its local-only parts (the lifeline, the memory
 * cap) find no settings there and do nothing. The module it shares with the built-in worker
 * (python_session_common.py) travels with it as source (COMMON_SOURCE): nothing is written on
 * the server.
 */
export function kernelStartupCode(): string {
  const source = (name: string) => JSON.stringify(readFileSync(join(pythonHelpersDir(), name), 'utf8'));
  startupCode ??= `exec(compile(${source('kernel_startup.py')}, '<python-session-startup>', 'exec'), {'__name__': 'python_session_startup', 'COMMON_SOURCE': ${source('python_session_common.py')}})`;
  return startupCode;
}
